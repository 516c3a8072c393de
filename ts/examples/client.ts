// An ACP client on the TypeScript bindings: `node dist/examples/client.js
// --protocol v1|v2 AGENT_COMMAND [ARGS...]` starts the agent, runs one prompt
// turn, grants the permission the agent asks for (its allow_once option),
// prints what happens, and exits 0 once the turn has ended (v1: the response
// to `session/prompt`; v2: an idle `state_update`). It exits 1 if the agent
// exits first or the turn has not ended after 20 s.

import { spawn } from "node:child_process";
import { argv, cwd, exit, stderr, stdout } from "node:process";

import { Connection, isKnown, ndjson, v1, v2 } from "../src/index.js";

const [flag, protocol, ...command] = argv.slice(2);
const program = command[0];
if (flag !== "--protocol" || (protocol !== "v1" && protocol !== "v2") || program === undefined) {
  stderr.write("usage: node client.js --protocol v1|v2 AGENT_COMMAND [ARGS...]\n");
  exit(2);
}
const print = (line: string): void => void stdout.write(`${line}\n`);
const fail = (message: string): never => {
  stderr.write(`client: ${message}\n`);
  exit(1);
};

const agent = spawn(program, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
agent.on("error", (e) => fail(`cannot start the agent ${program}: ${e.message}`));
agent.on("exit", (code) => fail(`the agent exited before the turn ended (code ${code})`));
setTimeout(() => fail("no end of the turn after 20 s"), 20_000).unref();
const transport = ndjson(agent.stdout, agent.stdin);
const info = { name: "ts-bindings-client", version: "0.1.0" };

/** The option to grant: the allow_once one. */
function grant(about: string, options: readonly { optionId: string; name: string; kind: string }[]) {
  const allow = options.find((o) => o.kind === "allow_once");
  print(`permission: ${about} -> ${allow?.name ?? "cancelled"}`);
  return allow === undefined
    ? { outcome: "cancelled" as const }
    : { outcome: "selected" as const, optionId: allow.optionId };
}

function printUpdate(u: v1.SessionUpdate | v2.SessionUpdate): void {
  if (!isKnown(u)) return print(`update \`${u.sessionUpdate}\``);
  switch (u.sessionUpdate) {
    case "agent_message_chunk":
      return print(u.content.type === "text" ? `agent: ${u.content.text}` : `agent sent a ${u.content.type} block`);
    case "tool_call":
    case "tool_call_update":
      return print(`tool call ${u.toolCallId}: ${u.title ?? ""} [${u.status ?? ""}]`);
    default:
      return print(`update \`${u.sessionUpdate}\``);
  }
}

async function turnV1(): Promise<void> {
  const client = new Connection(v1.codec, "client", transport);
  client.onRequest("session/request_permission", (p) => ({ outcome: grant(p.toolCall.toolCallId, p.options) }));
  client.onNotification("session/update", (p) => printUpdate(p.update));
  const init = await client.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: info });
  print(`initialized: ${init.agentInfo?.name ?? "an agent"} (protocol ${init.protocolVersion})`);
  const { sessionId } = await client.request("session/new", { cwd: cwd(), mcpServers: [] });
  print(`session: ${sessionId}`);
  const prompt = [{ type: "text" as const, text: "What does README.md say?" }];
  const { stopReason } = await client.request("session/prompt", { sessionId, prompt });
  print(`turn ended: ${stopReason}`);
}

async function turnV2(): Promise<void> {
  const client = new Connection(v2.codec, "client", transport);
  let ended: (stopReason: string) => void = () => {};
  const end = new Promise<string>((resolve) => (ended = resolve));
  client.onRequest("session/request_permission", (p) => ({ outcome: grant(p.title, p.options) }));
  client.onNotification("session/update", ({ update }) => {
    if (isKnown(update) && update.sessionUpdate === "state_update" && update.state === "idle") {
      ended(update.stopReason ?? "without a stop reason");
    } else printUpdate(update);
  });
  const init = await client.request("initialize", { protocolVersion: 2, capabilities: {}, info });
  print(`initialized: ${init.info.name} (protocol ${init.protocolVersion})`);
  const { sessionId } = await client.request("session/new", { cwd: cwd() });
  print(`session: ${sessionId}`);
  const prompt = [{ type: "text" as const, text: "What does README.md say?" }];
  print(`prompt acknowledged as ${(await client.request("session/prompt", { sessionId, prompt })).messageId}`);
  print(`turn ended: ${await end}`);
}

await (protocol === "v1" ? turnV1() : turnV2()).catch((e: unknown) => fail(`the turn did not end: ${String(e)}`));
agent.removeAllListeners("exit");
agent.stdin.end();
exit(0);
