// Patches that apply (ACP v2): `applyPatch` folds one upsert into its stored
// state by the rules the generated `upserts` table gives each property, and
// `SessionReducer` folds a `session/update` stream into the state of a
// session: the same state, written as the same JSON, as the Rust crate's
// `SessionReducer`.

import { unknownArm, type JsonObject, type JsonValue } from "./runtime.js";
import type { UpsertShape, Upserts } from "./shape.js";

/** A stored entity: every property of its state present (`null` when unset). */
export type State = JsonObject;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The state a first patch creates: each property from the patch, or its
 * default (`null`, `[]`, the reset value) where the patch omits it.
 */
export function fromPatch(u: UpsertShape, patch: JsonObject): State {
  const state: State = {};
  for (const f of u.fields) {
    const r = f.rule;
    state[f.name] = typeof r === "object" ? r.reset : r === "list" ? [] : null;
  }
  return applyPatch(u, state, patch);
}

/**
 * Applies `patch` to `state` (in place, and returned): an omitted property
 * keeps its value, `null` clears it (a list to `[]`, a reset property to its
 * default, anything else to `null`), a value sets it; `_meta` is merged one
 * level deep, a member `null` removing that member.
 */
export function applyPatch(u: UpsertShape, state: State, patch: JsonObject): State {
  for (const f of u.fields) {
    const v = patch[f.name];
    if (v === undefined) continue;
    const r = f.rule;
    if (typeof r === "object") state[f.name] = v === null ? r.reset : v;
    else if (r === "list") state[f.name] = v === null ? [] : v;
    else if (r === "by_key") state[f.name] = mergeByKey(state[f.name] ?? null, v);
    else if (r !== "key" || state[f.name] === null) state[f.name] = v;
  }
  return state;
}

