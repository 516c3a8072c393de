// The decoder: the generated shapes (the plan's rules, `shape.ts`) applied to
// a JSON value, as the Rust crate applies them. A value of the wrong shape
// under a lenient rule is not guessed at: it is dropped or defaulted and
// reported with its JSON pointer. Members the schema does not name are kept,
// in their order, so a decoded value is written back as it came.

import { DecodeError, parse, pointerOf, read, define, type Duplicates, type Floats } from "./json.js";
import type { JsonObject, JsonValue } from "./runtime.js";
import { unknownArm } from "./runtime.js";
import type { ArmShape, FieldShape, IntName, Shape, Shapes, StructShape, Ty, UnionShape } from "./shape.js";
import * as m from "./generated/messages.js";
import { floatText, jsonWords, type Words } from "./words.js";

/** What a lenient rule did instead of failing. */
export interface Report {
  /** Where, as a JSON pointer into the decoded value. */
  pointer: string;
  /**
   * The rule: `default-on-error` (the member was dropped, or set to its
   * default), `skip-invalid-items` (the item was dropped), `patch-keeps` (a
   * patch field of the wrong shape was dropped: it keeps the stored value),
   * `default-on-null` (`null` became the default), `null-is-absent` (`null`
   * in an optional member that is not nullable was dropped).
   */
  rule: "default-on-error" | "skip-invalid-items" | "patch-keeps" | "default-on-null" | "null-is-absent";
  /** Why the value did not decode. */
  message: string;
}

/** A decoded value and what the lenient rules did on the way. */
export interface Decoded<T> {
  value: T;
  reports: Report[];
}

const DROP: unique symbol = Symbol("drop");
type Out = JsonValue | typeof DROP;

const INT: { [K in IntName]: [number, number] } = {
  i8: [-128, 127],
  i16: [-32768, 32767],
  i32: [-2147483648, 2147483647],
  // The nearest doubles (±2^63): a number the reader gives is a double already.
  i64: [-(2 ** 63), 2 ** 63],
  i128: [-Infinity, Infinity],
  u8: [0, 255],
  u16: [0, 65535],
  u32: [0, 4294967295],
  u64: [0, 2 ** 64],
  u128: [0, Infinity],
};

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The words of a value of the wrong type (`integer \`7\``, `an array`). */
export function unexpected(v: unknown, float: boolean, words: Words = jsonWords): string {
  return words.found(v, float);
}

/** serde's list of the values it expected (`one of \`a\`, \`b\``). */
function oneOf(values: readonly string[]): string {
  if (values.length === 0) return "there are no variants";
  if (values.length === 1) return `expected \`${values[0]}\``;
  if (values.length === 2) return `expected \`${values[0]}\` or \`${values[1]}\``;
  return `expected one of ${values.map((v) => `\`${v}\``).join(", ")}`;
}

class Ctx {
  path: string[] = [];
  reports: Report[] = [];
  constructor(
    readonly shapes: Shapes,
    readonly floats: Floats | undefined,
    /** The pointer of the decoded value in the text `floats` came from (`/params`). */
    readonly base: string,
    /** Where the text repeats a member name. */
    readonly duplicates: Duplicates | undefined,
    /** Encoding: no leniency, every recovery is an error. */
    readonly strict: boolean,
    readonly words: Words,
  ) {}

  pointer(): string {
    return pointerOf(this.path);
  }
  fail(message: string): never {
    throw new DecodeError(message, this.pointer());
  }
  invalid(v: unknown, expected: string): never {
    return this.fail(`invalid type: ${this.words.found(v, this.isFloat(v))}, expected ${expected}`);
  }
  isFloat(v: unknown): boolean {
    return typeof v === "number" && this.floats !== undefined && this.floats.has(this.base + this.pointer());
  }
  report(rule: Report["rule"], e: unknown, pointer = this.pointer()): void {
    if (!(e instanceof DecodeError)) throw e;
    if (this.strict) throw e;
    this.reports.push({ pointer, rule, message: e.message });
  }
  shape(name: string): Shape {
    const s = this.shapes[name];
    if (s === undefined) throw new Error(`no definition \`${name}\``);
    return s;
  }
  /** Runs `f` under path token `t`. */
  at<T>(t: string, f: () => T): T {
    this.path.push(t);
    try {
      return f();
    } finally {
      this.path.pop();
    }
  }
}

