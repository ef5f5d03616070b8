import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, NotTextError, type Source, readText, textChunks } from '../../src/cli/source.js';

/** A source that brings `text` in pieces of the given sizes (the rest in one). */
function source(text: string | Buffer, sizes: readonly number[] = []): Source {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  async function* chunks() {
    let at = 0;
    for (const n of sizes) {
      if (at >= bytes.length) return;
      yield bytes.subarray(at, at + n);
      at += n;
    }
    if (at < bytes.length) yield bytes.subarray(at);
  }
  return { name: 'in.csv', chunks: chunks(), size: bytes.length };
}

async function read(text: string | Buffer, sizes: readonly number[] = [], max = MAX_LINE_BYTES) {
  try {
    return { text: await readText(source(text, sizes), max) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const line = (n: number) => 'x'.repeat(n);
const TOO_LONG = 'a line longer than 65,536 bytes, the longest an input line may be; is it the right file?';

describe('the longest line of a CSV input', () => {
  it('is 65,536 bytes before the line feed, a CR counted', async () => {
    expect(MAX_LINE_BYTES).toBe(65_536);
    const ok = `a,b\n${line(MAX_LINE_BYTES)}\nc\n`;
    expect((await read(ok)).text).toBe(ok);
    expect(await read(`a,b\n${line(MAX_LINE_BYTES + 1)}\nc\n`)).toEqual({ error: `in.csv:2: ${TOO_LONG}` });
    expect((await read(`a\r\n${line(MAX_LINE_BYTES - 1)}\r\n`)).text).toBeDefined();
    expect(await read(`a\r\n${line(MAX_LINE_BYTES)}\r\n`)).toEqual({ error: `in.csv:2: ${TOO_LONG}` });
  });

  it('holds for the last line, without a line feed, and across pieces', async () => {
    expect((await read(`a\n${line(MAX_LINE_BYTES)}`, [3, 1000])).text).toBeDefined();
    expect(await read(`a\n${line(MAX_LINE_BYTES + 1)}`, [3, 1000])).toEqual({ error: `in.csv:2: ${TOO_LONG}` });
    expect(await read(`a\nb\n${line(200_000)}\n`, [4, 70_000, 70_000])).toEqual({ error: `in.csv:3: ${TOO_LONG}` });
  });

  it('refuses a line of 50 MB after reading little more than the longest line', async () => {
    let read = 0;
    const piece = Buffer.alloc(1 << 16, 0x61);
    async function* endless() {
      for (let i = 0; i < 800; i++) {
        read += piece.length;
        yield piece;
      }
    }
    const chunks = textChunks({ name: 'x', chunks: endless(), size: null }, MAX_LINE_BYTES);
    await expect(chunks.next()).rejects.toBeInstanceOf(NotTextError);
    expect(read).toBeLessThanOrEqual(2 * (1 << 16));
  });

  it('does not hold for JSON, which may come on one line, nor where no limit is asked', async () => {
    const json = `  [${'"x",'.repeat(40_000)}"y"]`;
    expect((await read(json)).text).toBe(json);
    expect((await read(`{"a":"${line(100_000)}"}`)).text).toBeDefined();
    expect((await read(line(100_000), [], Number.POSITIVE_INFINITY)).text).toBeDefined();
  });

  test.prop(
    [
      fc.array(fc.integer({ min: 0, max: MAX_LINE_BYTES + 2 }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.integer({ min: 1, max: 80_000 }), { maxLength: 6 }),
      fc.boolean(),
    ],
    { numRuns: 40 },
  )('refuses exactly the first line over the limit, however the input is cut', async (lengths, sizes, endsWithLf) => {
    const text = lengths.map(line).join('\n') + (endsWithLf ? '\n' : '');
    const first = lengths.findIndex((n) => n > MAX_LINE_BYTES);
    const r = await read(`h\n${text}`, sizes);
    if (first < 0) expect(r.text).toBe(`h\n${text}`);
    else expect(r.error).toBe(`in.csv:${first + 2}: ${TOO_LONG}`);
  });
});
