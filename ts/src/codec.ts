// Decoding and encoding by definition name, and JSON-RPC messages typed by
// method and direction: what every generated module's `codec` offers.

import { decodeAs, unexpected, type Decoded, type Report } from "./decode.js";
import { words, type Wording, type Words } from "./words.js";
import { DecodeError, read, syntaxError, type Duplicates, type Floats } from "./json.js";
import type { JsonObject, JsonValue } from "./runtime.js";
import type { MethodShape, Methods, PayloadShape, Shapes } from "./shape.js";
import { duplicateField } from "./generated/messages.js";

/** The kinds of JSON-RPC message. */
export type Envelope<Request, Notification, Response, Id> =
  | ({ kind: "request"; id: Id } & Request)
  | ({ kind: "notification" } & Notification)
  | ({ kind: "response"; id: Id } & Response)
  | { kind: "error"; id: Id | null; error: JsonValue };

/** A request of an extension method (`_` and a name): its params as JSON. */
export type ExtensionRequest = { method: `_${string}`; params?: JsonValue };
/** A notification of an extension method: its params as JSON. */
export type ExtensionNotification = { method: `_${string}`; params?: JsonValue };
/** The response to a request of an extension method: its result as JSON. */
export type ExtensionResponse = { method: `_${string}`; result: JsonValue };

/** A message of any method, untyped: what the codec of a schema without methods decodes to. */
export type AnyMessage =
  | { kind: "request"; id: JsonValue; method: string; params?: JsonValue }
  | { kind: "notification"; method: string; params?: JsonValue }
  | { kind: "response"; id: JsonValue; method: string; result: JsonValue }
  | { kind: "error"; id: JsonValue; error: JsonValue };

/** What {@link Codec.decodeMessage} checks for one end of a connection. */
export interface DecodeMessageOptions {
  /**
   * The side receiving the message: a request or notification of a method
   * the other side handles is refused as an unknown method (-32601).
   */
  side?: "agent" | "client";
  /**
   * Called for a request once its id is read and before its params are:
   * an error to refuse the request with instead (a duplicate id, a request
   * before `initialize`).
   */
  admit?: (method: string, id: JsonValue) => MessageError | undefined;
}

/** How a message was written, so that it is written back the same way. */
const written: unique symbol = Symbol("acp.written");
interface Written {
  /** The envelope's members in their order, with the ones this package does not read. */
  envelope: JsonObject;
  /** The payload's member (`params` / `result`) was omitted or `null` and decoded as `{}`. */
  form?: "absent" | "null";
}

/**
 * The class of a {@link MessageError}, each with its JSON-RPC error code
 * ({@link errorCodes}): `parse` (not JSON, -32700), `invalid_message` (not a
 * JSON-RPC 2.0 message of this version, -32600), `unknown_method` (a method
 * this version or this side does not handle and that does not start with
 * `_`, -32601), `invalid_payload` (params or result that do not decode,
 * -32602), `duplicate_id` (a request reusing the id of one still unanswered,
 * -32600), `not_initialized` (a request before `initialize` completed,
 * -32600), and the two only a local caller causes (-32603):
 * `unknown_request` (an answer to a request that is not waiting for one) and
 * `response_mismatch` (answering a request with another method's result).
 */
export type MessageErrorKind =
  | "parse"
  | "invalid_message"
  | "unknown_method"
  | "invalid_payload"
  | "unknown_request"
  | "duplicate_id"
  | "response_mismatch"
  | "not_initialized";

/** The JSON-RPC error code of each {@link MessageErrorKind}. */
export const errorCodes: { readonly [K in MessageErrorKind]: number } = {
  parse: -32700,
  invalid_message: -32600,
  unknown_method: -32601,
  invalid_payload: -32602,
  unknown_request: -32603,
  duplicate_id: -32600,
  response_mismatch: -32603,
  not_initialized: -32600,
};

/** A JSON-RPC error object: what an error response carries. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: JsonValue;
}

/**
 * Why a line could not be used as a message: what was wrong, the JSON
 * pointer of the offending value (`/params/update`, `""` for the whole
 * message), its class ({@link MessageErrorKind}, with the JSON-RPC `code`),
 * and whether JSON-RPC asks for an error reply and to which id
 * ({@link MessageError.replyId}).
 */