/** The error of an object that repeats a member name (as the crate's, at the repeated member). */
function noRepeat(c: Ctx, v: JsonValue): void {
  const r = c.duplicates?.repeated.get(v as object);
  if (r === undefined) return;
  c.path.push(r.key);
  const e = new DecodeError(m.duplicateField(r.key), c.pointer(), false, true);
  c.path.pop();
  throw e;
}

/** Rethrows what no lenient rule recovers from: anything but a decode error, and a repeated member name. */
function recoverable(e: unknown): DecodeError {
  if (!(e instanceof DecodeError) || e.fatal) throw e;
  return e;
}

/** A value kept as received: the error of the first object in it that repeats a member name. */
function kept(c: Ctx, v: JsonValue): JsonValue {
  if (c.duplicates === undefined || typeof v !== "object" || v === null || !c.duplicates.within.has(v)) return v;
  noRepeat(c, v);
  for (const [k, x] of Object.entries(v)) c.at(k, () => kept(c, x));
  return v;
}

function ty(c: Ctx, t: Ty, v: JsonValue, skipItems = false): JsonValue {
  switch (t) {
    case "string":
      return typeof v === "string" ? v : c.invalid(v, "a string");
    case "char":
      if (typeof v !== "string") return c.invalid(v, c.words.char);
      if ([...v].length !== 1) c.fail(`invalid value: string ${JSON.stringify(v)}, expected ${c.words.char}`);
      return v;
    case "number":
      return typeof v === "number" ? v : c.invalid(v, "a number");
    case "boolean":
      return typeof v === "boolean" ? v : c.invalid(v, "a boolean");
    case "null":
      // serde reads `null` as an `Option`: anything else is "Some" to it (the crate's words).
      return v === null ? v : c.fail(`invalid type: ${c.words.notNull(v, c.isFloat(v))}, expected null`);
    case "any":
      return kept(c, v);
    case "object":
      return isObject(v) ? kept(c, v) : c.invalid(v, c.words.object);
  }
  if ("int" in t) return int(c, v, t.int, c.words.int(t.int));
  if ("ref" in t) return def(c, t.ref, v);
  if ("list" in t) {
    // The skip-invalid-items reader says "an array" in both wordings, serde's own "a sequence".
    if (!Array.isArray(v)) return c.invalid(v, skipItems ? "an array" : c.words.array);
    const out: JsonValue[] = [];
    for (let i = 0; i < v.length; i++) {
      const item = v[i] as JsonValue;
      const reports = c.reports.length;
      c.path.push(String(i));
      // The crate reads each item whole before it decodes it: a repeated name fails unwrapped.
      if (skipItems) kept(c, item);
      try {
        out.push(item === null && t.nullable ? null : ty(c, t.list, item));
      } catch (e) {
        if (!skipItems) throw e;
        recoverable(e);
        // What the dropped item's own lenient members reported goes with it.
        c.reports.length = reports;
        c.report("skip-invalid-items", e);
      } finally {
        c.path.pop();
      }
    }
    return out;
  }
  if ("tuple" in t) {
    if (!Array.isArray(v)) return c.invalid(v, c.words.tuple(t.tuple.length));
    if (v.length !== t.tuple.length) c.fail(`invalid length ${v.length}, expected ${c.words.tuple(t.tuple.length)}`);
    return t.tuple.map((item, i) =>
      c.at(String(i), () => (v[i] === null && item.nullable ? null : ty(c, item.ty, v[i] as JsonValue))),
    );
  }
  if (!isObject(v)) return c.invalid(v, c.words.object);
  noRepeat(c, v);
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const x = v[k] as JsonValue;
    define(
      out,
      k,
      c.at(k, () => (x === null && t.nullable ? null : ty(c, t.map, x))),
    );
  }
  return out;
}

