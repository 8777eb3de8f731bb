/**
 * `streamedBatches` (api/streamed-body.ts), the body of the exports: the head then every batch; batches are
 * read only as the reader pulls; a failing batch errors the stream (never a silently truncated body); a cancelled
 * stream stops the generator.
 */
import { describe, expect, it } from 'vitest';
import { streamedBatches } from '../../api/streamed-body';

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('streamedBatches', () => {
  it('writes the head, then each batch encoded, in order', async () => {
    async function* batches() {
      yield [3, 4];
      yield [5];
    }
    const gen = batches();
    const stream = streamedBatches({ done: false, value: [1, 2] }, gen, 'n\n', (n: number) => `${n}\n`);
    expect(await readAll(stream)).toBe('n\n1\n2\n3\n4\n5\n');
  });

  it('an empty first result gives the head alone', async () => {
    async function* none(): AsyncGenerator<number[], void, undefined> {}
    expect(await readAll(streamedBatches({ done: true, value: undefined }, none(), 'h\r\n', String))).toBe(
      'h\r\n',
    );
    expect(await readAll(streamedBatches({ done: true, value: undefined }, none(), '', String))).toBe('');
  });

  it('reads a batch only when the reader pulls', async () => {
    let reads = 0;
    async function* batches() {
      for (let i = 0; i < 5; i++) {
        reads++;
        yield [i];
      }
    }
    const reader = streamedBatches({ done: false, value: [-1] }, batches(), '', String).getReader();
    await reader.read();
    await reader.read();
    expect(reads).toBe(1);
    await reader.cancel();
  });

  it('errors the stream when a later batch fails', async () => {
    async function* batches(): AsyncGenerator<number[], void, undefined> {
      yield [2];
      throw new Error('connection lost');
    }
    const stream = streamedBatches({ done: false, value: [1] }, batches(), 'h\n', String);
    await expect(readAll(stream)).rejects.toThrow('connection lost');
  });

  it('a cancelled stream returns the generator', async () => {
    let finished = false;
    async function* batches() {
      try {
        for (let i = 0; ; i++) yield [i];
      } finally {
        finished = true;
      }
    }
    const gen = batches();
    const first = await gen.next();
    const reader = streamedBatches(first, gen, '', String).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    expect(finished).toBe(true);
  });
});
