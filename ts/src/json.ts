// Reading JSON text as the Rust crate reads it: `JSON.parse` keeps the last of
// two members of one name and accepts lone surrogates; this reader refuses a
// repeated member name (an error of the whole message, as in the crate) and
// gives broken JSON serde_json's message, line and column.

import type { JsonValue } from "./runtime.js";
import { duplicateField } from "./generated/messages.js";
import { words, type Wording } from "./words.js";

/** A value that could not be read: what is wrong and where (a JSON pointer, `""` for the root). */
export class DecodeError extends Error {
  constructor(
    message: string,
    /** Where, as a JSON pointer into the value (`""`: the value itself). */
    readonly pointer: string,
    /** The text is not JSON (as opposed to JSON the schema refuses). */
    readonly syntax = false,
    /** A repeated member name: an error of the whole value, which no lenient rule recovers from. */
    readonly fatal = false,
  ) {
    super(message);
    this.name = "DecodeError";
  }
}

/** Escapes one JSON pointer token (`~` as `~0`, `/` as `~1`). */
export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** What {@link parse} gives besides the value. */
export interface Parsed {
  value: JsonValue;
  /**
   * Pointers of the numbers written with a fraction or an exponent that are
   * whole (`1.0`, `1e3`): an integer property refuses them, as serde does,
   * though `JSON.parse` cannot tell them from `1` and `1000`.
   */
  floats: Set<string> | undefined;
}

/**
 * Where a text repeats a member name ({@link read}): the first repeated name
 * of each object that repeats one, and every object or array that holds such
 * an object at any depth (itself included).
 */
export interface Duplicates {
  /** The repeated name, and how many distinct members came before its second occurrence. */
  repeated: WeakMap<object, { key: string; after: number }>;
  within: WeakSet<object>;
}

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
const DIGIT = (c: number) => c >= 0x30 && c <= 0x39;
/** serde_json's nesting limit: the 128th open bracket is refused. */
const MAX_DEPTH = 127;

class Reader {
  i = 0;
  depth = 0;
  path: string[] = [];
  floats: Set<string> | undefined;
  duplicate: DecodeError | undefined;
  duplicates: Duplicates | undefined;
  /** The objects and arrays open at the current position, outermost first. */
  open: object[] = [];

  constructor(
    readonly text: string,
    readonly keepLast: boolean,
  ) {}

  /** serde_json's syntax error at UTF-16 index `at` (its column counts UTF-8 bytes, from 1). */
  fail(message: string, at: number): never {
    const before = this.text.slice(0, at);
    const start = before.lastIndexOf("\n") + 1;
    const line = (before.match(/\n/g)?.length ?? 0) + 1;
    // The column of the character before `at` is the bytes before it, plus one.
    const column = at > start ? new TextEncoder().encode(before.slice(start, -1)).length + 1 : 0;
    throw new DecodeError(`${message} at line ${line} column ${column}`, "", true);
  }
  /** An error at the next character (serde's `peek_error`). */
  peekFail(message: string): never {
    return this.fail(message, Math.min(this.text.length, this.i + 1));
  }

  ws(): number {
    const t = this.text;
    while (this.i < t.length && WS(t.charCodeAt(this.i))) this.i++;
    return this.i < t.length ? t.charCodeAt(this.i) : -1;
  }

  value(): JsonValue {
    const c = this.ws();
    switch (c) {
      case -1:
        return this.peekFail("EOF while parsing a value");
      case 0x22:
        this.i++;
        return this.string();
      case 0x7b:
        return this.object();
      case 0x5b:
        return this.array();
      case 0x74:
        return this.ident("true", true);
      case 0x66:
        return this.ident("false", false);
      case 0x6e:
        return this.ident("null", null);
      default:
        if (c === 0x2d || DIGIT(c)) return this.number();
        return this.peekFail("expected value");
    }
  }

  ident<T extends JsonValue>(word: string, value: T): T {
    this.i++;
    for (let k = 1; k < word.length; k++) {
      if (this.i >= this.text.length) this.fail("EOF while parsing a value", this.text.length);
      if (this.text.charCodeAt(this.i++) !== word.charCodeAt(k)) this.fail("expected ident", this.i);
    }
    return value;
  }

