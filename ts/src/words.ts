// How decode errors are worded. The decoders build every message from the
// same parts (what was found, what was expected, which arm of a union); a
// `Words` says each part. `json` (the default) says them in JSON's and
// TypeScript's terms: an array, an object, an integer from 0 to 65535, an
// arm by its TypeScript type. `crate` says them as the Rust crate's
// decoders (and so serde) do: a sequence, a map, u16, an arm by its
// variant's name; the command line uses it, so that its lines are the same
// as `acp-tools`' and the two compare line by line.

import type { ArmShape, IntName, Ty } from "./shape.js";

/** `json`: JSON's and TypeScript's terms; `crate`: the Rust crate's. */
export type Wording = "json" | "crate";

/** The parts of a decode error's message, in one wording. */
export interface Words {
  readonly wording: Wording;
  /** A value of the wrong type, as found (`integer \`7\``, `an array`). */
  found(v: unknown, float: boolean): string;
  /** An integer type, as expected. */
  int(name: IntName): string;
  /** Expected: any array, any object. */
  readonly array: string;
  readonly object: string;
  /** Expected: an array of exactly `n` items. */
  tuple(n: number): string;
  /** Expected: a string of one character. */
  readonly char: string;
  /** Found: `v`, anything but `null`, where only `null` is allowed. */
  notNull(v: unknown, float: boolean): string;
  /** Expected: an object of definition `name` that a union extends (serde's `struct X`). */
  struct(name: string): string;
  /** The name of an untagged arm in the union's error. */
  arm(a: ArmShape): string;
  /** A syntax error of the reader (serde_json's words, `EOF while parsing a list`). */
  syntax(message: string): string;
}

/** Rust's `Display` of an `f64` as serde shows it (`1.0`, `0.5`). */
export function floatText(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e16 ? `${v}.0` : String(v);
}

/** The found value's words that do not depend on the wording (scalars). */
function scalar(v: unknown, float: boolean): string | undefined {
  if (v === null) return "null";
  if (typeof v === "boolean") return `boolean \`${v}\``;
  if (typeof v === "number") {
    if (float || !Number.isInteger(v)) return `floating point \`${floatText(v)}\``;
    return `integer \`${v}\``;
  }
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return undefined;
}

/** The bounds of each integer type, as decimal text. */
const BOUNDS: { readonly [K in IntName]: readonly [string, string] | undefined } = {
  i8: ["-128", "127"],
  i16: ["-32768", "32767"],
  i32: ["-2147483648", "2147483647"],
  i64: ["-9223372036854775808", "9223372036854775807"],
  i128: undefined,
  u8: ["0", "255"],
  u16: ["0", "65535"],
  u32: ["0", "4294967295"],
  u64: ["0", "18446744073709551615"],
  u128: undefined,
};

/** A value type as TypeScript writes it (`string`, `Foo[]`, `Record<string, Foo>`). */
export function tsType(t: Ty): string {
  if (typeof t === "string") {
    if (t === "char") return "string";
    if (t === "any") return "JsonValue";
    if (t === "object") return "JsonObject";
    return t;
  }
  if ("int" in t) return "number";
  if ("ref" in t) return t.ref;
  const inner = (ty: Ty, nullable: true | undefined) => (nullable ? `(${tsType(ty)} | null)` : tsType(ty));
  if ("list" in t) return `${inner(t.list, t.nullable)}[]`;
  if ("tuple" in t) return `[${t.tuple.map((i) => (i.nullable ? `${tsType(i.ty)} | null` : tsType(i.ty))).join(", ")}]`;
  return `Record<string, ${t.nullable ? `${tsType(t.map)} | null` : tsType(t.map)}>`;
}

/** JSON's and TypeScript's terms. */
export const jsonWords: Words = {
  wording: "json",
  found: (v, float) => scalar(v, float) ?? (Array.isArray(v) ? "array" : "object"),
  int: (name) => {
    const b = BOUNDS[name];
    return b === undefined ? "an integer" : `an integer from ${b[0]} to ${b[1]}`;
  },
  array: "an array",
  object: "an object",
  tuple: (n) => `an array of ${n} item(s)`,
  char: "a string of one character",
  notNull: (v, float) => jsonWords.found(v, float),
  struct: (name) => `a ${name} object`,
  arm: (a) => (a.unit === true ? "null" : tsType(a.ty ?? "null")),
  syntax: (message) =>
    message
      .replace("while parsing a list", "while parsing an array")
      .replace("expected ident", "expected `true`, `false` or `null`"),
};

/** The Rust crate's terms (serde's). */
export const crateWords: Words = {
  wording: "crate",
  found: (v, float) => scalar(v, float) ?? (Array.isArray(v) ? "sequence" : "map"),
  int: (name) => name,
  array: "a sequence",
  object: "a map",
  tuple: (n) => `a tuple of size ${n}`,
  char: "a character",
  notNull: () => "Option value",
  struct: (name) => `struct ${name}`,
  arm: (a) => a.name,
  syntax: (message) => message,
};

/** The words of `wording`. */
export function words(wording: Wording): Words {
  return wording === "crate" ? crateWords : jsonWords;
}
