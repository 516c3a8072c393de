// Type-level tests: what the generated types let a user write, and refuse.
// Compiled by `npm run check` (tsc --strict); nothing here runs.
import { Connection, SessionReducer, extensionArm, isKnown, v2, type Extensible, type Patch } from "../src/index.js";
import { v2 as unstable } from "../src/unstable.js";

// An open enum completes its known values and takes any other string.
export const kind: v2.ToolKind = "read";
export const vendorKind: v2.ToolKind = "_vendor_kind";
// A closed enum does not.
// @ts-expect-error not a value of `ElicitationSchemaType`
export const schemaType: v2.ElicitationSchemaType = "array";

// A tagged union narrows on its discriminator once its unknown arm is set aside;
// the unknown arm keeps its discriminator (and every other member).
export function describe(update: v2.SessionUpdate): string {
  if (!isKnown(update)) {
    return `unknown update ${update.sessionUpdate}`;
  }
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      return `chunk of ${update.messageId}`;
    case "tool_call_update":
      return `tool call ${update.toolCallId}`;
    default:
      return update.sessionUpdate;
  }
}

// An upsert's patch field has three states: omitted keeps, `null` clears, a value sets.
export const keep: v2.ToolCallUpdate = { toolCallId: "t1" };
export const clear: v2.ToolCallUpdate = { toolCallId: "t1", title: null };
export const set: v2.ToolCallUpdate = { toolCallId: "t1", title: "Reading", kind: "read" };
export const cleared: Patch<string> = null;
// A required property stays required.
// @ts-expect-error `toolCallId` is missing
export const missing: v2.ToolCallUpdate = { title: "x" };

// A misspelled member is an error when a value is built and when a property is read.
// @ts-expect-error `configOptons` is not a member of `NewSessionResponse`
export const typo: v2.NewSessionResponse = { sessionId: "s", configOptons: [] };
export function title(info: v2.Implementation): string | null | undefined {
  // @ts-expect-error `titel` is not a member of `Implementation`
  void info.titel;
  return info.title;
}
// Members the schema does not name stay out of the declared shape; `Extensible` widens a type
// to write or read them (a decoded value keeps them and is written back with them).
export const extended: v2.ContentChunk & Extensible = {
  messageId: "m1",
  content: { type: "text", text: "hi" },
  "x-vendor": 1,
};
export const vendor: unknown = extended["x-vendor"];

// An arm or value this version does not define is written without internals; the tag of a known
// arm still narrows (and completes) once `isKnown` has set the unknown arm aside.
export const progress: v2.SessionUpdate = extensionArm("sessionUpdate", "_acme_progress", { percent: 40 });
export const vendorStatus: v2.ToolCallStatus = "_acme_paused";

// The unstable entry point has what only the unstable schema adds.
export type Subagent = unstable.SubagentUpdate;

// The reducer applies the version's updates: one without its entity's key does not type-check.
export function fold(reducer: SessionReducer<v2.SessionUpdate, v2.ReducerState>): void {
  reducer.apply({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
  // @ts-expect-error `toolCallId` is missing
  reducer.apply({ sessionUpdate: "tool_call_update", status: "completed" });
}
export const typedReducer: SessionReducer<v2.SessionUpdate, v2.ReducerState> = new SessionReducer(v2.reducer);
// The state is typed: a tool call's `title` is `string | null`, its `kind` a `ToolKind`.
export const titleOf = (id: string): string | null | undefined => typedReducer.toJSON().toolCalls[id]?.title;

// A connection's handlers and requests are typed by method and direction.
export function wire(agent: Connection<v2.Protocol, "agent">, client: Connection<v2.Protocol, "client">): void {
  agent.onRequest("session/new", (params) => ({ sessionId: params.cwd }));
  // @ts-expect-error an agent does not handle `session/request_permission`
  agent.onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }));
  // @ts-expect-error the result of `session/new` needs a `sessionId`
  agent.onRequest("session/new", () => ({}));
  agent.onRequest("_acme/ping", (params) => params ?? null);
  void client.request("session/new", { cwd: "/" }).then((r) => r.sessionId);
  // @ts-expect-error a client does not send `session/request_permission`
  void client.request("session/request_permission", {});
  // @ts-expect-error `cwd` is a string
  void client.request("session/new", { cwd: 7 });
  client.onNotification("session/update", (params) => void params.update.sessionUpdate);
}
