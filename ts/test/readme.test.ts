// The README's TypeScript example, as it is shown there (with the package's
// own path in the import): `tools/tests/it/typescript.rs` checks that the
// README still shows this text, and the tests below run it.
import { SessionReducer, isKnown, v2 } from "../src/index.js";

const pending = new Map<string, string>(); // the id of each request sent -> its method
const session = new SessionReducer(v2.reducer);

export function onLine(line: string): string {
  // Typed by method and direction; a response by the request it answers.
  const { value: m, reports } = v2.codec.decodeMessage(line, (id) => pending.get(JSON.stringify(id)));
  for (const r of reports) console.warn(`${r.rule} at ${r.pointer}: ${r.message}`);
  if (m.kind === "notification" && m.method === "session/update") {
    const u = m.params.update;
    if (isKnown(u) && u.sessionUpdate === "tool_call_update" && u.title !== undefined) {
      console.log(`${u.toolCallId}: ${u.title ?? "(title cleared)"}`); // title?: Patch<string>
    }
    session.apply(u); // the state the crate's SessionReducer builds
  }
  return v2.codec.encodeMessage(m); // written back as it came, byte for byte
}

// ---- end of the README's example

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

test("the README's example decodes a trace, folds it, and writes every message back as it came", () => {
  const trace = new URL("../../../tests/traces/v2-rfd-chunks.jsonl", import.meta.url);
  const warn = console.warn;
  const log = console.log;
  const said: string[] = [];
  console.warn = console.log = (line: string) => said.push(line);
  try {
    for (const line of readFileSync(trace, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      let again: string;
      try {
        again = onLine(line);
      } catch {
        continue; // the trace's one refused line
      }
      assert.equal(again, line);
    }
  } finally {
    console.warn = warn;
    console.log = log;
  }
  const state = JSON.parse(JSON.stringify(session)) as { toolCalls: object; messages: object };
  assert.ok(Object.keys(state.toolCalls).length >= 2);
  assert.ok(Object.keys(state.messages).length >= 1);
  assert.ok(said.length > 0, "the example printed something");
});