export class MessageError extends DecodeError {
  constructor(
    message: string,
    pointer: string,
    /** The class of error. */
    readonly kind: MessageErrorKind = "invalid_message",
    /** The id of the message the error is about, when it had a non-null one. */
    readonly id: JsonValue | undefined = undefined,
    /** Whether JSON-RPC asks for an error reply: the line was a request, or not a message at all. */
    readonly needsReply = false,
  ) {
    super(message, pointer);
    this.name = "MessageError";
  }

  /** The JSON-RPC error code of the error's class. */
  get code(): number {
    return errorCodes[this.kind];
  }

  /** The id the error reply goes to: the request's id, `null` when it could not be read, `undefined` when no reply is due. */
  get replyId(): JsonValue | undefined {
    return this.needsReply ? (this.id ?? null) : undefined;
  }

  /** The error with its pointer, on one line (`... (at /params/update)`): the `message` of the error reply. */
  describe(): string {
    const text = oneLine(this.message);
    return this.pointer === "" ? text : `${text} (at ${oneLine(this.pointer)})`;
  }

  /** The error object to answer with: `code`, {@link describe} as `message`, and `data.pointer` when the error points into the message. */
  errorObject(): ErrorObject {
    const o: ErrorObject = { code: this.code, message: this.describe() };
    if (this.pointer !== "") o.data = { pointer: this.pointer };
    return o;
  }

  /** The error about the message with id `id` (`null`: no id), answered when `reply`. */
  about(id: JsonValue | undefined, reply: boolean): MessageError {
    return new MessageError(this.message, this.pointer, this.kind, id === null ? undefined : id, reply);
  }
}

/** Control characters escaped (`\n`, `\u{1b}`), so that a text quoted from a peer stays on one line (Rust's `escape_default`). */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what it escapes
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    return `\\u{${c.charCodeAt(0).toString(16)}}`;
  });
}

/** The JSON-RPC id of a message as a key (`1` and `"1"` differ). */
export const idKey = (id: JsonValue): string => JSON.stringify(id);

/**
 * Decoders and encoders of one schema file's definitions (`Types` maps each
 * name to its type) and of its messages (`M`: the generated `Message`, each
 * request, notification and response typed by its method; `P`: the
 * generated `Protocol`, the same by the side that handles them).
 */
export class Codec<Types, M = AnyMessage, P = unknown> {
  /** The version's methods by the side that handles them (its `Protocol`): a type only, for `Connection`. */
  declare readonly protocol?: P;

  /** How this codec words its errors (the words of its {@link wording}). */
  readonly words: Words;

  constructor(
    readonly shapes: Shapes,
    readonly methods: Methods,
    /**
     * How errors are worded: `"json"` (the default) in JSON's and
     * TypeScript's terms (`expected an array`, `expected an integer from 0
     * to 65535`, an untagged union's arms by their TypeScript types);
     * `"crate"` as the Rust crate says them (`expected a sequence`,
     * `expected u16`, arms by their Rust variants), to compare with it.
     */
    readonly wording: Wording = "json",
  ) {
    this.words = words(wording);
  }

  /** This codec with its errors worded as `wording` says ({@link wording}). */
  withWording(wording: Wording): Codec<Types, M, P> {
    return wording === this.wording ? this : new Codec<Types, M, P>(this.shapes, this.methods, wording);
  }

  /**
   * Decodes JSON text as definition `name`. Throws a {@link DecodeError} (message and JSON pointer) when it
   * does not decode; `reports` lists what the schema's lenient rules dropped
   * or defaulted on the way.
   */
  decode<K extends keyof Types & string>(name: K, text: string): Decoded<Types[K]> {
    return decodeAs(this.shapes, name, { text }, false, this.words) as Decoded<Types[K]>;
  }

  /** {@link decode} for a value already read (by `JSON.parse`, say). */
  decodeValue<K extends keyof Types & string>(name: K, value: JsonValue): Decoded<Types[K]> {
    return decodeAs(this.shapes, name, { value }, false, this.words) as Decoded<Types[K]>;
  }

