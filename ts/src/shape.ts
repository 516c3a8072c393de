// What the generated `shapes` tables say: the plan's decoding rules of every
// definition, as data. `decode.ts` interprets them; `cargo xtask codegen`
// writes them (xtask/src/ts/shapes.rs) from the same plan as the Rust crate.

import type { JsonObject, JsonValue } from "./runtime.js";

/** serde's name of an integer's Rust type, as its errors say it (`u16`). */
export type IntName = "i8" | "i16" | "i32" | "i64" | "i128" | "u8" | "u16" | "u32" | "u64" | "u128";

/** A value type. */
export type Ty =
  | "string"
  /** A string of exactly one character (Unicode code point). */
  | "char"
  | "number"
  | "boolean"
  | "null"
  /** Any JSON value, kept as received. */
  | "any"
  /** Any JSON object, kept as received (`_meta`). */
  | "object"
  | { int: IntName }
  | { ref: string }
  | { list: Ty; nullable?: true }
  | { tuple: { ty: Ty; nullable?: true }[] }
  | { map: Ty; nullable?: true };

/** `minLength` / `maxLength` (in code points) and `pattern` (unanchored), checked on decode. */
export interface StrCheck {
  min?: number;
  max?: number;
  pattern?: string;
  /** The schema pointer of the rule, named in its errors. */
  at: string;
}

/** Bounds of a number (integers: the bounds as decimal text, exact past 2^53). */
export interface RangeCheck {
  float?: true;
  min?: number | string;
  max?: number | string;
  at: string;
}

/** `minItems` / `maxItems` of a list. */
export interface ItemsCheck {
  min: number;
  max?: number;
  at: string;
}

/**
 * How a property is held, as the plan decided it for both targets: `value`
 * (required), `required_nullable` (required, may be `null`), `optional`,
 * `optional_any` (optional any-JSON: a present `null` is a value),
 * `nullable` (optional, may be `null`), `patch` (an upsert's patch field:
 * omitted keeps, `null` clears, a value sets).
 */
export type Repr = "value" | "required_nullable" | "optional" | "optional_any" | "nullable" | "patch";

/**
 * A property's read rule, as the plan states it (the Rust crate reads the
 * property by the same rule):
 * - `lenient`, `lenient_meta`, `lenient_scalar`: default-on-error, a value of
 *   the wrong shape is the default (dropped, for an optional member);
 * - `lenient_items`: default-on-error and skip-invalid-items;
 * - `items`: skip-invalid-items, items that fail are dropped;
 * - `any`: an optional any-JSON member; `json`: free-form JSON;
 * - `present`: a required member that may be `null`;
 * - `null_as_default`: `null` is the default;
 * - `patch`: an upsert's patch field, a value of the wrong shape keeps
 *   (`skipItems`: a list's bad items are dropped instead);
 * - `checked_str`, `int_in_range`, `float_in_range`: the member's `str` or
 *   `range` checks (`lenient`: a value out of them is the default);
 * - `item_count`: the member's `items` check after its `inner` rule.
 */
export type ReadRule =
  | "plain"
  | "lenient"
  | "lenient_meta"
  | "lenient_scalar"
  | "lenient_items"
  | "items"
  | "any"
  | "json"
  | "present"
  | "null_as_default"
  | { kind: "patch"; skipItems?: true; scalar?: true }
  | { kind: "checked_str" | "int_in_range" | "float_in_range"; lenient?: true }
  | { kind: "item_count"; lenient?: true; inner: ReadRule };

/** One property of an object and the rule it is read by. */
export interface FieldShape {
  name: string;
  ty: Ty;
  /** Absent: `optional`. */
  repr?: Repr;
  /** Absent: `plain`, the type's own decoding. */
  read?: ReadRule;
  /** The default a required member falls back to under its rule (the Rust type's `Default`). */
  default?: JsonValue;
  str?: StrCheck;
  range?: RangeCheck;
  items?: ItemsCheck;
}

/** An object: its properties, and what it does with the ones it does not name. */
export interface StructShape {
  struct: FieldShape[];
  /** `"deny"`: unknown members are an error; a type: each is of it; absent: kept as received. */
  rest?: "deny" | Ty;
  /** A union whose arms take the members the struct does not name. */
  flatten?: string;
  /** Members whose schema is `false`. */
  forbidden?: string[];
}

/** A string or integer enum; `open`: any other value is kept. */
export interface EnumShape {
  enum: (string | number)[];
  open?: true;
  int?: IntName;
}

/** One arm of a union. */
export interface ArmShape {
  /** The Rust variant's name, in errors about untagged arms. */
  name: string;
  /** The discriminator value (none: an arm tried in order). */
  tag?: string;
  /** Nothing but the discriminator. */
  unit?: true;
  /** The arm of an absent or `null` discriminator. */
  noTag?: true;
  ty?: Ty;
}

