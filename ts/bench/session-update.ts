// `npm run bench`: decoding the project's v2 `session/update` stream (the one
// `tests/benches/session_update.rs` builds for the Rust crate: 400 tool calls,
// each created, patched with explicit nulls, fed three content chunks and
// completed, with message and thought chunks) with these bindings, against
// the official SDK's own validation of received notifications
// (`@agentclientprotocol/sdk` 2.4.0: `JSON.parse`, then its generated zod
// schema `zUpdateSessionNotification`), measured in the same run.
//
// Both read the same JSON-RPC lines. Passes alternate (ours, official, ours,
// ...) so that a slower stretch of a noisy machine hits both; each side's
// figure is its median pass. Exits 1 when ours takes more than half the
// official time.

import { v2 } from "../src/index.js";
import { alternate, official } from "./common.js";

function stream(): string[] {
  const out: string[] = [];
  const update = (u: object) => JSON.stringify({ sessionId: "sess_abc123", update: u });
  for (let i = 0; i < 400; i++) {
    const id = `call_${String(i).padStart(4, "0")}`;
    const path = `/work/src/module_${i}.rs`;
    out.push(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        title: `Reading src/module_${i}.rs`,
        kind: "read",
        status: "pending",
        locations: [{ path, line: 12 }],
        rawInput: { path, limit: 200 },
      }),
    );
    out.push(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "in_progress",
        title: null,
        rawOutput: null,
      }),
    );
    for (let c = 0; c < 3; c++) {
      const text = `line ${c} of the output of tool call ${i}: fn main() { println!("hello"); }`;
      out.push(
        update({
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: id,
          content: { type: "content", content: { type: "text", text } },
        }),
      );
    }
    out.push(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "completed",
        kind: null,
        content: [
          { type: "content", content: { type: "text", text: "Found 3 matches" } },
          { type: "diff", changes: [{ operation: "modify", path }] },
        ],
        locations: null,
        _meta: { traceId: `t-${i}` },
      }),
    );
    for (let m = 0; m < 3; m++) {
      const text = `Chunk ${m}: the agent explains what it found in module ${i}. `;
      out.push(
        update({ sessionUpdate: "agent_message_chunk", messageId: `msg_${i}`, content: { type: "text", text } }),
      );
    }
    out.push(
      update({
        sessionUpdate: "agent_thought_chunk",
        messageId: `thought_${i}`,
        content: { type: "text", text: "Considering the next step." },
      }),
    );
    if (i % 20 === 0) {
      const entries = [
        { content: "Read the modules", priority: "high", status: "completed" },
        { content: "Write the fix", priority: "medium", status: "in_progress" },
      ];
      out.push(update({ sessionUpdate: "plan_update", plan: { type: "items", planId: "main", entries } }));
      out.push(update({ sessionUpdate: "usage_update", used: 1000 + i, size: 200000 }));
      out.push(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
      out.push(update({ sessionUpdate: "session_info_update", title: "Fix the parser", updatedAt: null }));
    }
  }
  return out.map((l) => `{"jsonrpc":"2.0","method":"session/update","params":${l}}`);
}

const lines = stream();
const zod = await official();
const sides = {
  ours: () => {
    let n = 0;
    for (const l of lines) if (v2.codec.decodeMessage(l).value.kind === "notification") n++;
    return n;
  },
  official: () => {
    let n = 0;
    for (const l of lines) if (zod.parse((JSON.parse(l) as { params: unknown }).params) !== undefined) n++;
    return n;
  },
};
for (const [name, f] of Object.entries(sides)) {
  if (f() !== lines.length) throw new Error(`${name} did not decode every line`);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const { ours, official: theirs } = alternate(sides, rounds);
const ratio = ours / theirs;
const perMessage = (ms: number) => ((ms * 1000) / lines.length).toFixed(2);
console.log(`session-update stream: ${lines.length} messages, ${rounds} alternating passes, medians`);
console.log(`  acp-bindings decodeMessage:            ${ours.toFixed(1)} ms (${perMessage(ours)} µs/message)`);
console.log(`  official SDK 2.4.0 JSON.parse + zod:   ${theirs.toFixed(1)} ms (${perMessage(theirs)} µs/message)`);
console.log(`  ratio: ${ratio.toFixed(3)} of the official time (target: at most 0.5)`);
if (ratio > 0.5) process.exit(1);
