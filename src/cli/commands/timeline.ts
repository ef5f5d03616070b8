import { timelineSvg } from '../chart.js';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { COMMON_OPTIONS, familyOptionsOf, fileOf, rulebookOf } from '../common-options.js';
import { writeOut } from '../output-file.js';
import { readInput } from '../source.js';
import { readTimeline, renderTimeline, timelineHtml, timelineJson } from '../timeline.js';

/** `traderatio timeline FILE`: each account's limit over time, with a chart or a page. */
export const timelineCommand: Command = {
  name: 'timeline',
  usage: 'timeline FILE',
  about: `each account's limit over time, with the reason of every change; a chart with --svg or --html

FILE is JSON (- reads standard input): { "accounts": [{ "id", "role"?, "createdAt"? }], "activity": [{ "account", "day",
"contracts": [{ "contract", "makerVolume", "takerVolume", "place", "amend", "cancel" }] }],
"vipLevel"?, "vipChanges"?: [{ "at", "level" }], "spotHours"?: [{ "account", "hour", "requests", "traded" }] };
instants as ISO text or epoch ms, days as YYYY-MM-DD; spotHours gives each account's spot requests and spot USDT
traded by hour, and the hours of the spot low-fill throttle (R14) follow the limits.
With --exchange okx, contracts are OKX instrument ids, limits per 2 s, a worse snapshot's lowering waits a day
(its days of grace listed, and drawn in the chart); OKX has no hourly throttles ("hours", "spotHours").`,
  options: [
    {
      name: 'svg',
      value: 'OUT',
      help: 'also write a step chart per account (tiers shaded, raises and lowerings marked, spot throttle hours in orange)',
    },
    { name: 'html', value: 'OUT', help: 'also write a page with the chart and the table' },
    COMMON_OPTIONS.exchange,
    COMMON_OPTIONS.threshold,
    COMMON_OPTIONS.broker,
    COMMON_OPTIONS.json,
    COMMON_OPTIONS.help,
  ],
  notes: { vip: 'the VIP level is in the file: "vipLevel", and "vipChanges" over time' },
  async run(args, io, { stdin }) {
    const file = fileOf(timelineCommand, args);
    const rulebook = rulebookOf(args);
    const options = familyOptionsOf(args, rulebook);
    const { name, text } = await readInput(file, stdin);
    const result = readTimeline(name, text, options, rulebook);
    const svg = args.values.get('svg');
    const html = args.values.get('html');
    if (typeof svg === 'string') writeOut(svg, timelineSvg(result));
    if (typeof html === 'string') writeOut(html, timelineHtml(result));
    io.out(args.values.has('json') ? JSON.stringify(timelineJson(result), null, 2) : renderTimeline(result));
    return EXIT.ok;
  },
};
