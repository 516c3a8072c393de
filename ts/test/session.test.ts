// Patches that apply, and the session reducer.

import assert from "node:assert/strict";
import { test } from "node:test";

import { SessionReducer, applyPatch, fromPatch, mergeByKey, v2 } from "../src/index.js";

const toolCall = v2.upserts.ToolCallUpdate;

test("a first patch starts from the defaults; omitted keeps, null clears or resets, a value sets", () => {
  const state = fromPatch(toolCall, { toolCallId: "c1", title: "Read", kind: "read" });
  assert.deepEqual(state, {
    toolCallId: "c1",
    name: null,
    title: "Read",
    kind: "read",
    status: "pending",
    content: [],
    locations: [],
    rawInput: null,
    rawOutput: null,
    capabilities: null,
    _meta: null,
  });
  applyPatch(toolCall, state, {
    toolCallId: "c1",
    title: null,
    kind: null,
    status: "completed",
    content: [{ type: "content" }],
  });
  assert.equal(state.title, null, "null unsets an optional field");
  assert.equal(state.kind, "other", "null resets `kind` to its default");
  assert.equal(state.status, "completed");
  applyPatch(toolCall, state, { toolCallId: "c1", content: null });
  assert.deepEqual(state.content, [], "null clears a list");
});

test("_meta is merged by key, one level deep", () => {
  assert.deepEqual(mergeByKey({ a: 1, b: { x: 1 } }, { b: { y: 2 }, c: 3 }), { a: 1, b: { y: 2 }, c: 3 });
  assert.deepEqual(mergeByKey({ a: 1, b: 2 }, { a: null }), { b: 2 }, "a member null removes it");
  assert.equal(mergeByKey({ a: 1 }, null), null, "null clears");
});

test("the reducer folds a stream of decoded updates", () => {
  const r = new SessionReducer(v2.reducer);
  const lines = [
    { sessionUpdate: "tool_call_update", toolCallId: "c1", title: "Build", status: "pending" },
    {
      sessionUpdate: "tool_call_content_chunk",
      toolCallId: "c1",
      content: { type: "content", content: { type: "text", text: "ok" } },
    },
    { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "Hi" } },
    { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: " there" } },
    { sessionUpdate: "_acme_unknown", toolCallId: "c1" },
  ];
  for (const l of lines) {
    r.apply(v2.codec.decode("SessionUpdate", JSON.stringify(l)).value);
  }
  // Typed as the generated state: `v2.ReducerState`, each entity its upsert's state type.
  const state: v2.ReducerState = r.toJSON();
  const call: v2.ToolCall | undefined = state.toolCalls.c1;
  assert.equal(call?.content.length, 1);
  assert.equal(call?.title, "Build");
  assert.equal(call?.kind, "other", "a new tool call starts as `other`");
  const message = state.messages.m1;
  assert.equal(message?.content.length, 2);
  assert.equal(message?.kind, "agent_message");
});

test("an update without the key of its entity is refused, and nothing is stored", () => {
  const r = new SessionReducer(v2.reducer);
  // The types refuse these (`apply` takes a `v2.SessionUpdate`); JavaScript callers and casts reach the check.
  const before = JSON.stringify(r.toJSON());
  assert.throws(
    () => r.apply({ sessionUpdate: "tool_call_update", title: "x" } as unknown as v2.SessionUpdate),
    (e: unknown) =>
      e instanceof TypeError &&
      e.message.includes("`tool_call_update` update names its entity by the string `toolCallId`: it is missing"),
  );
  assert.throws(
    () => r.apply({ sessionUpdate: "tool_call_update", toolCallId: 7 } as unknown as v2.SessionUpdate),
    /it is 7/,
  );
  assert.equal(JSON.stringify(r.toJSON()), before);
  r.apply({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "x" });
  assert.notEqual(JSON.stringify(r.toJSON()), before);
});

test("compaction writes the stream the crate writes, and it folds to the same state", async () => {
  const { readFile } = await import("node:fs/promises");
  const file = new URL("../../../tests/reducer/compaction.json", import.meta.url);
  const { cases } = JSON.parse(await readFile(file, "utf8")) as {
    cases: { seed: number; stream: unknown[]; state: unknown; compacted: unknown[] }[];
  };
  assert.ok(cases.length >= 40, `only ${cases.length} cases`);
  const fold = (updates: unknown[]): SessionReducer<v2.SessionUpdate, v2.ReducerState> => {
    const r = new SessionReducer(v2.reducer);
    for (const u of updates) r.apply(v2.codec.decode("SessionUpdate", JSON.stringify(u)).value);
    return r;
  };
  for (const c of cases) {
    const r = fold(c.stream);
    assert.deepEqual(JSON.parse(JSON.stringify(r)), c.state, `seed ${c.seed}: the state`);
    const compacted = r.compact();
    assert.deepEqual(
      compacted.map((u) => JSON.stringify(u)),
      c.compacted.map((u) => JSON.stringify(u)),
      `seed ${c.seed}: the compacted stream, byte for byte`,
    );
    assert.deepEqual(JSON.parse(JSON.stringify(fold(compacted))), c.state, `seed ${c.seed}: the refolded state`);
  }
});
