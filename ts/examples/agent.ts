// An ACP agent on the TypeScript bindings: `node dist/examples/agent.js
// --protocol v1|v2` speaks JSON-RPC on stdin/stdout, one message a line.
//
// A prompt is answered with a message chunk and a tool call that needs the
// client's permission; once the client answers, the tool call completes (or
// fails if rejected), another chunk follows, and the turn ends with stop
// reason `end_turn`: in v1 as the response to `session/prompt`, in v2 as an
// idle `state_update` (v2 acknowledges the prompt at once).

import { argv, exit, stderr, stdin, stdout } from "node:process";

import { Connection, isKnown, ndjson, v1, v2 } from "../src/index.js";

const protocol = argv[2] === "--protocol" ? argv[3] : undefined;
if (protocol !== "v1" && protocol !== "v2") {
  stderr.write("usage: node agent.js --protocol v1|v2\n");
  exit(2);
}

const info = { name: "ts-bindings-agent", version: "0.1.0" };
const options = [
  { optionId: "allow", name: "Allow", kind: "allow_once" as const },
  { optionId: "reject", name: "Reject", kind: "reject_once" as const },
];
const text = (text: string) => ({ type: "text" as const, text });
const intro = text("Let me look at README.md.");
const outro = (allowed: boolean) =>
  text(allowed ? 'README.md starts with "# ACP bindings toolkit".' : "I was not allowed to read README.md.");
let sessions = 0;

if (protocol === "v1") {
  const agent = new Connection(v1.codec, "agent", ndjson(stdin, stdout));
  agent.onRequest("initialize", () => ({ protocolVersion: 1, agentCapabilities: {}, agentInfo: info }));
  agent.onRequest("session/new", () => ({ sessionId: `session-${++sessions}` }));
  agent.onRequest("session/prompt", async ({ sessionId }) => {
    const update = (update: v1.SessionUpdate) => agent.notify("session/update", { sessionId, update });
    await update({ sessionUpdate: "agent_message_chunk", content: intro });
    const toolCallId = "call-1";
    await update({ sessionUpdate: "tool_call", toolCallId, title: "Read README.md", kind: "read", status: "pending" });
    const { outcome } = await agent.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId },
      options,
    });
    const allowed = isKnown(outcome) && outcome.outcome === "selected" && outcome.optionId === "allow";
    await update({ sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
    await update({ sessionUpdate: "agent_message_chunk", content: outro(allowed) });
    return { stopReason: "end_turn" };
  });
} else {
  const agent = new Connection(v2.codec, "agent", ndjson(stdin, stdout));
  agent.onRequest("initialize", () => ({ protocolVersion: 2, capabilities: {}, info }));
  agent.onRequest("session/new", () => ({ sessionId: `session-${++sessions}` }));
  agent.onRequest("session/prompt", ({ sessionId }) => {
    const update = (update: v2.SessionUpdate) => agent.notify("session/update", { sessionId, update });
    const turn = async () => {
      await update({ sessionUpdate: "agent_message_chunk", messageId: "reply-1", content: intro });
      const toolCallId = "call-1";
      await update({
        sessionUpdate: "tool_call_update",
        toolCallId,
        title: "Read README.md",
        kind: "read",
        status: "pending",
      });
      const { outcome } = await agent.request("session/request_permission", {
        sessionId,
        title: "Read README.md",
        subject: { type: "tool_call", toolCall: { toolCallId } },
        options,
      });
      // An outcome this version does not know is not an approval.
      const allowed = isKnown(outcome) && outcome.outcome === "selected" && outcome.optionId === "allow";
      await update({ sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
      await update({ sessionUpdate: "agent_message_chunk", messageId: "reply-1", content: outro(allowed) });
      await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    };
    // Acknowledged at once; the turn goes on in notifications once the answer is out.
    setTimeout(() => turn().catch((e: unknown) => stderr.write(`agent: the turn failed: ${String(e)}\n`)), 0);
    return { messageId: "user-1" };
  });
}