  number(): number {
    const t = this.text;
    const start = this.i;
    let float = false;
    if (t.charCodeAt(this.i) === 0x2d) this.i++;
    if (this.i >= t.length) this.fail("EOF while parsing a value", t.length);
    const first = t.charCodeAt(this.i++);
    if (first === 0x30) {
      if (DIGIT(t.charCodeAt(this.i))) this.peekFail("invalid number");
    } else if (!DIGIT(first)) {
      this.fail("invalid number", this.i);
    }
    while (DIGIT(t.charCodeAt(this.i))) this.i++;
    if (t.charCodeAt(this.i) === 0x2e) {
      float = true;
      this.i++;
      this.digits();
    }
    const e = t.charCodeAt(this.i);
    if (e === 0x65 || e === 0x45) {
      float = true;
      this.i++;
      const s = t.charCodeAt(this.i);
      if (s === 0x2b || s === 0x2d) this.i++;
      this.digits();
    }
    const n = Number(t.slice(start, this.i));
    if (!Number.isFinite(n)) this.fail("number out of range", this.i);
    if (float && Number.isInteger(n)) (this.floats ??= new Set()).add(this.pointer());
    return n;
  }

  digits(): void {
    if (!DIGIT(this.text.charCodeAt(this.i))) {
      if (this.i >= this.text.length) this.peekFail("EOF while parsing a value");
      this.peekFail("invalid number");
    }
    while (DIGIT(this.text.charCodeAt(this.i))) this.i++;
  }

  string(): string {
    const t = this.text;
    let out = "";
    let from = this.i;
    for (;;) {
      if (this.i >= t.length) this.fail("EOF while parsing a string", t.length);
      const c = t.charCodeAt(this.i);
      if (c === 0x22) {
        out += t.slice(from, this.i++);
        return out;
      }
      if (c < 0x20) this.fail("control character (\\u0000-\\u001F) found while parsing a string", this.i + 1);
      if (c === 0x5c) {
        out += t.slice(from, this.i);
        this.i++;
        out += this.escape();
        from = this.i;
      } else {
        this.i++;
      }
    }
  }

  escape(): string {
    const t = this.text;
    if (this.i >= t.length) this.fail("EOF while parsing a string", t.length);
    const c = t[this.i++];
    switch (c) {
      case '"':
        return '"';
      case "\\":
        return "\\";
      case "/":
        return "/";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const hi = this.hex();
        if (hi < 0xd800 || hi > 0xdfff) return String.fromCharCode(hi);
        if (hi >= 0xdc00) this.fail("lone leading surrogate in hex escape", this.i);
        if (t[this.i] !== "\\" || t[this.i + 1] !== "u") {
          this.fail("unexpected end of hex escape", Math.min(t.length, this.i + 1));
        }
        this.i += 2;
        const lo = this.hex();
        if (lo < 0xdc00 || lo > 0xdfff) this.fail("lone leading surrogate in hex escape", this.i);
        return String.fromCharCode(hi, lo);
      }
      default:
        return this.fail("invalid escape", this.i);
    }
  }

  hex(): number {
    const t = this.text;
    if (this.i + 4 > t.length) this.fail("EOF while parsing a string", t.length);
    // serde_json reads the four characters before it looks at them.
    const n = hex4(t, this.i);
    this.i += 4;
    if (n < 0) this.fail("invalid escape", this.i);
    return n;
  }

  enter(): void {
    if (++this.depth > MAX_DEPTH) this.peekFail("recursion limit exceeded");
    this.i++;
  }

  array(): JsonValue[] {
    this.enter();
    const out: JsonValue[] = [];
    this.open.push(out);
    for (let first = true; ; first = false) {
      let c = this.ws();
      if (c === 0x5d) break;
      if (!first) {
        if (c === -1) this.peekFail("EOF while parsing a list");
        if (c !== 0x2c) this.peekFail("expected `,` or `]`");
        this.i++;
        c = this.ws();
      }
      if (c === 0x5d) this.peekFail("trailing comma");
      if (c === -1) this.peekFail(first ? "EOF while parsing a list" : "EOF while parsing a value");
      this.path.push(String(out.length));
      out.push(this.value());
      this.path.pop();
    }
    this.i++;
    this.depth--;
    this.open.pop();
    return out;
  }

  object(): { [key: string]: JsonValue } {
    this.enter();
    const out: { [key: string]: JsonValue } = {};
    this.open.push(out);
    for (let first = true; ; first = false) {
      let c = this.ws();
      if (c === 0x7d) break;
      if (!first) {
        if (c === -1) this.peekFail("EOF while parsing an object");
        if (c !== 0x2c) this.peekFail("expected `,` or `}`");
        this.i++;
        c = this.ws();
      }
      if (c === 0x7d) this.peekFail("trailing comma");
      if (c === -1) this.peekFail(first ? "EOF while parsing an object" : "EOF while parsing a value");
      if (c !== 0x22) this.peekFail("key must be a string");
      this.i++;
      const key = this.string();
      const colon = this.ws();
      if (colon === -1) this.peekFail("EOF while parsing an object");
      if (colon !== 0x3a) this.peekFail("expected `:`");
      this.i++;
      this.path.push(key);
      const seen = Object.prototype.hasOwnProperty.call(out, key);
      if (seen && !this.keepLast) this.repeated(out, key);
      const v = this.value();
      if (!seen || this.keepLast) define(out, key, v);
      this.path.pop();
    }
    this.i++;
    this.depth--;
    this.open.pop();
    return out;
  }

  /** Notes that `out` repeats `key` (at the current pointer). */
  repeated(out: object, key: string): void {
    this.duplicate ??= new DecodeError(duplicateField(key), this.pointer(), false, true);
    const d = (this.duplicates ??= { repeated: new WeakMap(), within: new WeakSet() });
    if (!d.repeated.has(out)) d.repeated.set(out, { key, after: Object.keys(out).length });
    for (const o of this.open) d.within.add(o);
  }

  pointer(): string {
    return pointerOf(this.path);
  }
}

