// ACP agent on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0).
//
// `node agent.mjs --protocol v1|v2` speaks on stdin/stdout. A prompt is
// answered with a message chunk and a tool call that needs the client's
// permission; once it is answered the tool call completes (or fails if
// rejected) and the turn ends with stop reason end_turn: in v1 as the response
// to `session/prompt`, in v2 as an idle `state_update` (v2 acknowledges the
// prompt at once). Only protocol messages go to stdout.
// Set ACP_NODE_MODULES to the node_modules directory holding the SDK.
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

async function loadSdk(protocol) {
  const entry = protocol === "v2" ? "@agentclientprotocol/sdk/experimental/v2" : "@agentclientprotocol/sdk";
  const dir = process.env.ACP_NODE_MODULES;
  if (!dir) return import(entry);
  const resolved = createRequire(import.meta.url).resolve(entry, { paths: [dir] });
  return import(pathToFileURL(resolved).href);
}

const [flag, protocol] = process.argv.slice(2);
if (flag !== "--protocol" || !["v1", "v2"].includes(protocol)) {
  process.stderr.write("usage: node agent.mjs --protocol v1|v2\n");
  process.exit(2);
}
const v1 = protocol === "v1";
const acp = await loadSdk(protocol);
const { methods } = acp;
const info = { name: "ts-sdk-agent", version: "0.1.0" };
let sessions = 0;

// v1 chunks carry no message id; v2 chunks must say which message they belong to.
const chunk = (text) => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
  ...(v1 ? {} : { messageId: "reply-1" }),
});

/** The turn: everything but its end, which v1 and v2 report differently. */
async function runTurn(client, sessionId) {
  const update = (update) => client.notify(methods.client.session.update, { sessionId, update });
  await update(chunk("Let me look at README.md."));
  const call = { toolCallId: "call-1", title: "Read README.md", kind: "read", status: "pending" };
  await update({ sessionUpdate: v1 ? "tool_call" : "tool_call_update", ...call });
  const options = [
    { optionId: "allow", name: "Allow", kind: "allow_once" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ];
  const ask = v1
    ? { sessionId, toolCall: { toolCallId: "call-1" }, options }
    : { sessionId, title: "Read README.md", subject: { type: "tool_call", toolCall: { toolCallId: "call-1" } }, options };
  const answer = await client.request(methods.client.session.requestPermission, ask);
  const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
  await update({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: allowed ? "completed" : "failed" });
  await update(chunk(allowed ? 'README.md starts with "# ACP bindings toolkit".' : "I was not allowed to read README.md."));
}

const app = acp
  .agent({ name: "ts-sdk-agent" })
  .onRequest(methods.agent.initialize, () =>
    v1
      ? { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, agentInfo: info }
      : { protocolVersion: acp.PROTOCOL_VERSION, capabilities: {}, info },
  )
  .onRequest(methods.agent.session.new, () => ({ sessionId: `session-${++sessions}` }))
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    if (v1) {
      await runTurn(client, params.sessionId);
      return { stopReason: "end_turn" };
    }
    // v2: acknowledge now; the turn goes on in notifications and ends with an idle state.
    setImmediate(async () => {
      try {
        await runTurn(client, params.sessionId);
        const idle = { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" };
        await client.notify(methods.client.session.update, { sessionId: params.sessionId, update: idle });
      } catch (error) {
        process.stderr.write(`agent: the turn failed: ${error?.message ?? error}\n`);
      }
    });
    return { messageId: "user-1" };
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    process.stderr.write(`agent: cancel for ${params.sessionId} (nothing to cancel)\n`);
  });

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed; // the client closed our stdin
