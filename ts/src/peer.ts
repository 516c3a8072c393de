// One end of an ACP connection without IO: the same peer as the Rust crate's
// `rpc::Peer`, so both answer the same lines with the same events and replies.

import { idKey, MessageError, type AnyMessage, type DecodeMessageOptions, type ErrorObject } from "./codec.js";
import { DecodeError } from "./json.js";
import type { Decoded, Report } from "./decode.js";
import type { MethodShape, Shapes } from "./shape.js";
import type { JsonValue } from "./runtime.js";

/**
 * What a peer uses of a version's codec (`v2.codec`): any generated module's
 * `codec` is one.
 */
export interface PeerCodec {
  readonly shapes: Shapes;
  method(method: string): MethodShape | undefined;
  decodeMessage(
    text: string,
    answers: (id: JsonValue) => string | undefined,
    options: DecodeMessageOptions,
  ): Decoded<unknown>;
  encodeMessage(message: never): string;
  decodeValue(name: never, value: JsonValue): Decoded<unknown>;
}

/** The two ends of an ACP connection. */
export type Side = "agent" | "client";

/** What one line from the other side means to a {@link Peer} ({@link Peer.receive}). */
export type PeerEvent =
  /** A request for this side; answer it with {@link Peer.respond} or {@link Peer.respondError}. */
  | { kind: "request"; id: JsonValue; method: string; params?: JsonValue; reports: Report[] }
  /** A notification for this side, or one either side handles (`$/cancel_request`). */
  | { kind: "notification"; method: string; params?: JsonValue; reports: Report[] }
  /** The answer to a request this side sent, decoded by the request's method. */
  | { kind: "response"; id: JsonValue; method: string; result: JsonValue; reports: Report[] }
  /**
   * An error answer: to a request this side sent (`method` names it), or
   * with the `null` id (`id` and `method` are `undefined`): the other side
   * could not read something this side sent.
   */
  | { kind: "error"; id: JsonValue | undefined; method: string | undefined; error: ErrorObject }
  /**
   * A line that could not be used, and the error reply to send when JSON-RPC
   * asks for one (the line was a request, or not a message at all). A
   * malformed answer to a pending request ends that request: `error.id`
   * names it and `ended` says so.
   */
  | { kind: "invalid"; error: MessageError; reply: string | undefined; ended?: { id: JsonValue; method: string } };

/**
 * One end of a connection, without IO.
 *
 * It allocates the ids of the requests its side sends ({@link request}),
 * remembers each until it is answered so that the answer decodes as the
 * right type, remembers the requests its side receives until
 * {@link respond} answers them, and turns every line the other side sends
 * into a {@link PeerEvent}. It never reads or writes: the caller moves the
 * lines (one JSON text per line on stdio). `Connection` is this peer over a
 * transport.
 *
 * It checks what the protocol asks of the side it is:
 * - a request or notification of a method the other side handles is an
 *   unknown method (-32601), as is a method neither handles; extension
 *   methods (`_` and a name) pass;
 * - until the connection is initialized (the agent has answered
 *   `initialize`; the client has its answer), a request other than
 *   `initialize` is refused with -32600 and the connection stays as it was;
 *   notifications pass. A peer made with `{ initialized: true }` takes over
 *   a connection already initialized;
 * - a request reusing the id of one still unanswered is refused (-32600);
 *   an answer to a request that is not waiting for one is reported (never
 *   answered).
 *
 * Bad input never throws and leaves the pending requests as they were.
 */
export class Peer {
  private nextId = 0;
  /** Requests sent and not yet answered: id key -> id and method. */
  private readonly sent = new Map<string, { id: JsonValue; method: string }>();
  /** Requests received and not yet answered: id key -> id and method. */
  private readonly received = new Map<string, { id: JsonValue; method: string }>();
  /** The version has `initialize` and the connection is not initialized yet. */
  private gated: boolean;
  private readonly hasErrorShape: boolean;

