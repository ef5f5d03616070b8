// Orders over the exchange's WebSocket API through traderatio, against the model exchange.
// Run: npm run build && node --import tsx examples/integrations/websocket.ts
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { AccountLimiter } from 'traderatio';
import { startModelExchange } from 'traderatio/model-exchange';
import { limitedWebSocket } from 'traderatio/websocket';

// The model exchange on localhost; the real one is wss://fx-ws.gateio.ws/v4/ws/usdt.
const exchange = await startModelExchange({ port: 0 });
// A few milliseconds of margin (R13): a request may reach the exchange a little quicker than any
// answered yet (a connection already open), and the exchange counts arrivals.
const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5 });
const socket = new WebSocket(`${exchange.wsUrl}/v4/ws/usdt`);
await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
// The contracts' quanto_multiplier (GET /futures/usdt/contracts) counts the fills pushed.
const api = limitedWebSocket(limiter, { account: 'main', socket, multipliers: { BTC_USDT: '0.0001' } });

// The login passes at once (the real exchange also wants `signature` and `timestamp`); then the
// account's fills, pushed by futures.usertrades, are counted as they come, once per trade id.
const login = await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } });
assert.equal(login.header['status'], '200');
socket.send(
  JSON.stringify({
    time: Math.floor(Date.now() / 1000),
    channel: 'futures.usertrades',
    event: 'subscribe',
    payload: ['!all'],
  }),
);

// Orders wait on their limits (R16: the WebSocket 100 per second and the tier, shared with REST)
// and count when sent; each reply's rate-limit fields and 311/312 codes go back to the limiter:
// the first placement goes alone, and its reply's figure for the tier sets the limit.
const order = { contract: 'BTC_USDT', size: 1, price: '60000' };
const placed = await Promise.all([1, 2, 3].map(() => api.request('futures.order_place', order)));
assert.deepEqual(
  placed.map((r) => r.header['status']),
  ['200', '200', '200'],
);
const id = (placed[0]!.data!.result as { id: number }).id;
const cancelled = await api.request('futures.order_cancel', { order_id: String(id) });
assert.equal(cancelled.header['status'], '200');
assert.equal(limiter.abuseHeadroom('main').requests, 4);

api.close();
socket.close();
limiter.close();
await exchange.close();
console.log(
  `websocket: 3 placements and 1 cancel through traderatio; ${limiter.abuseHeadroom('main').traded} USDT of fills counted`,
);