/** The JSON pointer of a path of member names and item indexes. */
export function pointerOf(path: readonly string[]): string {
  let p = "";
  for (const t of path) p += "/" + escapeToken(t);
  return p;
}

/** Sets a member, `__proto__` included, as `JSON.parse` does. */
export function define(o: { [key: string]: JsonValue }, key: string, v: JsonValue): void {
  if (key === "__proto__")
    Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
  else o[key] = v;
}

/**
 * Reads JSON text. Broken JSON throws a {@link DecodeError} with `syntax`
 * set and serde_json's message in JSON's terms (`EOF while parsing an array
 * at line 1 column 132`; `wording: "crate"`: serde_json's own, `... a
 * list ...`); well-formed JSON that repeats a member name throws one at the
 * repeated member (``duplicate field `type` ``), whatever the depth, unless
 * `duplicates` is `"last"` (the last one is kept, as `JSON.parse` does).
 */
export function parse(text: string, options: { duplicates?: "error" | "last"; wording?: Wording } = {}): Parsed {
  const fast = nativeRead(text);
  // The numbers written as floats, which `JSON.parse` does not say: only a text that may have one is read again.
  if (fast !== undefined && !FLOAT_SYNTAX.test(text)) return { value: fast, floats: undefined };
  let r: ReturnType<typeof reader>;
  try {
    r = reader(text, options.duplicates === "last");
  } catch (e) {
    if (e instanceof DecodeError && e.syntax)
      throw new DecodeError(words(options.wording ?? "json").syntax(e.message), e.pointer, true);
    throw e;
  }
  if (r.duplicate !== undefined) throw r.duplicate;
  return { value: r.value, floats: r.floats };
}

/** Where a text wrote whole numbers with a fraction or an exponent (`1.0`), by JSON pointer. */
export interface Floats {
  has(pointer: string): boolean;
}

/**
 * {@link parse} for the decoders: a repeated member name is not thrown but
 * noted (the first value kept), so that the decoder meets it where the
 * crate's does, inside the variant that holds it. `floats` is found only
 * when a decoder asks (an integer property does), by reading the text again.
 */
export function read(text: string): {
  value: JsonValue;
  floats: Floats | undefined;
  duplicates: Duplicates | undefined;
} {
  const fast = nativeRead(text);
  if (fast !== undefined) return { value: fast, floats: new LazyFloats(text), duplicates: undefined };
  const r = reader(text, false);
  return { value: r.value, floats: r.floats, duplicates: r.duplicates };
}

/** The floats of a text, read by the careful reader the first time they are asked for. */
class LazyFloats implements Floats {
  private floats: Set<string> | undefined | null = null;
  constructor(private readonly text: string) {}
  has(pointer: string): boolean {
    if (this.floats === null) this.floats = reader(this.text, false).floats;
    return this.floats !== undefined && this.floats.has(pointer);
  }
}

function reader(
  text: string,
  keepLast: boolean,
): {
  value: JsonValue;
  floats: Set<string> | undefined;
  duplicate: DecodeError | undefined;
  duplicates: Duplicates | undefined;
} {
  const r = new Reader(text, keepLast);
  const value = r.value();
  if (r.ws() !== -1) r.peekFail("trailing characters");
  return { value, floats: r.floats, duplicate: r.duplicate, duplicates: r.duplicates };
}