  constructor(
    readonly codec: PeerCodec,
    readonly side: Side,
    options: { initialized?: boolean } = {},
  ) {
    const init = codec.method("initialize");
    this.gated = options.initialized !== true && init?.side === "agent";
    this.hasErrorShape = codec.shapes.Error !== undefined;
  }

  /** Whether the connection is initialized (always, for a version without `initialize`). */
  get initialized(): boolean {
    return !this.gated;
  }

  /**
   * A request to the other side: allocates its id (integers counting up from
   * 0, skipping ids still pending) and remembers it until {@link receive}
   * sees the answer. Returns the id and the line to send.
   */
  request(method: string, params: JsonValue | undefined): { id: number; line: string } {
    let id: number;
    do id = this.nextId++;
    while (this.sent.has(idKey(id)));
    this.sent.set(idKey(id), { id, method });
    const m = { kind: "request", id, method, ...(params === undefined ? {} : { params }) };
    return { id, line: this.codec.encodeMessage(m as never) };
  }

  /** A notification to the other side (or a `$/` one either side handles). */
  notify(method: string, params: JsonValue | undefined): string {
    const m = { kind: "notification", method, ...(params === undefined ? {} : { params }) };
    return this.codec.encodeMessage(m as never);
  }

  /**
   * Answers a request received with {@link receive}. Throws a
   * {@link MessageError} (`unknown_request`), and changes nothing, when no
   * request with `id` is waiting for an answer.
   */
  respond(id: JsonValue, result: JsonValue): string {
    const { method } = this.waiting(id);
    this.received.delete(idKey(id));
    if (method === "initialize" && this.side === "agent") this.gated = false;
    return this.codec.encodeMessage({ kind: "response", id, method, result } as never);
  }

  /** Answers a request received with {@link receive} with an error; throws as {@link respond} does. */
  respondError(id: JsonValue, error: ErrorObject): string {
    this.waiting(id);
    this.received.delete(idKey(id));
    return this.codec.encodeMessage({ kind: "error", id, error: error as unknown as JsonValue } as never);
  }

  /** The requests this side sent that are waiting for an answer. */
  pending(): { id: JsonValue; method: string }[] {
    return [...this.sent.values()];
  }

  /** The requests this side received and has not answered. */
  unanswered(): { id: JsonValue; method: string }[] {
    return [...this.received.values()];
  }

  /**
   * Stops waiting for the answer to a request this side sent (after a
   * timeout, say); a late answer is then an `unknown_request`. Returns its method.
   */
  forget(id: JsonValue): string | undefined {
    const w = this.sent.get(idKey(id));
    this.sent.delete(idKey(id));
    return w?.method;
  }

  /** What one line from the other side means. Never throws. */
  receive(line: string): PeerEvent {
    let missing: JsonValue | undefined;
    const answers = (id: JsonValue) => {
      const w = this.sent.get(idKey(id));
      if (w === undefined) missing = id;
      return w?.method;
    };
    const admit = (method: string, id: JsonValue): MessageError | undefined => {
      const first = this.received.get(idKey(id));
      if (first !== undefined) {
        const message = `request id ${show(id)} is already in use by an unanswered \`${first.method}\` request`;
        return new MessageError(message, "/id", "duplicate_id", id);
      }
      if (this.gated && !(this.side === "agent" && method === "initialize")) {
        const message =
          this.side === "agent"
            ? `\`${method}\` before \`initialize\`: the connection is not initialized`
            : `\`${method}\` before the answer to \`initialize\`: the connection is not initialized`;
        return new MessageError(message, "/method", "not_initialized", id, true);
      }
      return undefined;
    };
    let m: AnyMessage;
    let reports: Report[];
    try {
      ({ value: m, reports } = this.codec.decodeMessage(line, answers, {
        side: this.side,
        admit,
      }) as Decoded<AnyMessage>);
    } catch (e) {
      if (!(e instanceof MessageError)) throw e;
      if (e.kind === "unknown_request" && missing !== undefined) {
        const message = `an answer to request ${show(missing)}, which is not waiting for one`;
        return this.invalid(new MessageError(message, "/id", "unknown_request", missing));
      }
      // A malformed answer ends the request it answers.
      if (e.kind === "invalid_payload" && e.id !== undefined && e.pointer.startsWith("/result")) {
        const w = this.sent.get(idKey(e.id));
        this.sent.delete(idKey(e.id));
        return this.invalid(e, w);
      }
      return this.invalid(e);
    }
    switch (m.kind) {
      case "request":
        this.received.set(idKey(m.id), { id: m.id, method: m.method });
        return { kind: "request", id: m.id, method: m.method, ...params(m.params), reports };
      case "notification":
        return { kind: "notification", method: m.method, ...params(m.params), reports };
      case "response": {
        this.sent.delete(idKey(m.id));
        if (m.method === "initialize" && this.side === "client") this.gated = false;
        return { kind: "response", id: m.id, method: m.method, result: m.result, reports };
      }
      case "error":
        return this.error(m.id, m.error);
    }
  }

