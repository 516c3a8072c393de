// Patches that apply (ACP v2): `applyPatch` folds one upsert into its stored
// state by the rules the generated `upserts` table gives each property, and
// `SessionReducer` folds a `session/update` stream into the state of a
// session by the rules of the generated `reducer` table (the configuration's
// `reducer` section, which the Rust crate's generated `SessionReducer` is
// written from too): the same state, written as the same JSON.

import { unknownArm, type JsonObject, type JsonValue } from "./runtime.js";
import type { CollectionShape, ReducerShape, UpsertShape } from "./shape.js";

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
    if (v === null) Reflect.deleteProperty(out, k);
    else out[k] = v;
  }
  return out;
}

/**
 * The patch that creates `state` from nothing (`fromPatch` of it gives the same
 * state): the key, and every other property not at its default (`null`, `[]`,
 * the reset value), in the upsert's order.
 */
export function creatingPatch(u: UpsertShape, state: State): JsonObject {
  const patch: JsonObject = {};
  for (const f of u.fields) {
    const v = state[f.name];
    const r = f.rule;
    if (v === undefined || v === null) continue;
    if (typeof r === "object" && JSON.stringify(v) === JSON.stringify(r.reset)) continue;
    if (r === "list" && Array.isArray(v) && v.length === 0) continue;
    patch[f.name] = v;
  }
  return patch;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Terminal bytes appended: both base64 decoded and joined, else the texts joined. */
function appendBase64(a: string, b: string): string {
  if (!BASE64.test(a) || !BASE64.test(b)) return a + b;
  return btoa(atob(a) + atob(b));
}

/** One stored entity: its state, and its kind in a collection of kinds. */
interface Entry {
  kind?: string | undefined;
  state: JsonValue;
}

/**
 * The key an update names its entity by (`toolCallId`, `messageId`): a
 * string, or the update is refused (a `TypeError`) before anything is
 * stored; the crate's typed updates cannot lack it.
 */
function keyOf(update: JsonObject, name: string, tag: string): string {
  const k = update[name];
  if (typeof k === "string") return k;
  const what = k === undefined ? "it is missing" : `it is ${JSON.stringify(k)}`;
  throw new TypeError(`a \`${String(update[tag])}\` update names its entity by the string \`${name}\`: ${what}`);
}

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
 * The state of one session, built from its `session/update` stream by the
 * rules of a generated `reducer` table (`v2.reducer`): each collection by
 * key in first-seen order, or one state. `toJSON()` writes it as the Rust
 * `SessionReducer` serializes.
 */
export class SessionReducer<U = unknown, S = JsonObject> {
  private readonly keyed = new Map<string, Map<string, Entry>>();
  private readonly single = new Map<string, State | null>();

  constructor(readonly shape: ReducerShape<U, S>) {
    for (const c of shape.collections) {
      if ("one" in c) this.single.set(c.name, null);
      else this.keyed.set(c.name, new Map());
    }
  }

  private upsert(name: string): UpsertShape {
    const u = this.shape.upserts[name];
    if (u === undefined) throw new Error(`no upsert \`${name}\``);
    return u;
  }

  private collection(name: string): CollectionShape {
    const c = this.shape.collections.find((c) => c.name === name);
    if (c === undefined) throw new Error(`no collection \`${name}\``);
    return c;
  }

  /** The upsert whose states `c` holds (of `kind`, in a collection of kinds). */
  private upsertOf(c: CollectionShape, kind: string | undefined): UpsertShape {
    if ("upsert" in c) return this.upsert(c.upsert);
    if ("one" in c) return this.upsert(c.one);
    if ("kinds" in c && kind !== undefined && c.kinds[kind] !== undefined) return this.upsert(c.kinds[kind]);
    throw new Error(`\`${c.name}\` holds no upsert of kind \`${String(kind)}\``);
  }

  /** The entity of `key`, created from the key alone when `create`. */
  private entity(
    map: Map<string, Entry>,
    u: UpsertShape,
    kind: string | undefined,
    key: string,
    create: boolean,
  ): State | undefined {
    const found = create
      ? entry(map, key, () => ({ kind, state: fromPatch(u, { [u.key ?? ""]: key }) }))
      : map.get(key);
    return found !== undefined && isObject(found.state) ? found.state : undefined;
  }

  /**
   * Applies one decoded update (of the version's update union: `v2.SessionUpdate`
   * for `v2.reducer`). Updates the table has no rule for, and arms this version
   * does not know, leave the state unchanged; an update without the string key
   * of its entity is a `TypeError`, and nothing is stored.
   */
  apply(update: U): void {
    // An arm the schema does not know (`UnknownArm`) is not applied, whatever its tag.
    if (!isObject(update) || unknownArm in update) return;
    const rule = this.shape.updates[String(update[this.shape.tag])];
    if (rule === undefined) return;
    const c = this.collection(rule.into);
    const map = this.keyed.get(c.name);
    switch (rule.rule) {
      case "upsert": {
        const u = this.upsertOf(c, rule.kind);
        if (map === undefined) {
          const stored = this.single.get(c.name) ?? null;
          this.single.set(c.name, stored === null ? fromPatch(u, update) : applyPatch(u, stored, update));
          return;
        }
        const key = keyOf(update, u.key ?? "", this.shape.tag);
        const stored = map.get(key);
        if (stored !== undefined && stored.kind === rule.kind && isObject(stored.state))
          applyPatch(u, stored.state, update);
        else map.set(key, { kind: rule.kind, state: fromPatch(u, update) });
        return;
      }
      case "append": {
        if (map === undefined) return;
        const u = this.upsertOf(c, rule.kind);
        const state = this.entity(map, u, rule.kind, keyOf(update, rule.key, this.shape.tag), rule.create);
        if (state !== undefined) (state[rule.to] as JsonValue[]).push(update[rule.from] as JsonValue);
        return;
      }
      case "append_base64": {
        if (map === undefined) return;
        const key = keyOf(update, rule.key, this.shape.tag);
        const state = this.entity(map, this.upsertOf(c, undefined), undefined, key, rule.create);
        if (state === undefined) return;
        const [outer, inner] = rule.to;
        const data = String(update[rule.from]);
        const stored = state[outer];
        if (isObject(stored)) state[outer] = { ...stored, [inner]: appendBase64(String(stored[inner]), data) };
        else state[outer] = { [inner]: data };
        return;
      }
      case "put": {
        const value = update[rule.from];
        if (map !== undefined && "whole" in c && isObject(value) && typeof value[c.whole] === "string") {
          map.set(value[c.whole] as string, { state: value });
        }
        return;
      }
      case "remove":
        if (map !== undefined) map.delete(keyOf(update, rule.from, this.shape.tag));
        return;
    }
  }

  /**
   * The shortest update stream that rebuilds this state, as the Rust reducer's
   * `compact` writes it: applied in order to a new reducer, it gives the same
   * state. One update per entity, collection by collection in first-seen order
   * (a message whole instead of its chunks, one upsert per tool call with every
   * property not at its default, each plan as its latest whole update); what the
   * state does not hold (updates the table has no rule for, unknown members, the
   * order between collections) is not written.
   */
  compact(): U[] {
    const rebuild = this.shape.rebuild;
    if (rebuild === undefined) throw new Error("this reducer's table says no update rebuilds some collection");
    const out: JsonObject[] = [];
    const tag = this.shape.tag;
    for (const c of this.shape.collections) {
      const by = rebuild[c.name];
      const tagOf = (kind: string | undefined): string => {
        const t = typeof by === "string" ? by : kind !== undefined ? by?.[kind] : undefined;
        if (t === undefined) throw new Error(`no update rebuilds \`${c.name}\` (kind \`${String(kind)}\`)`);
        return t;
      };
      if ("one" in c) {
        const s = this.single.get(c.name) ?? null;
        if (s !== null) out.push({ [tag]: tagOf(undefined), ...creatingPatch(this.upsert(c.one), s) });
        continue;
      }
      for (const e of this.keyed.get(c.name)?.values() ?? []) {
        const t = tagOf(e.kind);
        if ("whole" in c) {
          const rule = this.shape.updates[t];
          if (rule?.rule !== "put") throw new Error(`\`${t}\` does not put a whole \`${c.name}\` value`);
          out.push({ [tag]: t, [rule.from]: e.state });
        } else if (isObject(e.state)) {
          out.push({ [tag]: t, ...creatingPatch(this.upsertOf(c, e.kind), e.state) });
        }
      }
    }
    return out as U[];
  }

  /**
   * The state as the Rust reducer writes it: entities in first-seen order, every property
   * present (`v2.ReducerState` for `v2.reducer`).
   */
  toJSON(): S {
    return this.state() as S;
  }

  private state(): JsonObject {
    const out: JsonObject = {};
    for (const c of this.shape.collections) {
      const map = this.keyed.get(c.name);
      if (map === undefined) {
        out[c.name] = this.single.get(c.name) ?? null;
        continue;
      }
      const entities: JsonObject = {};
      for (const [k, e] of map) {
        entities[k] = e.kind !== undefined && isObject(e.state) ? { ...e.state, kind: e.kind } : e.state;
      }
      out[c.name] = entities;
    }
    return out;
  }
}
