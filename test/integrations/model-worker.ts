// The model exchange in a worker thread of its own, so that a benchmark's client and the model do
// not share one event loop: started with the options in workerData; it posts its URLs, answers
// 'stats' with its counts and 'close' by closing.
import { parentPort, workerData } from 'node:worker_threads';
import { startModelExchange } from '../../src/model-exchange/index.js';

const exchange = await startModelExchange(workerData as Parameters<typeof startModelExchange>[0]);
parentPort!.on('message', (m: string) => {
  if (m === 'stats') parentPort!.postMessage({ stats: exchange.stats() });
  else if (m === 'close') void exchange.close().then(() => parentPort!.postMessage({ closed: true }));
});
parentPort!.postMessage({ url: exchange.url, wsUrl: exchange.wsUrl, port: exchange.port });