function int(c: Ctx, v: JsonValue, name: IntName, expected: string): number {
  if (typeof v !== "number") return c.invalid(v, expected);
  if (!Number.isInteger(v) || c.isFloat(v)) return c.invalid(v, expected);
  const [lo, hi] = INT[name];
  if (v < lo || v > hi) c.fail(`invalid value: integer \`${v}\`, expected ${expected}`);
  return v;
}

/**
 * Definition `name`. `tags`: the discriminators of the unions whose arm `v`
 * is (an arm's payload is the object less them; they stay where they are).
 */
function def(c: Ctx, name: string, v: JsonValue, tags: readonly string[] = []): JsonValue {
  const s = c.shape(name);
  if (s === "any") return kept(c, v);
  if ("alias" in s) return def(c, s.alias, v, tags);
  if ("struct" in s) return struct(c, name, s, v, tags);
  if ("union" in s) return union(c, name, s, v, tags);
  if ("enum" in s) {
    if (s.int !== undefined) {
      // An open integer enum reads any `i64` first.
      const n = int(c, v, s.open ? "i64" : s.int, s.open ? c.words.int("i64") : `a ${name} integer`);
      if (!s.open && !s.enum.includes(n)) c.fail(`unknown variant \`${n}\`, ${oneOf(s.enum.map(String))}`);
      return n;
    }
    if (typeof v !== "string") return c.invalid(v, `a ${name} string`);
    if (!s.open && !s.enum.includes(v)) c.fail(`unknown variant \`${v}\`, ${oneOf(s.enum as string[])}`);
    return v;
  }
  const value = ty(c, s.newtype, v);
  checks(c, s, value);
  return value;
}

/** A field's or a newtype's checks: string rules, bounds, item counts. */
function checks(c: Ctx, f: Pick<FieldShape, "str" | "range" | "items">, v: JsonValue): void {
  if (f.str !== undefined && typeof v === "string") {
    const r = f.str;
    const n = r.min !== undefined || r.max !== undefined ? [...v].length : 0;
    const q = JSON.stringify(v);
    if (r.min !== undefined && n < r.min) {
      c.fail(m.shorterThan(q, r.min, r.at));
    }
    if (r.max !== undefined && n > r.max) {
      c.fail(m.longerThan(q, r.max, r.at));
    }
    if (r.pattern !== undefined && !new RegExp(r.pattern, "u").test(v)) {
      c.fail(m.noPatternMatch(q, JSON.stringify(r.pattern), r.at));
    }
  }
  if (f.range !== undefined && typeof v === "number") {
    const r = f.range;
    const min = r.min === undefined ? -Infinity : Number(r.min);
    const max = r.max === undefined ? Infinity : Number(r.max);
    if (!(v >= min && v <= max)) {
      const shown = r.float && c.isFloat(v) ? floatText(v) : String(v);
      const bound = (b: number | string | undefined, inf: string) => (b === undefined ? inf : String(b));
      c.fail(m.outOfRange(shown, bound(r.min, "-inf"), bound(r.max, "inf"), r.at));
    }
  }
  if (f.items !== undefined && Array.isArray(v)) {
    const r = f.items;
    const n = v.length;
    if (n < r.min) c.fail(m.tooFewItems(n, r.min, r.at));
    if (r.max !== undefined && n > r.max) c.fail(m.tooManyItems(n, r.max, r.at));
  }
}

/** What a property's `repr` and `read` rule mean for reading one member. */
interface FieldRule {
  /** Must be present. */
  required: boolean;
  /** `null` is the value. */
  nullable: boolean;
  patch: boolean;
  /** A value that fails is the default (dropped when optional), with a report. */
  lenient: boolean;
  /** A list's items that fail are dropped. */
  skipItems: boolean;
  nullAsDefault: boolean;
}

