import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { COMMON_OPTIONS, familyOptionsOf, fileOf, rulebookOf, vipOf } from '../common-options.js';
import { makePlan, readPlan } from '../plan.js';
import { planJson, renderPlan } from '../render.js';
import { MAX_LINE_BYTES, readInput } from '../source.js';

/** `traderatio plan FILE`: ratios, tiers, limits and margins from 7-day figures. */
export const planCommand: Command = {
  name: 'plan',
  usage: 'plan FILE',
  about: `ratios, tiers, limits and the margins to the tiers around, per account and for the family

FILE is CSV with a header row, or JSON (an array of objects with the same keys); - reads standard input:
  account,contract,maker_volume,taker_volume,place,amend,cancel,hour,spot_requests,spot_traded
one row per account and contract with its 7-day figures (USDT volumes, request counts); a row with an hour
instead of a contract gives the account's spot requests and spot USDT traded in that hour (the spot low-fill
throttle, R14: now, at the next hourly check, and what keeps it clear; the latest hour is the current one).
With --exchange okx, contract holds OKX instrument ids (BTC-USDT-SWAP, BTC-USDT-250328, BTC-USDT), counts
are successful new and amend requests, limits per 2 s; OKX has no spot low-fill throttle (no hour rows).`,
  options: [
    COMMON_OPTIONS.exchange,
    COMMON_OPTIONS.vip,
    COMMON_OPTIONS.threshold,
    COMMON_OPTIONS.broker,
    COMMON_OPTIONS.json,
    COMMON_OPTIONS.help,
  ],
  async run(args, io, { stdin }) {
    const file = fileOf(planCommand, args);
    const rulebook = rulebookOf(args);
    const options = familyOptionsOf(args, rulebook);
    const vipLevel = vipOf(args, rulebook);
    const { name, text } = await readInput(file, stdin, MAX_LINE_BYTES);
    const result = makePlan(readPlan(name, text, rulebook), options, vipLevel, rulebook);
    io.out(args.values.has('json') ? JSON.stringify(planJson(result), null, 2) : renderPlan(result));
    return EXIT.ok;
  },
};
