// The connection layer: an agent and a client in one process over `pair()`,
// and the newline-delimited JSON transport over Node streams.

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";

import { Connection, ErrorCode, RpcError, ndjson, pair, v1, v2, type MessageError } from "../src/index.js";

const info = { name: "test", version: "1.0.0" };

/** A v2 agent and client joined in memory; the agent answers initialize and session/new. */
function joined(options: { initialize?: boolean } = {}) {
  const [a, c] = pair();
  const invalid: MessageError[] = [];
  const agent = new Connection(v2.codec, "agent", a, { onInvalid: (e) => invalid.push(e) });
  const client = new Connection(v2.codec, "client", c);
  agent.onRequest("initialize", (params) => ({ protocolVersion: params.protocolVersion, info }));
  agent.onRequest("session/new", () => ({ sessionId: "s1" }));
  const ready =
    options.initialize === false
      ? Promise.resolve(undefined)
      : client.request("initialize", { protocolVersion: 2, info });
  return { agent, client, invalid, ready };
}

test("typed requests and handlers in both directions complete a turn", async () => {
  const { agent, client, ready } = joined();
  const updates: string[] = [];
  agent.onRequest("session/prompt", async (params) => {
    await agent.notify("session/update", {
      sessionId: params.sessionId,
      update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } },
    });
    const answer = await agent.request("session/request_permission", {
      sessionId: params.sessionId,
      title: "Read README.md",
      subject: { type: "tool_call", toolCall: { toolCallId: "call-1" } },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
    });
    assert.equal(answer.outcome.outcome, "selected");
    return { messageId: "u1" };
  });
  client.onNotification("session/update", (params) => {
    updates.push(params.update.sessionUpdate);
  });
  client.onRequest("session/request_permission", (params) => {
    assert.equal(params.title, "Read README.md");
    return { outcome: { outcome: "selected", optionId: "allow" } };
  });
  const init = await ready;
  assert.equal(init?.protocolVersion, 2);
  const { sessionId } = await client.request("session/new", { cwd: "/work" });
  const prompt = await client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read it" }] });
  assert.equal(prompt.messageId, "u1");
  assert.deepEqual(updates, ["agent_message_chunk"]);
  await client.close();
  await agent.closed;
});

test("a request before initialize is refused with -32600 and changes nothing", async () => {
  const { client } = joined({ initialize: false });
  await assert.rejects(client.request("session/new", { cwd: "/work" }), (e: unknown) => {
    assert.ok(e instanceof RpcError);
    assert.equal(e.code, ErrorCode.invalidRequest);
    assert.match(e.message, /`session\/new` before `initialize`/);
    return true;
  });
  await client.request("initialize", { protocolVersion: 2, info });
  assert.equal((await client.request("session/new", { cwd: "/work" })).sessionId, "s1");
});

test("a method without a handler is -32601, a handler's RpcError is its answer, any other error -32603", async () => {
  const { agent, client, ready } = joined();
  await ready;
  await assert.rejects(client.request("session/list", {}), { code: ErrorCode.methodNotFound });
  agent.onRequest("session/close", () => {
    throw RpcError.resourceNotFound("s9");
  });
  await assert.rejects(client.request("session/close", { sessionId: "s9" }), {
    code: ErrorCode.resourceNotFound,
    data: { uri: "s9" },
  });
  agent.onRequest("session/delete", () => {
    throw new TypeError("boom");
  });
  await assert.rejects(client.request("session/delete", { sessionId: "s9" }), {
    code: ErrorCode.internalError,
    message: "boom",
  });
});

test("extension methods pass in both directions", async () => {
  const { agent, client, ready } = joined();
  await ready;
  agent.onRequest("_acme/ping", (params) => ({ pong: params ?? null }));
  assert.deepEqual(await client.request("_acme/ping", [1, 2]), { pong: [1, 2] });
  const seen: unknown[] = [];
  client.onNotification("_acme/tick", (params) => void seen.push(params));
  await agent.notify("_acme/tick", { n: 1 });
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seen, [{ n: 1 }]);
});