/** The plan's rule of a property: what its `repr` and `read` mean for one member. */
function ruleOf(f: FieldShape): FieldRule {
  const repr = f.repr ?? "optional";
  const read = f.read ?? "plain";
  const kind = typeof read === "string" ? read : read.kind;
  // A count is checked after the list's own rule.
  const list = typeof read === "object" && read.kind === "item_count" ? read.inner : read;
  return {
    required: repr === "value" || repr === "required_nullable",
    nullable: repr === "required_nullable" || repr === "nullable" || repr === "optional_any",
    patch: kind === "patch",
    lenient: kind.startsWith("lenient") || (typeof read === "object" && "lenient" in read && read.lenient === true),
    skipItems:
      list === "items" ||
      list === "lenient_items" ||
      (typeof read === "object" && "skipItems" in read && read.skipItems === true),
    nullAsDefault: kind === "null_as_default",
  };
}

/** A struct's fields as `struct` reads them: each by wire name with its rule, and the required ones' names. */
interface Fields {
  byName: Map<string, { shape: FieldShape; rule: FieldRule }>;
  required: string[];
}

const structFields = new WeakMap<StructShape, Fields>();

/** A struct's {@link Fields}, made once per shape. */
function fieldsOf(s: StructShape): Fields {
  let out = structFields.get(s);
  if (out === undefined) {
    const byName = new Map(s.struct.map((f) => [f.name, { shape: f, rule: ruleOf(f) }]));
    const required = [...byName.values()].filter((e) => e.rule.required).map((e) => e.shape.name);
    out = { byName, required };
    structFields.set(s, out);
  }
  return out;
}

/** One member by its field's rule: the value to keep, or `DROP`. */
function field(c: Ctx, f: FieldShape, r: FieldRule, v: JsonValue): Out {
  if (v === null) {
    if (r.patch || r.nullable || f.ty === "any") return null;
    if (r.nullAsDefault) {
      c.report("default-on-null", new DecodeError("`null` is the default", c.pointer()));
      return f.default ?? DROP;
    }
    if (!r.required) {
      c.report("null-is-absent", new DecodeError("`null` in an optional member that is not nullable", c.pointer()));
      return DROP;
    }
  }
  // A lenient member is read whole before it is decoded: a repeated name in it fails unwrapped.
  if ((r.lenient || r.patch) && !(r.skipItems && Array.isArray(v))) kept(c, v);
  const reports = c.reports.length;
  try {
    const out = ty(c, f.ty, v, r.skipItems);
    checks(c, f, out);
    return out;
  } catch (e) {
    if (!r.patch && !r.lenient) throw e;
    recoverable(e);
    c.reports.length = reports;
    c.report(r.patch ? "patch-keeps" : "default-on-error", e, c.pointer());
    return r.required && f.default !== undefined ? f.default : DROP;
  }
}

