// Transports of lines: newline-delimited JSON over Node or web streams (stdio,
// a child process, a socket), and a pair in memory for tests.

/** A line read that was longer than the transport's limit: dropped, with the limit. */
export interface TooLarge {
  readonly limit: number;
}

/** One line read: its text without the newline, or {@link TooLarge}. */
export type Line = string | TooLarge;

/** What a `Connection` reads lines from and writes lines to. */
export interface Transport {
  /** The lines from the other side, without their newlines; ends when the input does. */
  lines(): AsyncIterable<Line>;
  /** Writes one line (a newline is added); writes happen in the order they are made. */
  write(line: string): Promise<void>;
  /** Ends the output. */
  close(): Promise<void>;
}

/** A web `ReadableStream` of bytes, as far as the transport uses it. */
export interface ByteStream {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
    releaseLock(): void;
  };
}

/** A web `WritableStream` of bytes, as far as the transport uses it. */
export interface ByteSink {
  getWriter(): { write(chunk: Uint8Array): Promise<void>; close(): Promise<void> };
}

/** A Node `Writable` (`process.stdout`, a child's `stdin`, a socket), as far as the transport uses it. */
export interface NodeSink {
  write(chunk: Uint8Array, callback: (error?: Error | null) => void): boolean;
  end(callback?: () => void): unknown;
}

/** Where a transport reads: a Node `Readable` (any async iterable of bytes or text) or a web `ReadableStream`. */
export type Input = AsyncIterable<Uint8Array | string> | ByteStream;
/** Where a transport writes: a Node `Writable` or a web `WritableStream`. */
export type Output = NodeSink | ByteSink;

/** The default limit on one line: 32 MiB, as the official SDK's. */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/**
 * Newline-delimited JSON over a pair of streams: stdio (`ndjson(process.stdin,
 * process.stdout)`), a child process, a socket, or web streams. A line longer
 * than `maxMessageBytes` (default {@link DEFAULT_MAX_MESSAGE_BYTES}) is
 * dropped without being held whole and read as {@link TooLarge}; a `\r`
 * before the newline and empty lines are ignored.
 */
export function ndjson(input: Input, output: Output, options: { maxMessageBytes?: number } = {}): Transport {
  const limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new RangeError("maxMessageBytes must be a positive integer");
  const encoder = new TextEncoder();
  let queue: Promise<void> = Promise.resolve();
  const writer = "getWriter" in output ? output.getWriter() : undefined;
  const write = (bytes: Uint8Array): Promise<void> => {
    if (writer !== undefined) return writer.write(bytes);
    const sink = output as NodeSink;
    return new Promise((resolve, reject) => {
      sink.write(bytes, (e) => (e === undefined || e === null ? resolve() : reject(e)));
    });
  };
  return {
    lines: () => splitLines(chunks(input), limit),
    write(line: string): Promise<void> {
      const next = queue.then(() => write(encoder.encode(line + "\n")));
      queue = next.catch(() => undefined);
      return next;
    },
    async close(): Promise<void> {
      await queue;
      if (writer !== undefined) await writer.close();
      else await new Promise<void>((resolve) => (output as NodeSink).end(resolve));
    },
  };
}

/** The chunks of either kind of input, as bytes. */
async function* chunks(input: Input): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  if ("getReader" in input) {
    const reader = input.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value !== undefined) yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  for await (const c of input as AsyncIterable<Uint8Array | string>)
    yield typeof c === "string" ? encoder.encode(c) : c;
}

/** Splits bytes into lines: pieces of a line are kept until its newline and joined once. */
async function* splitLines(input: AsyncIterable<Uint8Array>, limit: number): AsyncGenerator<Line> {
  const decoder = new TextDecoder();
  let pieces: Uint8Array[] = [];
  let size = 0;
  let tooLarge = false;
  const take = (last: Uint8Array): Line | undefined => {
    const over = tooLarge || size + last.length > limit;
    const all = pieces;
    const total = size + last.length;
    pieces = [];
    size = 0;
    tooLarge = false;
    if (over) return { limit };
    let bytes: Uint8Array;
    if (all.length === 0) bytes = last;
    else {
      bytes = new Uint8Array(total);
      let at = 0;
      for (const p of all) {
        bytes.set(p, at);
        at += p.length;
      }
      bytes.set(last, at);
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 13) end--;
    if (end === 0) return undefined;
    return decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end));
  };
  for await (const chunk of input) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const line = take(chunk.subarray(start, nl));
      if (line !== undefined) yield line;
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (tooLarge || size + rest.length > limit) {
        tooLarge = true;
        pieces = [];
        size = 0;
      } else {
        // The chunk's buffer may be reused by the stream: keep a copy.
        pieces.push(rest.slice());
        size += rest.length;
      }
    }
  }
  if (tooLarge || size > 0) {
    const line = take(new Uint8Array(0));
    if (line !== undefined) yield line;
  }
}

/**
 * Two transports joined in memory: what one writes, the other reads. For
 * tests, and for an agent and a client in one process.
 */
export function pair(): [Transport, Transport] {
  const a = new Pipe();
  const b = new Pipe();
  const end = (read: Pipe, write: Pipe): Transport => ({
    lines: () => read.lines(),
    write: (line) => write.push(line),
    close: async () => write.end(),
  });
  return [end(a, b), end(b, a)];
}

/** One direction of {@link pair}: lines queued until read. */
class Pipe {
  private queue: string[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  push(line: string): Promise<void> {
    if (this.ended) return Promise.reject(new Error("the other end is closed"));
    for (const l of line.split("\n")) if (l !== "") this.queue.push(l);
    this.wake?.();
    return Promise.resolve();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *lines(): AsyncGenerator<Line> {
    for (;;) {
      const line = this.queue.shift();
      if (line !== undefined) {
        yield line;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
