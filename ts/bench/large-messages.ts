// `npm run bench`, second part: single large `session/update` lines, decoded
// by these bindings against `JSON.parse` plus the official SDK's validation
// of the same line (`@agentclientprotocol/sdk` 2.4.0's zod schema
// `zUpdateSessionNotification`), measured in the same run, alternating.
//
// - a 4 MB base64 image (an `agent_message_chunk` with image content);
// - 2 MB of escape-dense text (quotes, backslashes, newlines, tabs and
//   `\u` escapes in every few characters);
// - a 500 KB unified diff (a tool call's `diff` content, its patch text).
//
// Exits 1 when any of them takes longer than the official side.

import { v2 } from "../src/index.js";
import { alternate, official } from "./common.js";

function line(update: object): string {
  return JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "sess_abc123", update } });
}

function base64(bytes: number): string {
  const raw = new Uint8Array(bytes);
  let x = 12345;
  for (let i = 0; i < raw.length; i++) raw[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  return Buffer.from(raw).toString("base64");
}

function escapeDense(chars: number): string {
  const pieces = ['say "hi"', "C:\\path\\to", "line\n", "\ttab", "é€", "\u0001", "😀", "plain words "];
  let out = "";
  for (let i = 0; out.length < chars; i++) out += pieces[i % pieces.length];
  return out;
}

function diff(bytes: number): string {
  let out = "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n";
  for (let i = 0; out.length < bytes; i++) {
    out += `@@ -${i * 10},7 +${i * 10},7 @@ fn f${i}() {\n     let x = "${i}";\n-    println!("{}", x);\n+    println!("{x:?}");\n     }\n`;
  }
  return out;
}

const cases: [string, string][] = [
  [
    "4 MB base64 image",
    line({
      sessionUpdate: "agent_message_chunk",
      messageId: "m1",
      content: { type: "image", mimeType: "image/png", data: base64(3 * 1024 * 1024) },
    }),
  ],
  [
    "2 MB escape-dense text",
    line({
      sessionUpdate: "agent_message_chunk",
      messageId: "m1",
      content: { type: "text", text: escapeDense(1600 * 1024) },
    }),
  ],
  [
    "500 KB diff",
    line({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "completed",
      content: [
        {
          type: "diff",
          changes: [{ operation: "modify", path: "/work/src/lib.rs" }],
          patch: { format: "git_patch", text: diff(500 * 1024) },
        },
      ],
    }),
  ],
];

const zod = await official();
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
let slower = false;
console.log(`large messages: ${rounds} alternating passes each, medians`);
for (const [name, text] of cases) {
  const sides = {
    ours: () => v2.codec.decodeMessage(text).value,
    official: () => zod.parse((JSON.parse(text) as { params: unknown }).params),
  };
  for (const f of Object.values(sides)) if (f() === undefined) throw new Error(`${name}: not decoded`);
  const { ours, official: theirs } = alternate(sides, rounds);
  const ratio = ours / theirs;
  if (ratio > 1) slower = true;
  const size = (text.length / (1024 * 1024)).toFixed(2);
  console.log(
    `  ${name} (${size} MB of text): acp-bindings ${ours.toFixed(2)} ms, JSON.parse + SDK zod ${theirs.toFixed(2)} ms, ratio ${ratio.toFixed(3)} (target: at most 1)`,
  );
}
if (slower) process.exit(1);