/** A number written with a fraction or an exponent, or text inside a string that looks like one. */
const FLOAT_SYNTAX = /(?:^|[:,[])\s*-?\d+[.eE]/;
/** An escaped UTF-16 surrogate (`\ud83d`), or text like it in a string. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** Whitespace between a closing quote and a colon (a member name written `"a" : 1`), or text like it in a string. */
const SPACE_BEFORE_COLON = /"[ \t\n\r]+:/;

/**
 * The value of `text` read by the engine's `JSON.parse` (native, one pass)
 * when that is provably what the careful reader gives, but for the numbers
 * written as floats (found apart, when asked for). Proven by what costs
 * little next to the parse, with no second pass over long strings: the
 * value's walk (no nesting past serde's limit, no number out of range, no
 * lone UTF-16 surrogate, which serde refuses as an escape) and a count of
 * member names that can only be at least the number of members read, and
 * equals it only when no name is repeated: every `:` (each member has one;
 * string contents can only add to them), or, when that is more, every `":`
 * where no member name is followed by whitespace before its colon.
 * `undefined` otherwise (and for text that is not JSON): the caller then
 * reads it with the careful reader, which also words serde's errors.
 */
function nativeRead(text: string): JsonValue | undefined {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  // A lone surrogate can only come from an escape (`\ud800`): strings are checked only when one may be there.
  const escapes = text.indexOf("\\u") >= 0 && SURROGATE_ESCAPE.test(text);
  const n = members(value, 0, escapes);
  if (n < 0) return undefined;
  if (n === 0 || count(text, ":", n) === n) return value;
  if (count(text, '":', n) === n && !SPACE_BEFORE_COLON.test(text)) return value;
  return undefined;
}

/** How many times `text` has `what`, counting no further than one past `limit`. */
function count(text: string, what: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf(what); i >= 0 && n <= limit; i = text.indexOf(what, i + what.length)) n++;
  return n;
}

/** `String.prototype.isWellFormed` (ES2024, in Node 20): no lone UTF-16 surrogate. */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * The members of every object in `v`; -1 past serde's nesting limit, for a
 * number out of range, or (when `strings`) for a string or name with a
 * lone surrogate.
 */
function members(v: JsonValue, depth: number, strings: boolean): number {
  if (typeof v === "number") return Number.isFinite(v) ? 0 : -1;
  if (typeof v === "string") return !strings || wellFormed(v) ? 0 : -1;
  if (typeof v !== "object" || v === null) return 0;
  if (depth >= MAX_DEPTH) return -1;
  let n = 0;
  if (Array.isArray(v)) {
    for (const item of v) {
      const k = members(item, depth + 1, strings);
      if (k < 0) return -1;
      n += k;
    }
    return n;
  }
  for (const key in v) {
    const k = members(v[key] as JsonValue, depth + 1, strings);
    if (k < 0 || (strings && !wellFormed(key))) return -1;
    n += k + 1;
  }
  return n;
}

/**
 * The syntax error serde_json gives for `text` when it only checks that the
 * text is JSON (`IgnoredAny`, what the crate does for a JSON-RPC line before
 * reading it as a message), or `undefined` when there is none. Its wording
 * differs from the reader's in places (`{"a":1,` ends "while parsing an
 * object", a value's reader says "while parsing a value"), and it has no
 * nesting limit and no check of a number's range or of surrogate escapes.
 */
export function syntaxError(text: string): string | undefined {
  try {
    new Skipper(text).run();
    return undefined;
  } catch (e) {
    if (e instanceof DecodeError) return e.message;
    throw e;
  }
}

/** serde_json's `ignore_value`, position for position, over the reader's whitespace and errors. */
class Skipper extends Reader {
  constructor(text: string) {
    super(text, false);
  }

  /** serde's `error`: at the current position. */
  error(message: string): never {
    return this.fail(message, this.i);
  }
  /** The next character, consumed (0 at the end, not consumed: `next_char_or_null`). */
  nextOrNull(): number {
    if (this.i >= this.text.length) return 0;
    return this.text.charCodeAt(this.i++);
  }
  peekOrNull(): number {
    return this.i < this.text.length ? this.text.charCodeAt(this.i) : 0;
  }

  run(): void {
    this.skipValue();
    if (this.ws() !== -1) this.peekFail("trailing characters");
  }