/** `_meta` merged by key: `null` clears it, an object sets or (with `null`) removes each member it names. */
export function mergeByKey(stored: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return null;
  const out: JsonObject = isObject(stored) ? { ...stored } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Terminal bytes appended: both base64 decoded and joined, else the texts joined. */
function appendBase64(a: string, b: string): string {
  if (!BASE64.test(a) || !BASE64.test(b)) return a + b;
  return btoa(atob(a) + atob(b));
}

type Kind = "user_message" | "agent_message" | "agent_thought";

/** The value of `key` in `map`, made by `make` and stored first when there is none. */
function entry<V>(map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/**
 * The state of one v2 session, built from its `session/update` stream:
 * tool calls, messages, plans, terminals, compactions by id (in first-seen
 * order), the session's info and usage. `toJSON()` writes it as the Rust
 * `SessionReducer` serializes.
 */
export class SessionReducer {
  toolCalls = new Map<string, State>();
  /** Each message's state, and which kind of message it is (written as `kind`). */
  messages = new Map<string, { kind: Kind; state: State }>();
  plans = new Map<string, JsonValue>();
  terminals = new Map<string, State>();
  sessionInfo: State | null = null;
  usage: State | null = null;
  compactions = new Map<string, State>();

  /** `upserts`: the table of the schema the updates were decoded with (`v2.upserts`). */
  constructor(readonly upserts: Upserts) {}

  private rule(name: string): UpsertShape {
    const u = this.upserts[name];
    if (u === undefined) throw new Error(`no upsert \`${name}\``);
    return u;
  }

  private upsert(map: Map<string, State>, name: string, patch: JsonObject): void {
    const u = this.rule(name);
    const key = String(patch[u.key ?? ""]);
    const stored = map.get(key);
    if (stored === undefined) map.set(key, fromPatch(u, patch));
    else applyPatch(u, stored, patch);
  }

  /** A whole message: patches the stored one of the same kind, else replaces it. */
  private message(kind: Kind, name: string, patch: JsonObject): void {
    const key = String(patch.messageId);
    const stored = this.messages.get(key);
    if (stored !== undefined && stored.kind === kind) applyPatch(this.rule(name), stored.state, patch);
    else this.messages.set(key, { kind, state: fromPatch(this.rule(name), patch) });
  }

  /** A chunk: appended to its message, which it creates (of its kind) if need be. */
  private chunk(kind: Kind, name: string, c: JsonObject): void {
    const key = String(c.messageId);
    const { state } = entry(this.messages, key, () => ({ kind, state: fromPatch(this.rule(name), { messageId: key }) }));
    (state.content as JsonValue[]).push(c.content as JsonValue);
  }

  /** Applies one decoded update (a `v2.SessionUpdate`). Kinds the reducer does not track leave it unchanged. */
  apply(update: unknown): void {
    // An arm the schema does not know (`UnknownArm`) is not applied, whatever its tag.
    if (!isObject(update) || unknownArm in update) return;
    const u = update;
    switch (u.sessionUpdate) {
      case "tool_call_update":
        return this.upsert(this.toolCalls, "ToolCallUpdate", u);
      case "tool_call_content_chunk": {
        const id = String(u.toolCallId);
        const call = entry(this.toolCalls, id, () => fromPatch(this.rule("ToolCallUpdate"), { toolCallId: id }));
        (call.content as JsonValue[]).push(u.content as JsonValue);
        return;
      }
      case "user_message":
        return this.message("user_message", "UserMessage", u);
      case "agent_message":
        return this.message("agent_message", "AgentMessage", u);
      case "agent_thought":
        return this.message("agent_thought", "AgentThought", u);
      case "user_message_chunk":
        return this.chunk("user_message", "UserMessage", u);
      case "agent_message_chunk":
        return this.chunk("agent_message", "AgentMessage", u);
      case "agent_thought_chunk":
        return this.chunk("agent_thought", "AgentThought", u);
      case "terminal_update":
        return this.upsert(this.terminals, "TerminalUpdate", u);
      case "terminal_output_chunk": {
        const id = String(u.terminalId);
        const t = entry(this.terminals, id, () => fromPatch(this.rule("TerminalUpdate"), { terminalId: id }));
        const data = String(u.data);
        if (isObject(t.output)) t.output = { ...t.output, data: appendBase64(String(t.output.data), data) };
        else t.output = { data };
        return;
      }
      case "plan_update": {
        const plan = u.plan;
        if (isObject(plan) && typeof plan.planId === "string") this.plans.set(plan.planId, plan);
        return;
      }
      case "plan_removed":
        this.plans.delete(String(u.planId));
        return;
      case "session_info_update":
        this.sessionInfo = this.one(this.sessionInfo, "SessionInfoUpdate", u);
        return;
      case "usage_update":
        this.usage = this.one(this.usage, "UsageUpdate", u);
        return;
      case "compaction_update":
        return this.upsert(this.compactions, "CompactionUpdate", u);
      case "compaction_summary_chunk": {
        // A chunk for an unknown compaction cannot create it: its required `status` is not known yet.
        const c = this.compactions.get(String(u.compactionId));
        if (c !== undefined) (c.summary as JsonValue[]).push(u.content as JsonValue);
        return;
      }
    }
  }

  private one(stored: State | null, name: string, patch: JsonObject): State {
    const u = this.rule(name);
    return stored === null ? fromPatch(u, patch) : applyPatch(u, stored, patch);
  }

  /** The state as the Rust reducer writes it: entities in first-seen order, every property present. */
  toJSON(): JsonObject {
    const messages: JsonObject = {};
    for (const [k, m] of this.messages) messages[k] = { ...m.state, kind: m.kind };
    return {
      toolCalls: Object.fromEntries(this.toolCalls),
      messages,
      plans: Object.fromEntries(this.plans),
      terminals: Object.fromEntries(this.terminals),
      sessionInfo: this.sessionInfo,
      usage: this.usage,
      compactions: Object.fromEntries(this.compactions),
    };
  }
}
