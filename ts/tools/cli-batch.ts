// `node dist/tools/cli-batch.js`: runs many command lines of `cli.js` in one
// process, for the differential tests, which would otherwise start Node
// hundreds of times. Reads one JSON array of arguments a line on stdin and
// answers each with a line `{"code": N, "stdout": BYTES, "stderr": BYTES}`
// followed by that many bytes of each stream: what `cli.js` would have written
// to it (its text as UTF-8, as a stream of the process writes it), and its exit
// code. A command that throws
// is answered as Node ends such a process: its stack on stderr, code 1.
// Not part of the package (the tests run it from the repository).

import { createInterface } from "node:readline";
import { stdin, stdout } from "node:process";

import { run } from "../src/commands.js";

const lines = createInterface({ input: stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const args = JSON.parse(line) as string[];
  const out: string[] = [];
  const err: string[] = [];
  let code: number;
  try {
    code = run(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  } catch (e) {
    err.push(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    code = 1;
  }
  const o = Buffer.from(out.join(""), "utf8");
  const e = Buffer.from(err.join(""), "utf8");
  stdout.write(Buffer.concat([Buffer.from(JSON.stringify({ code, stdout: o.length, stderr: e.length }) + "\n"), o, e]));
}
