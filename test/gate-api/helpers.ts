import axios from 'axios';
import { ApiClient } from 'gate-api';
import type { Clock } from '../../src/schedule/clock.js';
import type { RunningModelExchange } from '../../src/model-exchange/index.js';

/**
 * An ApiClient of the SDK for `key` on the model, on an axios instance of its own. The SDK signs
 * with the machine's clock and the model runs on `clock` (a virtual day, or the machine's moved to
 * a chosen hour): after signing, the instance puts the Timestamp on the model's clock (signatures
 * are not verified), and notes when each request left, by method.
 */
export function sdkClient(exchange: RunningModelExchange, clock: Clock, key = 'main-key') {
  const http = axios.create();
  const sent: { method: string; at: number; timestamp: number }[] = [];
  http.interceptors.request.use((config) => {
    sent.push({
      method: String(config.method).toUpperCase(),
      at: clock.now(),
      timestamp: Number(config.headers.get('Timestamp')),
    });
    config.headers.set('Timestamp', String(clock.wall() / 1000));
    return config;
  });
  // The SDK's declarations see axios's CommonJS types, this file its ES module ones: one instance.
  const client = new ApiClient(`${exchange.url}/api/v4`, http as unknown as ConstructorParameters<typeof ApiClient>[1]);
  client.setApiKeySecret(key, 'secret');
  return { client, http, sent };
}
