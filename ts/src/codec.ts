// Decoding and encoding by definition name, and JSON-RPC messages typed by
// method and direction: what every generated module's `codec` offers.

import { decodeAs, unexpected, type Decoded, type Report } from "./decode.js";
import { DecodeError, read, type Duplicates } from "./json.js";
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

/** How a message was written, so that it is written back the same way. */
const written: unique symbol = Symbol("acp.written");
interface Written {
  /** The envelope's members in their order, with the ones this package does not read. */
  envelope: JsonObject;
  /** The payload's member (`params` / `result`) was omitted or `null` and decoded as `{}`. */
  form?: "absent" | "null";
}

/** An error about a message, with the pointer into it (`/params/update`). */
export class MessageError extends DecodeError {}

/** The JSON-RPC id of a message as a key (`1` and `"1"` differ). */
export const idKey = (id: JsonValue): string => JSON.stringify(id);

/**
 * Decoders and encoders of one schema file's definitions (`Types` maps each
 * name to its type) and of its messages (`M`: the generated `Message`, each
 * request, notification and response typed by its method).
 */
export class Codec<Types, M = AnyMessage> {
  constructor(
    readonly shapes: Shapes,
    readonly methods: Methods,
  ) {}

  /**
   * Decodes JSON text as definition `name`. Throws a {@link DecodeError} (message and JSON pointer) when it
   * does not decode; `reports` lists what the schema's lenient rules dropped
   * or defaulted on the way.
   */
  decode<K extends keyof Types & string>(name: K, text: string): Decoded<Types[K]> {
    return decodeAs(this.shapes, name, { text }) as Decoded<Types[K]>;
  }

  /** {@link decode} for a value already read (by `JSON.parse`, say). */
  decodeValue<K extends keyof Types & string>(name: K, value: JsonValue): Decoded<Types[K]> {
    return decodeAs(this.shapes, name, { value }) as Decoded<Types[K]>;
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
      decodeAs(this.shapes, name, { value: value as JsonValue }, true);
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
   * extension method (`_...`) keeps its params as JSON.
   */
  decodeMessage(text: string, answers: (id: JsonValue) => string | undefined = () => undefined): Decoded<M> {
    let raw: JsonValue;
    let floats: Set<string> | undefined;
    let duplicates: Duplicates | undefined;
    try {
      ({ value: raw, floats, duplicates } = read(text));
    } catch (e) {
      if (e instanceof DecodeError && e.syntax) throw new MessageError(`not JSON: ${e.message}`, "");
      throw e;
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new MessageError("a JSON-RPC message is an object", "");
    }
    const o = raw;
    const repeated = duplicates?.repeated.get(o)?.key;
    if (repeated !== undefined) {
      throw new MessageError(`not a JSON-RPC message: ${duplicateField(repeated)}`, `/${repeated}`);
    }
    if (o.jsonrpc !== "2.0") throw new MessageError('`jsonrpc` must be "2.0"', "/jsonrpc");
    const has = (k: string) => o[k] !== undefined;
    if (has("method") && typeof o.method !== "string") {
      throw new MessageError(`not a JSON-RPC message: invalid type: ${unexpected(o.method, floats?.has("/method") === true)}, expected a string`, "/method");
    }
    const method = o.method as string | undefined;
    const reports: Report[] = [];
    const payload = (
      member: "params" | "result",
      p: PayloadShape | undefined,
      kind: string,
      method: string,
    ): JsonValue | undefined => {
      const v = o[member];
      if (p === undefined) {
        if (method.startsWith("_")) return v;
        throw new MessageError(`unknown ${kind} method \`${method}\` (extension methods start with \`_\`)`, "/method");
      }
      let input = v;
      if (v === undefined || v === null) {
        if (p.null === "empty") {
          input = {};
          w.form = v === undefined ? "absent" : "null";
        } else if (p.null === "value") {
          input = null;
        } else {
          throw new MessageError(`\`${method}\` needs a payload object, found ${v === null ? "null" : "none"}`, `/${member}`);
        }
      }
      try {
        const d = decodeAs(this.shapes, p.def, { value: input as JsonValue, floats, duplicates, base: `/${member}` });
        for (const r of d.reports) reports.push({ ...r, pointer: `/${member}${r.pointer}` });
        return d.value;
      } catch (e) {
        if (e instanceof DecodeError) throw new MessageError(e.message, `/${member}${e.pointer}`);
        throw e;
      }
    };
    const id = () => {
      const v = o.id as JsonValue;
      if (this.shapes.RequestId !== undefined) {
        try {
          decodeAs(this.shapes, "RequestId", { value: v, floats, duplicates, base: "/id" });
        } catch (e) {
          if (e instanceof DecodeError) throw new MessageError(`invalid request id: ${e.message}`, "/id");
          throw e;
        }
      }
      return v;
    };
    const w: Written = { envelope: o };
    let message: AnyMessage;
    if (method !== undefined && !has("result") && !has("error")) {
      const m = this.method(method);
      if (has("id")) {
        const rid = id();
        const params = payload("params", m?.request, "request", method);
        message = { kind: "request", id: rid, method, ...(params === undefined ? {} : { params }) };
      } else {
        const params = payload("params", m?.notification, "notification", method);
        message = { kind: "notification", method, ...(params === undefined ? {} : { params }) };
      }
    } else if (method === undefined && has("id") && has("result") && !has("error")) {
      const request = answers(o.id as JsonValue);
      if (request === undefined) throw new MessageError("a response whose request is not known", "/id");
      const rid = id();
      const result = payload("result", this.method(request)?.response, "response", request) as JsonValue;
      message = { kind: "response", id: rid, method: request, result };
    } else if (method === undefined && has("id") && has("error") && !has("result")) {
      message = { kind: "error", id: o.id as JsonValue, error: o.error as JsonValue };
    } else if (method === undefined && !has("id")) {
      throw new MessageError("a response without an `id`", "/id");
    } else {
      throw new MessageError(
        "not a request, notification or response: check `method`, `id`, `result` and `error`",
        "",
      );
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
