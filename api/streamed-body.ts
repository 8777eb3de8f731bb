/**
 * Response bodies streamed from batches of rows (exports; docs/processes.md P1 "streamed, constant memory").
 *
 * Why not Hono's `stream()` helper: it ends a stream whose callback failed as if it were complete, so a client
 * would receive a truncated export that looks whole. A pull-based `ReadableStream` handed to `c.body()` errors the
 * body instead (the server aborts the transfer; the client sees a failed download), and it asks for the next
 * batch only when the client has taken the previous one (backpressure), so memory holds one batch at a time.
 */

/**
 * A byte stream of `head` (e.g. a CSV header row; '' for none) followed by every item of `batches`, each batch
 * written as one chunk of `encode(item)` joined. `first` is the generator's first result, read by the caller
 * before answering (so a failure on the first read still gets an error response). A failure of a later batch
 * errors the stream; cancelling the stream (the client went away) returns the generator, which stops its reads.
 */
export function streamedBatches<T>(
  first: IteratorResult<T[], void>,
  batches: AsyncGenerator<T[], void, undefined>,
  head: string,
  encode: (item: T) => string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: IteratorResult<T[], void> | null = first;
  let headSent = head === '';
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headSent) {
          headSent = true;
          controller.enqueue(encoder.encode(head));
          return;
        }
        const next = pending ?? (await batches.next());
        pending = null;
        if (next.done) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(next.value.map(encode).join('')));
      },
      async cancel() {
        await batches.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The chunks of a request body stream as an async iterable, read one at a time as the consumer asks (so a slow
 * consumer slows the upload: backpressure to the client). A missing body is an empty iterable. Stopping early
 * cancels the stream.
 */
export async function* streamChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (body === null) return;
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
