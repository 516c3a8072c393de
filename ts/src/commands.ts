// The commands of `node dist/src/cli.js check-messages|replay ...`: those of
// the Rust `acp-tools`, with the same arguments, output lines and exit codes,
// so one set of captured messages checks both packages. Errors are worded as
// the crate words them (`--wording crate`, the default here) so that the lines
// compare; `--wording json` words them as the package's codecs do.
//
// `run` takes the arguments and where to write, so that one process can run
// many command lines (the differential tests do, rather than start Node for
// each); `cli.js` runs it once on the process's own.

import { readFileSync } from "node:fs";

import { idKey, oneLine, type AnyMessage, type Codec } from "./codec.js";
import { DecodeError, escapeToken, parse } from "./json.js";
import type { JsonValue } from "./runtime.js";
import { eachLine, NotUtf8, utf8 } from "./lines.js";
import { SessionReducer } from "./session.js";
import type { ReducerShape } from "./shape.js";
import type { Wording } from "./words.js";
import * as v1 from "./generated/v1.js";
import * as v1u from "./generated/v1.unstable.js";
import * as v2 from "./generated/v2.js";
import * as v2u from "./generated/v2.unstable.js";

type AnyCodec = Codec<{ [name: string]: unknown }, AnyMessage>;

/** Where a command writes: stdout and stderr, each a piece of text at a time. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** The streams of the command being run (`run` is synchronous, so one at a time). */
let io: Io = { out: () => undefined, err: () => undefined };

/** An error of use: said with the usage on stderr, exit code 2. */
class Usage extends Error {}

const USAGE = `usage: cli.js check-messages --protocol v1|v2 [--unstable] [--wording crate|json] [--method M] [--type DEF] FILE...
       cli.js replay --protocol v2 [--unstable] [--wording crate|json] [--compact] TRACE.jsonl`;

/** An unreadable file's error as Rust's `std::io::Error` words it (`No such file or directory (os error 2)`). */
function ioError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const known: { [code: string]: string } = {
    ENOENT: "No such file or directory (os error 2)",
    EACCES: "Permission denied (os error 13)",
    EISDIR: "Is a directory (os error 21)",
  };
  return (err.code !== undefined ? known[err.code] : undefined) ?? err.message;
}

/** A file's error, or a line's that is not UTF-8, as `acp-tools` words it. */
function readError(e: unknown): string {
  return e instanceof NotUtf8 ? e.message : ioError(e);
}

/** Reads a file as UTF-8, or says why not on stderr (`undefined`; Rust's `read_to_string` names no place). */
function read(path: string): string | undefined {
  try {
    return utf8(readFileSync(path));
  } catch (e) {
    const why = e instanceof NotUtf8 ? "stream did not contain valid UTF-8" : ioError(e);
    io.err(`error: ${path}: ${why}\n`);
    return undefined;
  }
}

/** Calls `f` on each line of `path` (a line at a time), or says why it stopped on stderr (`false`). */
function lines(path: string, f: (line: string, number: number) => void): boolean {
  try {
    eachLine(path, f);
    return true;
  } catch (e) {
    if (!(e instanceof NotUtf8) && !(e as NodeJS.ErrnoException).code) throw e;
    io.err(`error: ${path}: ${readError(e)}\n`);
    return false;
  }
}

function say(line: string): void {
  io.out(line + "\n");
}

function usage(message: string): never {
  throw new Usage(message);
}

interface Args {
  protocol: "v1" | "v2";
  unstable: boolean;
  wording: Wording;
  method: string | undefined;
  type: string | undefined;
  compact: boolean;
  files: string[];
}

function args(rest: string[]): Args {
  const a: Partial<Args> & { files: string[]; unstable: boolean; compact: boolean; wording: Wording } = {
    files: [],
    unstable: false,
    compact: false,
    wording: "crate",
  };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    const value = () => rest[++i] ?? usage(`${arg} needs a value`);
    if (arg === "--protocol") {
      const p = value();
      if (p !== "v1" && p !== "v2") usage(`invalid value '${p}' for '--protocol' (possible values: v1, v2)`);
      a.protocol = p;
    } else if (arg === "--wording") {
      const w = value();
      if (w !== "crate" && w !== "json") usage(`invalid value '${w}' for '--wording' (possible values: crate, json)`);
      a.wording = w;
    } else if (arg === "--unstable") a.unstable = true;
    else if (arg === "--compact") a.compact = true;
    else if (arg === "--method") a.method = value();
    else if (arg === "--type") a.type = value();
    else if (arg.startsWith("--")) usage(`unexpected argument '${arg}'`);
    else a.files.push(arg);
  }
  if (a.protocol === undefined) usage("--protocol is required");
  const { protocol, unstable, wording, method, type, compact, files } = a;
  return { protocol, unstable, wording, method, type, compact, files };
}

function codecOf(a: Args): AnyCodec {
  const m = a.protocol === "v1" ? (a.unstable ? v1u : v1) : a.unstable ? v2u : v2;
  return m.codec.withWording(a.wording) as unknown as AnyCodec;
}

/** Every pointer where `a` and `b` differ, members in sorted order (as `acp-tools`). */
function differences(a: unknown, b: unknown, at = "", out: string[] = []): string[] {
  const obj = (v: unknown): v is { [k: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);
  if (obj(a) && obj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const p = `${at}/${escapeToken(k)}`;
      if (k in a && k in b) differences(a[k], b[k], p, out);
      else out.push(p);
    }
  } else if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i < a.length && i < b.length) differences(a[i], b[i], `${at}/${i}`, out);
      else out.push(`${at}/${i}`);
    }
  } else if (a !== b) {
    out.push(at);
  }
  return out;
}

const shown = (p: string) => (p === "" ? "(root)" : p);

