// An ACP agent on the TypeScript bindings: `node dist/examples/agent.js
// --protocol v1|v2` speaks JSON-RPC on stdin/stdout, one message a line.
//
// A prompt is answered with a message chunk and a tool call that needs the
// client's permission; once the client answers, the tool call completes (or
// fails if rejected), another chunk follows, and the turn ends with stop
// reason `end_turn`: in v1 as the response to `session/prompt`, in v2 as an
// idle `state_update` (v2 acknowledges the prompt at once). Every message is
// decoded with `decodeMessage` (typed by method and direction) and written
// with `encodeMessage`; only protocol messages go to stdout.

import { createInterface } from "node:readline";
import { argv, exit, stderr, stdin, stdout } from "node:process";

import { idKey, isKnown, v1, v2, type JsonValue } from "../src/index.js";

const [flag, protocol] = argv.slice(2);
if (flag !== "--protocol" || (protocol !== "v1" && protocol !== "v2")) {
  stderr.write("usage: node agent.js --protocol v1|v2\n");
  exit(2);
}

/** The messages this agent writes, and the answers to its own requests. */
class Peer<M> {
  private next = 0;
  private waiting = new Map<string, { method: string; resolve: (m: M) => void }>();

  constructor(readonly encode: (m: M) => string) {}

  send(m: M): void {
    stdout.write(this.encode(m) + "\n");
  }

  /** Sends a request built by `make` (given its id) and waits for the response or error. */
  request(method: string, make: (id: number) => M): Promise<M> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(idKey(id), { method, resolve });
      this.send(make(id));
    });
  }

  /** The method of our request that a response with this id answers. */
  answers = (id: JsonValue): string | undefined => this.waiting.get(idKey(id))?.method;

  /**
   * What every message but a request needs: a response or an error goes to
   * the request waiting for it, a cancellation is noted. `true` for a
   * request, which the caller answers.
   */
  route(message: M): boolean {
    const m = message as { kind: string; id?: JsonValue; method?: string; params?: { sessionId?: string } };
    if ((m.kind === "response" || m.kind === "error") && m.id !== undefined && m.id !== null) {
      const w = this.waiting.get(idKey(m.id));
      this.waiting.delete(idKey(m.id));
      w?.resolve(message);
    } else if (m.kind === "notification" && m.method === "session/cancel") {
      stderr.write(`agent: cancel for ${m.params?.sessionId} (nothing to cancel)\n`);
    }
    return m.kind === "request";
  }

  /** Reads lines, decoding each with `decode` and handing it to `handle`; a request that does not decode gets an error. */
  serve(decode: (line: string) => M, handle: (m: M) => void): void {
    const lines = createInterface({ input: stdin });
    lines.on("line", (line) => {
      if (line.trim() === "") return;
      let m: M;
      try {
        m = decode(line);
      } catch (e) {
        const err = errorFor(line, e);
        if (err !== undefined) this.send({ kind: "error", id: err.id, error: { code: err.code, message: err.message } } as M);
        return;
      }
      if (this.route(m)) handle(m);
    });
    lines.on("close", () => exit(0));
  }
}

const info = { name: "ts-bindings-agent", version: "0.1.0" };
const options = [
  { optionId: "allow", name: "Allow", kind: "allow_once" as const },
  { optionId: "reject", name: "Reject", kind: "reject_once" as const },
];
const intro = "Let me look at README.md.";
const outro = (allowed: boolean) =>
  allowed ? 'README.md starts with "# ACP bindings toolkit".' : "I was not allowed to read README.md.";

