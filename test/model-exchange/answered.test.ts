import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { answeredRoutes } from '../../src/model-exchange/routes.js';
import { okxAnsweredRoutes } from '../../src/model-exchange/okx/venue.js';

describe('docs/model-exchange.md', () => {
  it('lists every route the model answers, and no other', () => {
    const doc = readFileSync(new URL('../../docs/model-exchange.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## What it answers'), doc.indexOf('## Starting it'));
    const listed = (part: string) =>
      [...part.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]+)`/g)].map((m) => m[1]).sort();
    const privateAt = section.indexOf('Private (');
    const routes = answeredRoutes();
    expect(listed(section.slice(0, privateAt))).toEqual([...routes.public].sort());
    expect(listed(section.slice(privateAt))).toEqual([...routes.private].sort());
  });
});

describe('docs/model-exchange.md, OKX', () => {
  it('lists every route the model answers on OKX, and no other', () => {
    const doc = readFileSync(new URL('../../docs/model-exchange.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## OKX'), doc.indexOf('## How it is built'));
    const listed = (part: string) => [...part.matchAll(/`((?:GET|POST) \/api\/v5\/[^`]+)`/g)].map((m) => m[1]).sort();
    const publicAt = section.indexOf('Public: ');
    const privateAt = section.indexOf('Private: ');
    const routes = okxAnsweredRoutes();
    expect(listed(section.slice(publicAt, privateAt))).toEqual([...routes.public].sort());
    expect(listed(section.slice(privateAt, section.indexOf('```ts')))).toEqual([...routes.private].sort());
  });
});
