import { timingSafeEqual } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import type { ModelExchange } from './model.js';

/**
 * The model's administration, under `/_model/` (off the API's paths):
 * - `GET /_model/stats`: counts per account and limit, tiers and throttles in force;
 * - `GET /_model/clock`: the model's clock, where it started, its speed, and what Timestamps are checked against;
 * - `POST /_model/vip` `{ "account", "level" }`: the VIP level of the account's family, now (see docs/rules.md#r6);
 * - `POST /_model/sub_accounts` `{ "main", "id", "keys"? }`: a sub-account of `main`'s family, created now (see docs/rules.md#r8);
 * - `POST /_model/reset`: back to the start (accounts file, history), nothing counted.
 * Errors are answered as the API's are: `{ label, message }`. With a `token`, every request must
 * carry `Authorization: Bearer <token>` (401 INVALID_CREDENTIALS otherwise).
 */
export function handleAdmin(
  model: ModelExchange,
  req: { method: string; path: string; body: string; authorization?: string | undefined },
  token?: string,
): { status: number; body: unknown } {
  const route = `${req.method} ${req.path.replace(/\/+$/, '')}`;
  if (token !== undefined && !sameToken(req.authorization, token)) {
    return {
      status: 401,
      body: {
        label: 'INVALID_CREDENTIALS',
        message: 'the administration takes the header Authorization: Bearer <token> (printed at start-up)',
      },
    };
  }
  try {
    const body = req.body === '' ? {} : (JSON.parse(req.body) as Record<string, unknown>);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new InvalidInputError('the body', body, 'a JSON object');
    switch (route) {
      case 'GET /_model/stats':
        return { status: 200, body: model.stats() };
      case 'GET /_model/clock':
        return {
          status: 200,
          body: { now: new Date(model.now()).toISOString(), ms: Math.floor(model.now()), ...model.clockMode() },
        };
      case 'POST /_model/vip': {
        const account = model.core.account(body.account as string);
        // The model's clock has a fraction of a millisecond (see docs/rules.md#r15); a change takes effect at a whole one.
        model.core.setVipLevel(account.family, body.level as number, Math.floor(model.now()));
        return { status: 200, body: { family: account.family.id, level: body.level } };
      }
      case 'POST /_model/sub_accounts': {
        const main = model.core.account(body.main as string);
        const keys = (body.keys ?? []) as { key: string; secret: string; passphrase?: string }[];
        if (!Array.isArray(keys)) throw new InvalidInputError('`keys`', keys, 'an array of { key, secret }');
        for (const [i, k] of keys.entries()) {
          if (
            typeof k?.key !== 'string' ||
            k.key === '' ||
            model.keyOf(k.key) !== undefined ||
            typeof k.secret !== 'string' ||
            (k.passphrase !== undefined && typeof k.passphrase !== 'string')
          ) {
            throw new InvalidInputError(
              `\`keys[${i}]\``,
              k,
              'a { key, secret, passphrase? (OKX) } whose key is not yet used',
            );
          }
        }
        const at = model.now();
        const account = model.core.addAccount(main.family.id, { id: body.id as string, createdAt: Math.floor(at) });
        for (const k of keys) model.addKey(k.key, k.secret, account.id, k.passphrase);
        return {
          status: 200,
          body: { id: account.id, family: main.family.id, createdAt: new Date(Math.floor(at)).toISOString() },
        };
      }
      case 'POST /_model/reset':
        model.reset();
        return { status: 200, body: { reset: new Date(model.now()).toISOString() } };
      default:
        return {
          status: 404,
          body: {
            label: 'NOT_FOUND',
            message: `${route} is not an administration route (GET /_model/stats, GET /_model/clock, POST /_model/vip, POST /_model/sub_accounts, POST /_model/reset)`,
          },
        };
    }
  } catch (e) {
    if (e instanceof SyntaxError)
      return { status: 400, body: { label: 'INVALID_REQUEST_BODY', message: `the body is not JSON: ${e.message}` } };
    if (e instanceof InvalidInputError)
      return { status: 400, body: { label: 'INVALID_PARAM_VALUE', message: e.message } };
    throw e;
  }
}

function sameToken(authorization: string | undefined, token: string): boolean {
  const given = Buffer.from(authorization ?? '', 'utf8');
  const wanted = Buffer.from(`Bearer ${token}`, 'utf8');
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