/** The JSON-RPC error for a line that did not decode (requests only; never a response). */
function errorFor(line: string, e: unknown): { id: string | number | null; code: number; message: string } | undefined {
  let id: string | number | null = null;
  try {
    const o = JSON.parse(line) as { id?: string | number | null; method?: unknown };
    if (o.method === undefined) return undefined;
    id = o.id ?? null;
    if (o.id === undefined) return undefined;
  } catch {
    return { id: null, code: -32700, message: String(e) };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { id, code: message.startsWith("unknown request method") ? -32601 : -32602, message };
}

function agentV1(): void {
  type M = v1.Message;
  const peer = new Peer<M>((m) => v1.codec.encodeMessage(m));
  let sessions = 0;
  const update = (sessionId: string, update: v1.SessionUpdate) =>
    peer.send({ kind: "notification", method: "session/update", params: { sessionId, update } });

  async function turn(id: v1.RequestId, sessionId: string): Promise<void> {
    update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: intro } });
    const call = { toolCallId: "call-1", title: "Read README.md", kind: "read", status: "pending" } as const;
    update(sessionId, { sessionUpdate: "tool_call", ...call });
    const answer = await peer.request("session/request_permission", (rid) => ({
      kind: "request",
      id: rid,
      method: "session/request_permission",
      params: { sessionId, toolCall: { toolCallId: "call-1" }, options },
    }));
    const outcome =
      answer.kind === "response" && answer.method === "session/request_permission" ? answer.result.outcome : undefined;
    const allowed = outcome?.outcome === "selected" && outcome.optionId === "allow";
    update(sessionId, { sessionUpdate: "tool_call_update", toolCallId: "call-1", status: allowed ? "completed" : "failed" });
    update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: outro(allowed) } });
    peer.send({ kind: "response", id, method: "session/prompt", result: { stopReason: "end_turn" } });
  }

  peer.serve(
    (line) => v1.codec.decodeMessage(line, peer.answers).value,
    (m) => {
      if (m.kind !== "request") return;
      switch (m.method) {
        case "initialize":
          return peer.send({
            kind: "response",
            id: m.id,
            method: m.method,
            result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: info },
          });
        case "session/new":
          return peer.send({ kind: "response", id: m.id, method: m.method, result: { sessionId: `session-${++sessions}` } });
        case "session/prompt":
          void turn(m.id, m.params.sessionId);
          return;
        default:
          return peer.send({ kind: "error", id: m.id, error: { code: -32601, message: `\`${m.method}\` is not supported` } });
      }
    },
  );
}

function agentV2(): void {
  type M = v2.Message;
  const peer = new Peer<M>((m) => v2.codec.encodeMessage(m));
  let sessions = 0;
  const update = (sessionId: string, update: v2.SessionUpdate) =>
    peer.send({ kind: "notification", method: "session/update", params: { sessionId, update } });

  async function turn(sessionId: string): Promise<void> {
    const chunk = (text: string): v2.SessionUpdate => ({
      sessionUpdate: "agent_message_chunk",
      messageId: "reply-1",
      content: { type: "text", text },
    });
    update(sessionId, chunk(intro));
    update(sessionId, {
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      title: "Read README.md",
      kind: "read",
      status: "pending",
    });
    const answer = await peer.request("session/request_permission", (rid) => ({
      kind: "request",
      id: rid,
      method: "session/request_permission",
      params: {
        sessionId,
        title: "Read README.md",
        subject: { type: "tool_call", toolCall: { toolCallId: "call-1" } },
        options,
      },
    }));
    const outcome =
      answer.kind === "response" && answer.method === "session/request_permission" ? answer.result.outcome : undefined;
    // An outcome this version does not know is not an approval.
    const allowed = outcome !== undefined && isKnown(outcome) && outcome.outcome === "selected" && outcome.optionId === "allow";
    update(sessionId, { sessionUpdate: "tool_call_update", toolCallId: "call-1", status: allowed ? "completed" : "failed" });
    update(sessionId, chunk(outro(allowed)));
    update(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  }

  peer.serve(
    (line) => v2.codec.decodeMessage(line, peer.answers).value,
    (m) => {
      if (m.kind !== "request") return;
      switch (m.method) {
        case "initialize":
          return peer.send({
            kind: "response",
            id: m.id,
            method: m.method,
            result: { protocolVersion: 2, capabilities: {}, info },
          });
        case "session/new":
          return peer.send({ kind: "response", id: m.id, method: m.method, result: { sessionId: `session-${++sessions}` } });
        case "session/prompt":
          // Acknowledged at once; the turn goes on in notifications and ends with an idle state.
          peer.send({ kind: "response", id: m.id, method: m.method, result: { messageId: "user-1" } });
          turn(m.params.sessionId).catch((e: unknown) => stderr.write(`agent: the turn failed: ${String(e)}\n`));
          return;
        default:
          return peer.send({ kind: "error", id: m.id, error: { code: -32601, message: `\`${m.method}\` is not supported` } });
      }
    },
  );
}

if (protocol === "v1") agentV1();
else agentV2();