function struct(c: Ctx, name: string, s: StructShape, v: JsonValue, tags: readonly string[]): JsonObject {
  // A struct with a flattened union is read by serde's derive, which says "struct X".
  if (!isObject(v)) return c.invalid(v, s.flatten === undefined ? `a ${name} object` : c.words.struct(name));
  const out: JsonObject = {};
  let rest: JsonObject | undefined;
  const keys = Object.keys(v);
  // A repeated name fails where the crate's reader meets its second
  // occurrence: here when the struct reads the member itself (a field, or an
  // enclosing discriminator), inside the flattened union otherwise.
  const fields = fieldsOf(s);
  const repeated = c.duplicates?.repeated.get(v);
  const ownRepeat =
    repeated !== undefined &&
    (s.flatten === undefined || fields.byName.has(repeated.key) || tags.includes(repeated.key));
  for (let i = 0; i < keys.length; i++) {
    if (ownRepeat && repeated.after === i) noRepeat(c, v);
    const k = keys[i] as string;
    const x = v[k];
    if (x === undefined) continue;
    if (tags.includes(k)) {
      out[k] = x;
      continue;
    }
    const f = fields.byName.get(k);
    if (f !== undefined) {
      const r = c.at(k, () => field(c, f.shape, f.rule, x));
      if (r !== DROP) define(out, k, r);
    } else if (s.forbidden?.includes(k)) {
      c.at(k, () => c.fail(m.notAllowed(k, name)));
    } else if (s.flatten !== undefined) {
      define((rest ??= {}), k, x);
    } else if (s.rest === "deny") {
      const known = s.struct.map((f) => f.name);
      c.fail(`unknown field \`${k}\`, ${known.length ? oneOf(known) : "there are no fields"}`);
    } else if (s.rest !== undefined) {
      const t = s.rest;
      define(
        out,
        k,
        c.at(k, () => ty(c, t, x)),
      );
    } else {
      define(
        out,
        k,
        c.at(k, () => kept(c, x)),
      );
    }
  }
  if (ownRepeat && repeated.after === keys.length) noRepeat(c, v);
  for (const r of fields.required) {
    if (v[r] === undefined) c.fail(`missing field \`${r}\``);
  }
  if (s.flatten === undefined) return out;
  const others = rest ?? {};
  if (c.duplicates !== undefined && repeated !== undefined && !ownRepeat) {
    c.duplicates.repeated.set(others, { key: repeated.key, after: Object.keys(others).length });
    c.duplicates.within.add(others);
  } else if (c.duplicates?.within.has(v)) {
    c.duplicates.within.add(others);
  }
  const arm = union(c, s.flatten, c.shape(s.flatten) as UnionShape, others, []);
  if (!isObject(arm)) return out;
  // The members in the order they came.
  const merged: JsonObject = {};
  for (const k of Object.keys(v)) {
    if (k in out) define(merged, k, out[k] as JsonValue);
    else if (k in arm) define(merged, k, arm[k] as JsonValue);
  }
  return merged;
}

function union(c: Ctx, name: string, u: UnionShape, v: JsonValue, tags: readonly string[] = []): JsonValue {
  if (u.tag === undefined) return untagged(c, name, u, v);
  const key = u.tag.key;
  if (!isObject(v)) return c.invalid(v, `a ${name} object`);
  const tag = v[key];
  const known = typeof tag === "string" ? u.union.find((a) => a.tag === tag) : undefined;
  if (known !== undefined && typeof tag === "string") {
    const inner = [...tags, key];
    if (known.unit) {
      noRepeat(c, v);
      return pick(v, inner);
    }
    try {
      return payload(c, known, v, inner);
    } catch (e) {
      if (e instanceof DecodeError) {
        throw new DecodeError(m.invalidVariant(String(tag), name, e.message), e.pointer, false, e.fatal);
      }
      throw e;
    }
  }
  // The crate reads an object of an absent, unknown or odd discriminator
  // whole before it looks at it: a repeated name anywhere in it fails first.
  kept(c, v);
  const state =
    tag === undefined
      ? "missing"
      : tag === null
        ? "null"
        : typeof tag === "string"
          ? "str"
          : u.tag.lenient
            ? "missing"
            : "invalid";
  const noTag = u.union.find((a) => a.noTag);
  if (noTag !== undefined && (state === "missing" || state === "null")) return state === "null" ? { [key]: null } : {};
  const knownTags = u.union.flatMap((a) => (a.tag === undefined ? [] : [a.tag]));
  const tagError = () =>
    state === "str"
      ? m.unknownTag(key, String(tag), name, knownTags.join(", "))
      : state === "missing"
        ? m.missingTag(key, name)
        : m.invalidTag(key, name);
  const open = u.union.filter((a) => a.tag === undefined && !a.noTag);
  const errors: string[] = [];
  for (const a of open) {
    const r = attempt(c, a, v, errors);
    if (r !== DROP) return r;
  }
  if (u.catchAll !== undefined && state === "str") return catchAll(c, name, u, v, String(tag));
  if (open.length === 0) return c.fail(tagError());
  if (state === "missing") c.fail(m.noArmMatched(name, errors.join("; ")));
  return c.fail(m.noOpenArmMatched(tagError(), errors.join("; ")));
}

