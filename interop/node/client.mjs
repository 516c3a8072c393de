// ACP client on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0).
//
// `node client.mjs --protocol v1|v2 AGENT_COMMAND [ARGS...]` starts the agent,
// runs one prompt turn, grants the permission the agent asks for (its
// allow_once option), prints what happens, and exits 0 once the turn has ended
// (v1: the response to `session/prompt`; v2: an idle `state_update`, which the
// SDK's ActiveSession reports as a `stop` message).
// Set ACP_NODE_MODULES to the node_modules directory holding the SDK.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const TIMEOUT_MS = 20_000;

async function loadSdk(protocol) {
  const entry = protocol === "v2" ? "@agentclientprotocol/sdk/experimental/v2" : "@agentclientprotocol/sdk";
  const dir = process.env.ACP_NODE_MODULES;
  if (!dir) return import(entry);
  const resolved = createRequire(import.meta.url).resolve(entry, { paths: [dir] });
  return import(pathToFileURL(resolved).href);
}

function fail(message) {
  process.stderr.write(`client: ${message}\n`);
  process.exit(1);
}

const print = (line) => process.stdout.write(`${line}\n`);

const [flag, protocol, ...command] = process.argv.slice(2);
if (flag !== "--protocol" || !["v1", "v2"].includes(protocol) || command.length === 0) {
  process.stderr.write("usage: node client.mjs --protocol v1|v2 AGENT_COMMAND [ARGS...]\n");
  process.exit(2);
}
const v1 = protocol === "v1";
const acp = await loadSdk(protocol);
const { methods } = acp;

const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const timer = setTimeout(() => {
  child.kill();
  fail(`no end of the turn after ${TIMEOUT_MS / 1000} s`);
}, TIMEOUT_MS);
// Settles when the agent exits (or cannot start): before the turn ends, that is a failure.
const agentGone = new Promise((resolve) => {
  child.on("error", (error) => resolve(`cannot start the agent ${command[0]}: ${error.message}`));
  child.on("exit", (code, signal) => resolve(`the agent exited before the turn ended (${signal ?? `code ${code}`})`));
});

function printUpdate(update) {
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      print(update.content.type === "text" ? `agent: ${update.content.text}` : `agent sent a ${update.content.type} block`);
      break;
    case "tool_call": // v1 only: a new tool call
    case "tool_call_update":
      print(`tool call ${update.toolCallId}: ${update.title ?? ""} [${update.status ?? ""}]`);
      break;
    default:
      print(`update \`${update.sessionUpdate}\``);
  }
}

const app = acp.client({ name: "ts-sdk-client" }).onRequest(methods.client.session.requestPermission, ({ params }) => {
  // v1 asks about a tool call; v2 gives the request a title (and the tool call as its subject).
  const about = v1 ? params.toolCall.toolCallId : params.title;
  const allow = params.options.find((option) => option.kind === "allow_once");
  if (!allow) {
    print(`permission: ${about} -> cancelled (no allow_once option)`);
    return { outcome: { outcome: "cancelled" } };
  }
  print(`permission: ${about} -> ${allow.name}`);
  return { outcome: { outcome: "selected", optionId: allow.optionId } };
});

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const turn = app.connectWith(stream, async (ctx) => {
  const info = { name: "ts-sdk-client", version: "0.1.0" };
  const init = await ctx.request(
    methods.agent.initialize,
    v1
      ? { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: info }
      : { protocolVersion: acp.PROTOCOL_VERSION, capabilities: {}, info },
  );
  const agentInfo = v1 ? init.agentInfo : init.info;
  print(`initialized: ${agentInfo?.name ?? "an agent"} (protocol ${init.protocolVersion})`);
  const session = await ctx.buildSession(process.cwd()).start(); // no MCP servers
  print(`session: ${session.sessionId}`);
  const prompt = session.prompt("What does README.md say?");
  if (v1) {
    prompt.catch(() => {}); // a failure also reaches nextUpdate()
  } else {
    print(`prompt acknowledged as ${(await prompt).messageId}`);
  }
  for (;;) {
    const message = await session.nextUpdate();
    if (message.kind === "stop") {
      print(`turn ended: ${message.stopReason ?? "without a stop reason"}`);
      break;
    }
    printUpdate(message.update);
  }
  session.dispose();
});

try {
  await Promise.race([turn, agentGone.then((reason) => Promise.reject(new Error(reason)))]);
} catch (error) {
  child.kill();
  fail(`the turn did not end: ${error?.message ?? error}`);
}
clearTimeout(timer);
child.stdin.end(); // the agent sees the end of its input and exits
const killer = setTimeout(() => child.kill(), 5_000);
await agentGone;
clearTimeout(killer);
process.exit(0);
