// Reading a trace a line at a time, as `acp-tools` reads one: memory bounded
// by the longest line, not by the file, so that a replay of any length holds
// only the state it builds. Lines end at `\n` (a `\r` before it is dropped;
// the last line may lack it) and must be UTF-8: a line that is not stops the
// reading with the error Rust's `str::from_utf8` words.

import { closeSync, openSync, readSync } from "node:fs";

/** A line that is not UTF-8, worded as `acp-tools` words it. */
export class NotUtf8 extends Error {}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The first malformed sequence of `bytes`, as Rust's `Utf8Error` describes it:
 * the index it starts at and its length (`undefined` when the bytes end in
 * the middle of a character). `null` when `bytes` is UTF-8.
 */
export function utf8Error(bytes: Uint8Array): { at: number; length: number | undefined } | null {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The bytes a lead byte needs, and the range its first continuation byte
    // must fall in (no overlong forms, no surrogates, nothing past U+10FFFF).
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return { at: i, length: 1 };
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return { at: i, length: undefined };
      const c = bytes[i + k] as number;
      const ok = k === 1 ? c >= lo && c <= hi : c >= 0x80 && c <= 0xbf;
      if (!ok) return { at: i, length: k };
    }
    i += need + 1;
  }
  return null;
}

/** `bytes` as text, or the error Rust's `from_utf8` gives (without the `line N: ` Rust's reader puts first). */
export function utf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    const e = utf8Error(bytes);
    if (e === null) throw new NotUtf8("stream did not contain valid UTF-8");
    const what =
      e.length === undefined
        ? `incomplete utf-8 byte sequence from index ${e.at}`
        : `invalid utf-8 sequence of ${e.length} bytes from index ${e.at}`;
    throw new NotUtf8(`stream did not contain valid UTF-8: ${what}`);
  }
}

/**
 * Calls `f(line, number)` for each line of the file at `path`, numbered from
 * 1, reading `chunk` bytes at a time. Throws the file's error (`ENOENT`, ...)
 * or a {@link NotUtf8} that names the line.
 */
export function eachLine(path: string, f: (line: string, number: number) => void, chunk = 1 << 20): void {
  const fd = openSync(path, "r");
  try {
    let buf = Buffer.alloc(chunk);
    let held = 0; // the start of a line whose end is not read yet, moved to the front
    let number = 0;
    const emit = (start: number, end: number, newline: boolean) => {
      number++;
      if (newline && end > start && buf[end - 1] === 0x0d) end--;
      let text: string;
      try {
        text = utf8(buf.subarray(start, end));
      } catch (e) {
        if (e instanceof NotUtf8) throw new NotUtf8(`line ${number}: ${e.message}`);
        throw e;
      }
      f(text, number);
    };
    for (;;) {
      if (held === buf.length) {
        // A line longer than the buffer: twice the room.
        const bigger = Buffer.alloc(buf.length * 2);
        buf.copy(bigger, 0, 0, held);
        buf = bigger;
      }
      const got = readSync(fd, buf, held, buf.length - held, null);
      const end = held + got;
      const read = buf.subarray(0, end);
      let start = 0;
      // The held bytes have no newline: the search starts after them.
      let nl = read.indexOf(0x0a, held);
      while (nl !== -1) {
        emit(start, nl, true);
        start = nl + 1;
        nl = read.indexOf(0x0a, start);
      }
      if (got === 0) {
        if (start < end) emit(start, end, false);
        return;
      }
      buf.copy(buf, 0, start, end);
      held = end - start;
    }
  } finally {
    closeSync(fd);
  }
}