  skipValue(): void {
    const stack: number[] = [];
    let enclosing: number | undefined;
    for (;;) {
      const peek = this.ws();
      if (peek === -1) this.peekFail("EOF while parsing a value");
      let frame: number | undefined;
      if (peek === 0x6e) this.skipIdent("ull");
      else if (peek === 0x74) this.skipIdent("rue");
      else if (peek === 0x66) this.skipIdent("alse");
      else if (peek === 0x2d) {
        this.i++;
        this.skipInteger();
      } else if (DIGIT(peek)) this.skipInteger();
      else if (peek === 0x22) {
        this.i++;
        this.skipStr();
      } else if (peek === 0x5b || peek === 0x7b) {
        if (enclosing !== undefined) stack.push(enclosing);
        enclosing = undefined;
        this.i++;
        frame = peek;
      } else this.peekFail("expected value");
      let acceptComma: boolean;
      if (frame !== undefined) acceptComma = false;
      else if (enclosing !== undefined) {
        frame = enclosing;
        enclosing = undefined;
        acceptComma = true;
      } else {
        frame = stack.pop();
        if (frame === undefined) return;
        acceptComma = true;
      }
      for (;;) {
        const c = this.ws();
        if (c === 0x2c && acceptComma) {
          this.i++;
          break;
        }
        if ((c === 0x5d && frame === 0x5b) || (c === 0x7d && frame === 0x7b)) {
          // closes the frame
        } else if (c !== -1) {
          if (acceptComma) this.peekFail(frame === 0x5b ? "expected `,` or `]`" : "expected `,` or `}`");
          break;
        } else {
          this.peekFail(frame === 0x5b ? "EOF while parsing a list" : "EOF while parsing an object");
        }
        this.i++;
        const outer = stack.pop();
        if (outer === undefined) return;
        frame = outer;
        acceptComma = true;
      }
      if (frame === 0x7b) {
        const q = this.ws();
        if (q === -1) this.peekFail("EOF while parsing an object");
        if (q !== 0x22) this.peekFail("key must be a string");
        this.i++;
        this.skipStr();
        const colon = this.ws();
        if (colon === -1) this.peekFail("EOF while parsing an object");
        if (colon !== 0x3a) this.peekFail("expected `:`");
        this.i++;
      }
      enclosing = frame;
    }
  }

  skipIdent(rest: string): void {
    this.i++;
    for (let k = 0; k < rest.length; k++) {
      if (this.i >= this.text.length) this.error("EOF while parsing a value");
      if (this.text.charCodeAt(this.i++) !== rest.charCodeAt(k)) this.error("expected ident");
    }
  }

  skipInteger(): void {
    const c = this.nextOrNull();
    if (c === 0x30) {
      if (DIGIT(this.peekOrNull())) this.peekFail("invalid number");
    } else if (c >= 0x31 && c <= 0x39) {
      while (DIGIT(this.peekOrNull())) this.i++;
    } else {
      this.error("invalid number");
    }
    const p = this.peekOrNull();
    if (p === 0x2e) this.skipDecimal();
    else if (p === 0x65 || p === 0x45) this.skipExponent();
  }

  skipDecimal(): void {
    this.i++;
    let digits = false;
    while (DIGIT(this.peekOrNull())) {
      this.i++;
      digits = true;
    }
    if (!digits) this.peekFail("invalid number");
    const p = this.peekOrNull();
    if (p === 0x65 || p === 0x45) this.skipExponent();
  }

  skipExponent(): void {
    this.i++;
    const s = this.peekOrNull();
    if (s === 0x2b || s === 0x2d) this.i++;
    if (!DIGIT(this.nextOrNull())) this.error("invalid number");
    while (DIGIT(this.peekOrNull())) this.i++;
  }

  /** `ignore_str`: after the opening quote. */
  skipStr(): void {
    const t = this.text;
    for (;;) {
      while (this.i < t.length) {
        const c = t.charCodeAt(this.i);
        if (c === 0x22 || c === 0x5c || c < 0x20) break;
        this.i++;
      }
      if (this.i >= t.length) this.error("EOF while parsing a string");
      const c = t.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c !== 0x5c) this.error("control character (\\u0000-\\u001F) found while parsing a string");
      this.i++;
      if (this.i >= t.length) this.error("EOF while parsing a string");
      const e = t.charCodeAt(this.i++);
      if (e === 0x75) {
        if (this.i + 4 > t.length) {
          this.i = t.length;
          this.error("EOF while parsing a string");
        }
        const n = hex4(t, this.i);
        this.i += 4;
        if (n < 0) this.error("invalid escape");
      } else if (!SIMPLE.includes(e)) {
        this.error("invalid escape");
      }
    }
  }
}

/** The characters of a one-character escape (`\n`): `"`, `\`, `/`, `b`, `f`, `n`, `r`, `t`. */
const SIMPLE = [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];

/** The value of the four hex digits at `at`, or -1. */
function hex4(t: string, at: number): number {
  let n = 0;
  for (let k = at; k < at + 4; k++) {
    const c = t.charCodeAt(k);
    const l = c | 0x20;
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
    if (d < 0) return -1;
    n = n * 16 + d;
  }
  return n;
}
