// Reading a trace a line at a time (the CLI's `eachLine`), at every boundary
// of a small read buffer.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { eachLine, NotUtf8, utf8Error } from "../src/lines.js";

function linesOf(bytes: Uint8Array, chunk: number): [string, number][] {
  const dir = mkdtempSync(join(tmpdir(), "acp-lines-"));
  try {
    const file = join(dir, "t.jsonl");
    writeFileSync(file, bytes);
    const out: [string, number][] = [];
    eachLine(file, (line, n) => out.push([line, n]), chunk);
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("lines end at \\n, a \\r before it is dropped, the last may lack it; any chunk size gives the same lines", () => {
  const text = 'first\r\n\n{"a": "é…"}\nlonger than any of the small chunks below\r\nlast\r';
  const want: [string, number][] = [
    ["first", 1],
    ["", 2],
    ['{"a": "é…"}', 3],
    ["longer than any of the small chunks below", 4],
    ["last\r", 5],
  ];
  for (const chunk of [1, 2, 3, 5, 8, 64, 1 << 20]) {
    assert.deepEqual(linesOf(Buffer.from(text), chunk), want, `chunk ${chunk}`);
  }
  assert.deepEqual(linesOf(Buffer.from(""), 4), []);
  assert.deepEqual(linesOf(Buffer.from("x\n"), 4), [["x", 1]]);
});

test("a line that is not UTF-8 stops the reading, named as Rust's from_utf8 names it", () => {
  const cases: [number[], string][] = [
    [[0x61, 0xff], "invalid utf-8 sequence of 1 bytes from index 1"],
    [[0xc0, 0xaf], "invalid utf-8 sequence of 1 bytes from index 0"],
    [[0xe0, 0x80, 0x80], "invalid utf-8 sequence of 1 bytes from index 0"],
    [[0xed, 0xa0, 0x80], "invalid utf-8 sequence of 1 bytes from index 0"],
    [[0xf0, 0x9f, 0x98, 0x41], "invalid utf-8 sequence of 3 bytes from index 0"],
    [[0x61, 0x62, 0xe2, 0x82], "incomplete utf-8 byte sequence from index 2"],
  ];
  for (const [bytes, what] of cases) {
    const file = Buffer.concat([Buffer.from("ok\n"), Buffer.from(bytes), Buffer.from("\r\nnever read\n")]);
    const seen: number[] = [];
    assert.throws(
      () => {
        const dir = mkdtempSync(join(tmpdir(), "acp-lines-"));
        try {
          writeFileSync(join(dir, "t.jsonl"), file);
          eachLine(join(dir, "t.jsonl"), (_, n) => seen.push(n), 2);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
      (e: unknown) => e instanceof NotUtf8 && e.message === `line 2: stream did not contain valid UTF-8: ${what}`,
      what,
    );
    assert.deepEqual(seen, [1]);
  }
  assert.equal(utf8Error(Buffer.from("já 𝄞")), null);
});