/** The members of `v` named in `keys`, in their order. */
function pick(v: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(v)) if (keys.includes(k)) out[k] = v[k] as JsonValue;
  return out;
}

/** A known arm's payload: the object less its discriminators (`tags`), which stay in their place. */
function payload(c: Ctx, a: ArmShape, v: JsonObject, tags: readonly string[]): JsonValue {
  const t = a.ty;
  if (t === undefined) return pick(v, tags);
  if (typeof t === "object" && "ref" in t) return def(c, t.ref, v, tags);
  return ty(c, t, v);
}

/** Tries an arm on a value kept whole: `DROP` (and its error in `errors`) when it does not fit. */
function attempt(c: Ctx, a: ArmShape, v: JsonValue, errors: string[]): Out {
  if (a.unit) return v === null ? null : DROP;
  const reports = c.reports.length;
  try {
    return ty(c, a.ty ?? "null", v);
  } catch (e) {
    recoverable(e);
    c.reports.length = reports;
    errors.push(m.armError(c.words.arm(a), (e as DecodeError).message));
    return DROP;
  }
}

function catchAll(c: Ctx, name: string, u: UnionShape, v: JsonObject, tag: string | undefined): JsonValue {
  const all = u.catchAll;
  if (all === undefined) throw new Error("no catch-all");
  const key = u.tag?.key;
  if (tag !== undefined && all.reserved.includes(tag)) {
    c.fail(m.reservedTag(String(key), tag, name));
  }
  for (const r of all.required) {
    if (!(r in v)) c.fail(m.catchAllMissingField(name, r));
  }
  for (const f of all.fields) {
    const x = v[f.name];
    if (x === undefined) continue;
    const reports = c.reports.length;
    try {
      c.at(f.name, () => ty(c, f.ty, x));
    } catch (e) {
      recoverable(e);
      c.fail(m.catchAllInvalidField(f.name, name, (e as DecodeError).message));
    }
    c.reports.length = reports;
  }
  kept(c, v);
  const out: JsonObject = { ...v };
  Object.defineProperty(out, unknownArm, { value: true, enumerable: false });
  return out;
}

function untagged(c: Ctx, name: string, u: UnionShape, v: JsonValue): JsonValue {
  kept(c, v); // read whole first, as above
  const errors: string[] = [];
  for (const a of u.union) {
    const r = attempt(c, a, v, errors);
    if (r !== DROP) return r;
  }
  if (u.catchAll !== undefined && isObject(v)) return catchAll(c, name, u, v, undefined);
  return c.fail(m.noArmMatched(name, errors.join("; ")));
}

/**
 * Decodes `input` as definition `name` of `shapes`: JSON text, or a value
 * already read (with, from {@link parse}, the numbers written as floats and
 * the value's pointer in that text).
 */
export function decodeAs(
  shapes: Shapes,
  name: string,
  input:
    | { text: string }
    | { value: JsonValue; floats?: Floats | undefined; duplicates?: Duplicates | undefined; base?: string },
  strict = false,
  words: Words = jsonWords,
): Decoded<JsonValue> {
  let parsed: ReturnType<typeof read> | undefined;
  if ("text" in input) {
    try {
      parsed = read(input.text);
    } catch (e) {
      if (e instanceof DecodeError && e.syntax) throw new DecodeError(words.syntax(e.message), e.pointer, true);
      throw e;
    }
  }
  const { value, floats, duplicates } = parsed ?? (input as Exclude<typeof input, { text: string }>);
  const base = "base" in input ? (input.base ?? "") : "";
  const c = new Ctx(shapes, floats, base, duplicates, strict, words);
  return { value: def(c, name, value), reports: c.reports };
}

export { DecodeError, parse };