class Checker {
  pending = new Map<string, string>();
  constructor(
    readonly codec: AnyCodec,
    readonly a: Args,
  ) {}

  check(text: string): string {
    let original: JsonValue;
    try {
      original = parse(text, { duplicates: "last", wording: this.a.wording }).value;
    } catch (e) {
      if (e instanceof DecodeError) return `rejected at (root): malformed JSON: ${oneLine(e.message)}`;
      throw e;
    }
    let again: string;
    try {
      again = this.a.type === undefined ? this.message(text) : this.bare(this.a.type, text);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return `rejected at ${oneLine(shown(e.pointer))}: ${oneLine(e.message)}`;
    }
    const d = differences(original, JSON.parse(again));
    return d.length === 0 ? "exact" : `differs ${d.map(shown).join(" ")}`;
  }

  bare(type: string, text: string): string {
    if (this.codec.shapes[type] === undefined) {
      const v = this.a.protocol === "v1" ? "V1" : "V2";
      throw new DecodeError(`no definition \`${type}\` in ${v} (check --protocol and --unstable)`, "");
    }
    return this.codec.encode(type, this.codec.decode(type, text).value);
  }

  message(text: string): string {
    const answer = (id: JsonValue) => {
      const k = idKey(id);
      const m = this.pending.get(k);
      this.pending.delete(k);
      return m ?? this.a.method;
    };
    const m: AnyMessage = this.codec.decodeMessage(text, answer).value;
    if (m.kind === "request") this.pending.set(idKey(m.id), m.method);
    return this.codec.encodeMessage(m);
  }
}

function checkMessages(a: Args): number {
  const codec = codecOf(a);
  if (a.files.length === 0) usage("the following required arguments were not provided: <PATHS>...");
  const total = { exact: 0, differs: 0, rejected: 0 };
  for (const path of a.files) {
    const checker = new Checker(codec, a);
    const tally = (at: string, outcome: string) => {
      say(`${at}: ${outcome}`);
      if (outcome === "exact") total.exact++;
      else if (outcome.startsWith("differs")) total.differs++;
      else total.rejected++;
    };
    if (path.endsWith(".jsonl")) {
      // A trace is read a line at a time: any length, in the memory of one line.
      const whole = lines(path, (line, n) => {
        if (line.trim() !== "") tally(`${path}:${n}`, checker.check(line));
      });
      if (!whole) return 2;
    } else {
      const text = read(path);
      if (text === undefined) return 2;
      tally(path, checker.check(text));
    }
  }
  say(`${total.exact} exact, ${total.differs} differs, ${total.rejected} rejected`);
  return total.differs === 0 && total.rejected === 0 ? 0 : 1;
}

function replay(a: Args): number {
  if (a.protocol === "v1") {
    io.err("error: replay folds v2 upserts; v1 has no upsert semantics (use --protocol v2)\n");
    return 2;
  }
  const [path] = a.files;
  if (path === undefined || a.files.length > 1) usage("replay takes one trace");
  const codec = codecOf(a);
  // The messages are decoded by the codec of the same build; the reducer takes its update untyped here.
  const state = new SessionReducer<JsonValue>((a.unstable ? v2u : v2).reducer as unknown as ReducerShape<JsonValue>);
  const pending = new Map<string, string>();
  const sessions: string[] = [];
  // Said after the whole trace is read, as `acp-tools` says them (nothing but the error when a line stops it).
  const rejected: string[] = [];
  const whole = lines(path, (line, n) => {
    if (line.trim() === "") return;
    try {
      const answer = (id: JsonValue) => {
        const m = pending.get(idKey(id));
        pending.delete(idKey(id));
        return m;
      };
      const m = codec.decodeMessage(line, answer).value;
      if (m.kind === "request") pending.set(idKey(m.id), m.method);
      if (m.kind === "notification" && m.method === "session/update" && typeof m.params === "object") {
        const { update, sessionId } = m.params as { update?: JsonValue; sessionId?: JsonValue };
        if (typeof sessionId === "string" && !sessions.includes(sessionId)) sessions.push(sessionId);
        if (update !== undefined) state.apply(update);
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      rejected.push(`${path}:${n}: rejected at ${oneLine(shown(e.pointer))}: ${oneLine(e.message)}`);
    }
  });
  if (!whole) return 2;
  for (const r of rejected) io.err(r + "\n");
  if (!a.compact) say(JSON.stringify(state.toJSON(), null, 2));
  else if (sessions.length > 1) {
    const many = `${sessions.length} sessions (${sessions.join(", ")})`;
    io.err(`error: ${path}: the trace updates ${many}; --compact writes the stream of one\n`);
    return 2;
  } else {
    // The stream that rebuilds the state (`SessionReducer.compact`), as session/update notifications.
    for (const update of sessions.length === 0 ? [] : state.compact()) {
      say(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: sessions[0], update } }));
    }
  }
  return rejected.length === 0 ? 0 : 1;
}

/** Runs one command line (the arguments after the program's name), writing to `streams`; the exit code. */
export function run(line: readonly string[], streams: Io): number {
  io = streams;
  try {
    return command(line);
  } catch (e) {
    if (!(e instanceof Usage)) throw e;
    io.err(`error: ${e.message}\n${USAGE}\n`);
    return 2;
  }
}

function command(line: readonly string[]): number {
  const [command, ...rest] = line;
  if (command === "--help" || command === "-h" || rest.includes("--help") || rest.includes("-h")) {
    say(USAGE);
    return 0;
  }
  if (command === "check-messages") return checkMessages(args(rest));
  if (command === "replay") return replay(args(rest));
  return usage(command === undefined ? "a command is required" : `unrecognized subcommand '${command}'`);
}