/** A union, tagged (`tag`) or untagged, open (`catchAll`) or closed. */
export interface UnionShape {
  union: ArmShape[];
  tag?: { key: string; lenient?: true };
  catchAll?: { required: string[]; fields: { name: string; ty: Ty }[]; reserved: string[] };
}

/** A named wrapper of one type, with the checks of its value. */
export interface NewtypeShape {
  newtype: Ty;
  str?: StrCheck;
  range?: RangeCheck;
}

/** How one definition decodes. */
export type Shape = StructShape | EnumShape | UnionShape | NewtypeShape | { alias: string } | "any";

/** Every definition of a schema file by its TypeScript name. */
export type Shapes = { readonly [name: string]: Shape };

/** How a method's params or result treats an omitted or `null` value. */
export type NullMode = "value" | "empty" | "refuse";

/** One payload of a method: the definition it decodes as. */
export interface PayloadShape {
  /** The definition (aliases followed). */
  def: string;
  /** The payload's own name where it is an alias of `def`. */
  name?: string;
  null: NullMode;
}

/** A JSON-RPC method: the side that handles it, and its payloads. */
export interface MethodShape {
  side: "agent" | "client" | "protocol" | "proxy";
  request?: PayloadShape;
  response?: PayloadShape;
  notification?: PayloadShape;
}

/** Every method of a schema file. */
export type Methods = { readonly [method: string]: MethodShape };

/**
 * `table` without the entries `names`: the tables of an unstable module are
 * its stable module's with what differs put over them, and without what the
 * unstable schema removed.
 */
export function without<T>(table: { readonly [name: string]: T }, names: readonly string[]): { [name: string]: T } {
  const out: { [name: string]: T } = { ...table };
  for (const n of names) Reflect.deleteProperty(out, n);
  return out;
}

/** How a property of an upsert's state takes a patch. */
export type StateRule =
  /** The entity's key: set once, never patched. */
  | "key"
  /** On the wire every time: replaced. */
  | "required"
  /** `_meta`: merged one level deep (a member `null` removes it); `null` clears. */
  | "by_key"
  /** A list: replaced whole; `null` and `[]` clear. */
  | "list"
  /** A value; `null` unsets (the state holds `null`). */
  | "optional"
  /** Any JSON; `null` unsets. */
  | "any"
  /** A value; `null` resets it to `reset` (the state's default too). */
  | { reset: string };

/** One upsert: the state it patches, its key, and each property's rule, in order. */
export interface UpsertShape {
  state: string;
  key: string | null;
  fields: { name: string; rule: StateRule }[];
}

/** Every upsert of a schema file, by its patch's TypeScript name. */
export type Upserts = { readonly [name: string]: UpsertShape };

/** A collection of the session reducer: what it holds, under its JSON name. */
export type CollectionShape =
  /** The states of one upsert (by its TypeScript name), by key. */
  | { name: string; upsert: string }
  /** The states of several upserts that share a key, each under its tag (written as `kind`). */
  | { name: string; kinds: { readonly [kind: string]: string } }
  /** Values replaced whole, by their string property `whole`. */
  | { name: string; whole: string }
  /** The state of one keyless upsert. */
  | { name: string; one: string };

/** What one update (by its tag) does to the collection `into`. */
export type UpdateRule =
  /** The update is a patch of the collection's upsert (of `kind`). */
  | { rule: "upsert"; into: string; kind?: string }
  /** `from` pushed onto the list `to` of the entity with the key `key`; an unknown key creates it when `create`. */
  | { rule: "append"; into: string; kind?: string; key: string; from: string; to: string; create: boolean }
  /** Base64 text `from` appended at `to[0]`'s `to[1]` (bytes joined; text joined when either does not decode). */
  | { rule: "append_base64"; into: string; key: string; from: string; to: readonly [string, string]; create: boolean }
  /** `from` stored whole under its key. */
  | { rule: "put"; into: string; from: string }
  /** The entity named by `from` removed. */
  | { rule: "remove"; into: string; from: string };

/**
 * A session reducer as the configuration states it (a generated module's
 * `reducer`); `U` is the update union it applies and `S` the state it
 * gives (types only).
 */
export interface ReducerShape<U = unknown, S = JsonObject> {
  /** The update union's type, for `SessionReducer.apply` (never a value). */
  readonly update?: U;
  /** The state's type, for `SessionReducer.toJSON` (never a value). */
  readonly state?: S;
  /** The upserts it patches with. */
  upserts: Upserts;
  /** The update union's discriminator. */
  tag: string;
  /** Its collections, in the order its JSON writes them. */
  collections: readonly CollectionShape[];
  /** The rule of each update it applies, by tag; other updates change nothing. */
  updates: { readonly [tag: string]: UpdateRule };
  /**
   * For compaction: the tag of the update that rebuilds an entity of each
   * collection from nothing (by kind, in a collection of kinds). Absent when
   * the plan found none for some collection (a preview of another revision).
   */
  rebuild?: { readonly [collection: string]: string | { readonly [kind: string]: string } };
}