  /**
   * Encodes `value` of definition `name`: explicit `null`s are written,
   * members the schema does not name are kept, every object keeps its key
   * order, an unknown union arm is written as it came; so a decoded value is
   * written back as it came. (The types say what may be encoded; {@link
   * validate} checks a value built at run time.)
   */
  encode<K extends keyof Types & string>(_name: K, value: Types[K]): string {
    return JSON.stringify(value);
  }

  /**
   * Checks `value` against definition `name` with no leniency (what a
   * decoder would drop or default is an error here): the first problem,
   * with its pointer, or `undefined` when there is none.
   */
  validate<K extends keyof Types & string>(name: K, value: Types[K]): DecodeError | undefined {
    try {
      decodeAs(this.shapes, name, { value: value as JsonValue }, true, this.words);
      return undefined;
    } catch (e) {
      if (e instanceof DecodeError) return e;
      throw e;
    }
  }

  /** The method table entry of `method`, if the schema defines it. */
  method(method: string): MethodShape | undefined {
    return Object.prototype.hasOwnProperty.call(this.methods, method) ? this.methods[method] : undefined;
  }

  /**
   * Decodes one JSON-RPC message: a request or notification by its method,
   * a response by the method of the request it answers (`answers(id)`, for
   * example from a table of pending requests; `undefined` when unknown). An
   * extension method (`_...`) keeps its params as JSON. `options.side` and
   * `options.admit` are what one end of a connection checks
   * ({@link DecodeMessageOptions}).
   *
   * Throws a {@link MessageError} saying what was wrong, where, its JSON-RPC
   * code, and whether and to which id JSON-RPC asks for an error reply.
   */
  decodeMessage(
    text: string,
    answers: (id: JsonValue) => string | undefined = () => undefined,
    options: DecodeMessageOptions = {},
  ): Decoded<M> {
    const { side, admit } = options;
    let raw: JsonValue;
    let floats: Floats | undefined;
    let duplicates: Duplicates | undefined;
    try {
      ({ value: raw, floats, duplicates } = read(text));
    } catch (e) {
      // serde_json's wording when it only checks the text is JSON, as the crate does for a line.
      if (e instanceof DecodeError && e.syntax) {
        const message = this.words.syntax(syntaxError(text) ?? e.message);
        throw new MessageError(`not JSON: ${message}`, "", "parse", undefined, true);
      }
      throw e;
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new MessageError("a JSON-RPC message is an object", "", "invalid_message", undefined, true);
    }
    const o = raw;
    const has = (k: string) => o[k] !== undefined;
    const rawId = (): JsonValue | undefined => (o.id === null ? undefined : (o.id as JsonValue | undefined));
    // A message that is not readable as an envelope is answered with its id (or `null`).
    const unreadable = (message: string, pointer: string) =>
      new MessageError(`not a JSON-RPC message: ${message}`, pointer, "invalid_message", rawId(), true);
    const repeated = duplicates?.repeated.get(o)?.key;
    if (repeated !== undefined) throw unreadable(duplicateField(repeated), `/${repeated}`);
    if (has("method") && typeof o.method !== "string") {
      const found = unexpected(o.method as JsonValue, floats?.has("/method") === true, this.words);
      throw unreadable(`invalid type: ${found}, expected a string`, "/method");
    }
    const method = o.method as string | undefined;
    // An envelope error: a message shaped like a response is never answered.
    const responseShaped = method === undefined && (has("result") || has("error"));
    const invalid = (pointer: string, message: string) =>
      new MessageError(message, pointer, "invalid_message", rawId(), !responseShaped);
    if (o.jsonrpc !== "2.0") throw invalid("/jsonrpc", '`jsonrpc` must be "2.0"');
    const reports: Report[] = [];
    const payload = (
      member: "params" | "result",
      p: PayloadShape | undefined,
      kind: string,
      method: string,
      reply: boolean,
    ): JsonValue | undefined => {
      const v = o[member];
      if (p === undefined) {
        if (method.startsWith("_")) return v;
        const message = `unknown ${kind} method \`${method}\` (extension methods start with \`_\`)`;
        throw new MessageError(message, "/method", "unknown_method", rawId(), reply);
      }
      const refused = (message: string, pointer: string) =>
        new MessageError(message, pointer, "invalid_payload", rawId(), reply);
      let input = v;
      if (v === undefined || v === null) {
        if (p.null === "empty") {
          input = {};
          w.form = v === undefined ? "absent" : "null";
        } else if (p.null === "value") {
          input = null;
        } else {
          throw refused(`\`${method}\` needs a payload object, found ${v === null ? "null" : "none"}`, `/${member}`);
        }
      }
      try {
        const at = { value: input as JsonValue, floats, duplicates, base: `/${member}` };
        const d = decodeAs(this.shapes, p.def, at, false, this.words);
        for (const r of d.reports) reports.push({ ...r, pointer: `/${member}${r.pointer}` });
        return d.value;
      } catch (e) {
        if (e instanceof DecodeError) throw refused(e.message, `/${member}${e.pointer}`);
        throw e;
      }
    };
    const id = (reply: boolean) => {
      const v = o.id as JsonValue;
      if (this.shapes.RequestId !== undefined) {
        try {
          decodeAs(this.shapes, "RequestId", { value: v, floats, duplicates, base: "/id" }, false, this.words);
        } catch (e) {
          if (e instanceof DecodeError)
            throw new MessageError(`invalid request id: ${e.message}`, "/id", "invalid_message", undefined, reply);
          throw e;
        }
      }
      return v;
    };
    // The method's entry, for the side receiving it (`undefined`: not one this side handles).
    const entry = (method: string, notification: boolean): MethodShape | undefined => {
      const m = this.method(method);
      if (m === undefined || side === undefined) return m;
      return m.side === side || (notification && m.side === "protocol") ? m : undefined;
    };
    const w: Written = { envelope: o };
    let message: AnyMessage;
    if (method !== undefined && !has("result") && !has("error")) {
      if (has("id")) {
        const rid = id(true);
        const refusal = admit?.(method, rid);
        if (refusal !== undefined) throw refusal;
        const params = payload("params", entry(method, false)?.request, "request", method, true);
        message = { kind: "request", id: rid, method, ...(params === undefined ? {} : { params }) };
      } else {
        const params = payload("params", entry(method, true)?.notification, "notification", method, false);
        message = { kind: "notification", method, ...(params === undefined ? {} : { params }) };
      }
    } else if (method === undefined && has("id") && has("result") && !has("error")) {
      const rid = id(false);
      const request = answers(rid);
      if (request === undefined) {
        throw new MessageError("a response whose request is not known", "/id", "unknown_request", rawId());
      }
      const result = payload("result", this.method(request)?.response, "response", request, false) as JsonValue;
      message = { kind: "response", id: rid, method: request, result };
    } else if (method === undefined && has("id") && has("error") && !has("result")) {
      message = { kind: "error", id: o.id as JsonValue, error: o.error as JsonValue };
    } else if (method === undefined && !has("id")) {
      throw invalid("/id", "a response without an `id`");
    } else {
      throw invalid("", "not a request, notification or response: check `method`, `id`, `result` and `error`");
    }
    Object.defineProperty(message, written, { value: w, enumerable: false });
    return { value: message as M, reports };
  }

  /** Writes a message: the envelope's members in the order they came (for a decoded one), payloads as {@link encode} writes them. */
  encodeMessage(message: M): string {
    const m = message as AnyMessage;
    const w = (m as { [written]?: Written })[written];
    const fresh: JsonObject = { jsonrpc: "2.0" };
    const members: JsonObject = { ...(w?.envelope ?? fresh) };
    if ("id" in m) members.id = m.id;
    if (m.kind === "request" || m.kind === "notification") {
      members.method = m.method;
      const empty = typeof m.params === "object" && m.params !== null && Object.keys(m.params).length === 0;
      if (w?.form !== undefined && empty) {
        if (w.form === "absent") delete members.params;
        else members.params = null;
      } else if (m.params === undefined) delete members.params;
      else members.params = m.params;
    } else if (m.kind === "response") {
      const empty = typeof m.result === "object" && m.result !== null && Object.keys(m.result).length === 0;
      members.result = w?.form === "null" && empty ? null : m.result;
    } else {
      members.error = m.error;
    }
    return JSON.stringify(members);
  }
}