  /** An error answer: its id checked against the pending requests, its error object decoded. */
  private error(id: JsonValue, error: JsonValue): PeerEvent {
    const known = id === null ? undefined : id;
    if (known !== undefined) {
      try {
        this.codec.decodeValue("RequestId" as never, known);
      } catch (e) {
        if (e instanceof DecodeError) {
          return this.invalid(new MessageError(`invalid request id: ${e.message}`, "/id", "invalid_message"));
        }
        throw e;
      }
      if (!this.sent.has(idKey(known))) {
        const message = `an answer to request ${show(known)}, which is not waiting for one`;
        return this.invalid(new MessageError(message, "/id", "unknown_request", known));
      }
    }
    const w = known === undefined ? undefined : this.sent.get(idKey(known));
    if (known !== undefined) this.sent.delete(idKey(known));
    let object = error as unknown as ErrorObject;
    if (this.hasErrorShape) {
      try {
        object = this.codec.decodeValue("Error" as never, error).value as ErrorObject;
      } catch (e) {
        if (e instanceof DecodeError) {
          const err = new MessageError(e.message, `/error${e.pointer}`, "invalid_payload", known);
          return this.invalid(err, w);
        }
        throw e;
      }
    }
    return { kind: "error", id: known, method: w?.method, error: object };
  }

  /**
   * A line longer than the transport's limit, dropped unread: the `invalid` event, answered
   * -32600 with the `null` id (it may have been a request).
   */
  oversized(limit: number): PeerEvent {
    const message = `a message of more than ${limit} bytes (the connection's limit)`;
    return this.invalid(new MessageError(message, "", "invalid_message", undefined, true));
  }

  /** The `invalid` event of `error`, with the reply JSON-RPC asks for, and the pending request it `ended`. */
  private invalid(error: MessageError, ended?: { id: JsonValue; method: string }): PeerEvent {
    const id = error.replyId;
    const reply =
      id === undefined
        ? undefined
        : this.codec.encodeMessage({ kind: "error", id, error: error.errorObject() } as never);
    return ended === undefined ? { kind: "invalid", error, reply } : { kind: "invalid", error, reply, ended };
  }

  /** The received request `id`, or the error that none is waiting. */
  private waiting(id: JsonValue): { id: JsonValue; method: string } {
    const w = this.received.get(idKey(id));
    if (w === undefined) {
      throw new MessageError(`no request ${show(id)} is waiting for an answer`, "", "unknown_request");
    }
    return w;
  }
}

function params(p: JsonValue | undefined): { params?: JsonValue } {
  return p === undefined ? {} : { params: p };
}

/** An id as JSON, for messages. */
function show(id: JsonValue): string {
  return JSON.stringify(id);
}