test("cancelling a request sends $/cancel_request, aborts the handler, and the answer is -32800", async () => {
  const { agent, client, ready } = joined();
  await ready;
  let aborted: Promise<unknown> | undefined;
  agent.onRequest("session/list", (_params, cx) => {
    aborted = new Promise((resolve) => cx.signal.addEventListener("abort", () => resolve(cx.signal.reason)));
    return new Promise((_resolve, reject) => cx.signal.addEventListener("abort", () => reject(new Error("stopped"))));
  });
  const controller = new AbortController();
  const listing = client.request("session/list", {}, { signal: controller.signal });
  await new Promise((r) => setTimeout(r, 10));
  controller.abort();
  await assert.rejects(listing, { code: ErrorCode.requestCancelled });
  const reason = await aborted;
  assert.ok(reason instanceof RpcError && reason.code === ErrorCode.requestCancelled);
  // The connection goes on.
  assert.equal((await client.request("session/new", { cwd: "/w" })).sessionId, "s1");
});

test("a request of the other side's method is refused -32601 and reported", async () => {
  const [a, c] = pair();
  const invalid: MessageError[] = [];
  new Connection(v1.codec, "agent", a, { initialized: true, onInvalid: (e) => invalid.push(e) });
  const lines = c.lines()[Symbol.asyncIterator]();
  await c.write('{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}');
  const reply = JSON.parse((await lines.next()).value as string) as { id: number; error: { code: number } };
  assert.equal(reply.id, 1);
  assert.equal(reply.error.code, ErrorCode.methodNotFound);
  assert.equal(invalid[0]?.kind, "unknown_method");
});

test("ndjson: lines split across chunks and in one chunk, CRLF, multi-byte characters cut in two", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const t = ndjson(input, output);
  const text = JSON.stringify({ jsonrpc: "2.0", method: "_x", params: "é€😀" });
  const bytes = Buffer.from(`${text}\r\n\n${text}\n${text}`);
  for (let i = 0; i < bytes.length; i += 7) input.write(bytes.subarray(i, i + 7));
  input.end();
  const got: unknown[] = [];
  for await (const line of t.lines()) got.push(line);
  assert.deepEqual(got, [text, text, text]);
  await t.write("{}");
  assert.equal(output.read()?.toString(), "{}\n");
});

test("ndjson: a line over the limit is dropped and answered -32600 with the null id", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const invalid: MessageError[] = [];
  const agent = new Connection(v2.codec, "agent", ndjson(input, output, { maxMessageBytes: 100 }), {
    initialized: true,
    onInvalid: (e) => invalid.push(e),
  });
  agent.onRequest("session/new", () => ({ sessionId: "s1" }));
  input.write(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"${"x".repeat(100)}"}}\n`);
  input.write('{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w"}}\n');
  await new Promise((r) => setTimeout(r, 20));
  const lines = String(output.read())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } });
  assert.equal(lines[0]?.id, null);
  assert.equal(lines[0]?.error?.code, ErrorCode.invalidRequest);
  assert.equal(invalid[0]?.message, "a message of more than 100 bytes (the connection's limit)");
  assert.deepEqual(lines[1], { jsonrpc: "2.0", id: 2, result: { sessionId: "s1" } }, "the next line is read");
  input.end();
  await agent.closed;
});

test("a request whose line cannot be written rejects with the write's error", async () => {
  const [a] = pair();
  const client = new Connection(v2.codec, "client", {
    lines: () => a.lines(),
    write: () => Promise.reject(new Error("broken pipe")),
    close: () => a.close(),
  });
  await assert.rejects(client.request("initialize", { protocolVersion: 2, info }), /broken pipe/);
  assert.deepEqual(client.peer.pending(), []);
});
