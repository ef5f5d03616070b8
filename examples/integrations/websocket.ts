// Orders over the exchange's WebSocket API through traderatio, against the model exchange.
// Run: npm run build && node --import tsx examples/integrations/websocket.ts
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { AccountLimiter, recordTrades } from 'traderatio';
import { startExchange } from 'traderatio/exchange';
import { limitedWebSocket } from 'traderatio/websocket';

// The model exchange on localhost; the real one is wss://fx-ws.gateio.ws/v4/ws/usdt.
const exchange = await startExchange({ port: 0 });
const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] });
const socket = new WebSocket(`${exchange.wsUrl}/v4/ws/usdt`);
await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
const api = limitedWebSocket(limiter, { account: 'main', socket });

// The login passes at once (the real exchange also wants `signature` and `timestamp`).
const login = await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } });
assert.equal(login.header['status'], '200');

// Orders wait on their limits (R16: the WebSocket 100 per second and the tier, shared with REST)
// and count when sent; each reply's rate-limit fields and 311/312 codes go back to the limiter.
const order = { contract: 'BTC_USDT', size: 1, price: '60000' };
const placed = await Promise.all([1, 2, 3].map(() => api.request('futures.order_place', order)));
assert.deepEqual(placed.map((r) => r.header['status']), ['200', '200', '200']);
const id = (placed[0]!.data!.result as { id: number }).id;
const cancelled = await api.request('futures.order_cancel', { order_id: String(id) });
assert.equal(cancelled.header['status'], '200');
assert.equal(limiter.abuseHeadroom('main').requests, 4);

// Fills from the futures.usertrades channel, exact, once per trade id (a REST my_trades catch-up
// given to recordTrades too is not counted twice).
const update = { channel: 'futures.usertrades', event: 'update', result: [{ id: '7', contract: 'BTC_USDT', size: -2, price: '60000', role: 'maker' }] };
assert.deepEqual(recordTrades(limiter, 'main', update, { multipliers: { BTC_USDT: '0.0001' } }), { recorded: 1, duplicates: 0 });
assert.equal(limiter.abuseHeadroom('main').traded, '12');

api.close();
socket.close();
limiter.close();
await exchange.close();
console.log('websocket: 3 placements, 1 cancel and 1 fill through traderatio');
