// A connection: the sans-IO peer (`peer.ts`) over a transport of lines, with
// handlers typed by method and direction, typed requests, cancellation and
// JSON-RPC errors.

import type { ErrorObject } from "./codec.js";
import { idKey, type MessageError } from "./codec.js";
import type { Report } from "./decode.js";
import { Peer, type PeerCodec, type PeerEvent, type Side } from "./peer.js";
import type { JsonValue } from "./runtime.js";
import type { Line, Transport } from "./transport.js";

/** The JSON-RPC error codes ACP uses. */
export const ErrorCode = {
  /** The line is not JSON. */
  parseError: -32700,
  /** Not a valid JSON-RPC request (or a request before `initialize`). */
  invalidRequest: -32600,
  /** A method the receiving side does not handle. */
  methodNotFound: -32601,
  /** Params that do not decode as the method's. */
  invalidParams: -32602,
  /** The handler failed. */
  internalError: -32603,
  /** The request was cancelled (`$/cancel_request`). */
  requestCancelled: -32800,
  /** Authentication is required first. */
  authRequired: -32000,
  /** A resource (a session, a file) does not exist. */
  resourceNotFound: -32002,
} as const;

/**
 * A JSON-RPC error: what a handler throws to answer with an error, and what
 * a request rejects with when the other side answers with one.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: JsonValue,
  ) {
    super(message);
    this.name = "RpcError";
  }

  /** The error object of an error response. */
  toObject(): ErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** The error of an error object received. */
  static from(object: ErrorObject): RpcError {
    return new RpcError(object.code, object.message, object.data);
  }

  /** -32600: not a valid request. */
  static invalidRequest(message = "invalid request", data?: JsonValue): RpcError {
    return new RpcError(ErrorCode.invalidRequest, message, data);
  }

  /** -32601: the method is not handled here; `data.method` names it. */
  static methodNotFound(method: string): RpcError {
    return new RpcError(ErrorCode.methodNotFound, `method not found: \`${method}\``, { method });
  }

  /** -32602: the params are not acceptable. */
  static invalidParams(message = "invalid params", data?: JsonValue): RpcError {
    return new RpcError(ErrorCode.invalidParams, message, data);
  }

  /** -32603: the handler failed. */
  static internalError(message = "internal error", data?: JsonValue): RpcError {
    return new RpcError(ErrorCode.internalError, message, data);
  }

  /** -32800: the request was cancelled. */
  static requestCancelled(message = "request cancelled"): RpcError {
    return new RpcError(ErrorCode.requestCancelled, message);
  }

  /** -32000: authentication is required. */
  static authRequired(message = "authentication required", data?: JsonValue): RpcError {
    return new RpcError(ErrorCode.authRequired, message, data);
  }

  /** -32002: a resource does not exist (a session, say); `data.uri` names it when given. */
  static resourceNotFound(uri?: string): RpcError {
    return uri === undefined
      ? new RpcError(ErrorCode.resourceNotFound, "resource not found")
      : new RpcError(ErrorCode.resourceNotFound, `resource not found: ${uri}`, { uri });
  }
}

/** What each generated module's `Protocol` is: its methods by the side that handles them. */
export interface ProtocolShape {
  agent: SideShape;
  client: SideShape;
  anySide: { method: string; params: unknown };
  id: JsonValue;
}

/** The methods one side handles: requests with params, their results, notifications with params. */
export interface SideShape {
  requests: { method: string; params: unknown };
  responses: { method: string; result: unknown };
  notifications: { method: string; params: unknown };
}

/** The side at the other end. */
export type OtherSide<S extends Side> = S extends "agent" ? "client" : "agent";

/** An extension method: `_` and a name. */
export type ExtensionMethod = `_${string}`;

type ParamsOf<U, K> = U extends { method: K; params: infer X } ? X : never;
type ResultOf<U, K> = U extends { method: K; result: infer X } ? X : never;

/** The requests side `S` handles: the methods of the schema, and extension methods. */
export type RequestMethod<P extends ProtocolShape, S extends Side> = P[S]["requests"]["method"] | ExtensionMethod;
/** The notifications side `S` handles: its own, those either side handles, and extension methods. */
export type NotificationMethod<P extends ProtocolShape, S extends Side> =
  | P[S]["notifications"]["method"]
  | P["anySide"]["method"]
  | ExtensionMethod;

/** The params of request `K` to side `S` (an extension method's: any JSON, or none). */
export type RequestParams<P extends ProtocolShape, S extends Side, K> = K extends P[S]["requests"]["method"]
  ? ParamsOf<P[S]["requests"], K>
  : JsonValue | undefined;
/** The result side `S` answers request `K` with (an extension method's: any JSON). */
export type RequestResult<P extends ProtocolShape, S extends Side, K> = K extends P[S]["responses"]["method"]
  ? ResultOf<P[S]["responses"], K>
  : JsonValue;
/** The params of notification `K` to side `S`. */
export type NotificationParams<P extends ProtocolShape, S extends Side, K> = K extends P[S]["notifications"]["method"]
  ? ParamsOf<P[S]["notifications"], K>
  : K extends P["anySide"]["method"]
    ? ParamsOf<P["anySide"], K>
    : JsonValue | undefined;

/** What a request handler gets besides the params. */
export interface RequestContext {
  /** The request's id. */
  readonly id: JsonValue;
  /** The request's method. */
  readonly method: string;
  /** Aborted when the other side cancels the request (`$/cancel_request`) or the connection closes. */
  readonly signal: AbortSignal;
  /** What the lenient rules dropped or defaulted while decoding the params. */
  readonly reports: readonly Report[];
}

/** What a notification handler gets besides the params. */
export interface NotificationContext {
  readonly method: string;
  readonly reports: readonly Report[];
}

/** Options of a {@link Connection}. */
export interface ConnectionOptions {
  /** The connection is already initialized (taken over mid-stream): no request is refused for coming before `initialize`. */
  initialized?: boolean;
  /**
   * Called with what the lenient rules dropped or defaulted in a message
   * (never for a message decoded without loss). Default: nothing is done.
   */
  onReports?: (reports: readonly Report[], message: { method: string; id?: JsonValue }) => void;
  /**
   * Called for a line that could not be used (the error reply, when JSON-RPC
   * asks for one, is sent already). Default: nothing is done.
   */
  onInvalid?: (error: MessageError, line: string) => void;
  /**
   * Called for failures nobody awaits: a notification handler that threw,
   * an error answer with the `null` id (the other side could not read
   * something this side sent), a write that failed. Default: `console.error`.
   */
  onError?: (error: unknown) => void;
}

type RequestHandler = (params: never, cx: RequestContext) => unknown;
/** A request sent, waiting for its answer. */
type Waiter = { resolve: (v: never) => void; reject: (e: unknown) => void };
type NotificationHandler = (params: never, cx: NotificationContext) => unknown;

/**
 * One end of an ACP connection over a transport: `side` is the end this
 * process is (`"agent"` or `"client"`), `codec` the version's (`v2.codec`),
 * whose `Protocol` types every handler and request.
 *
 * - `onRequest(method, handler)`: the handler gets the decoded params and a
 *   {@link RequestContext}, and returns (or resolves to) the result. It
 *   throws an {@link RpcError} to answer with that error; any other error is
 *   answered -32603; once the request is cancelled, a rejection is answered
 *   -32800. A request with no handler is answered -32601, as is a method of
 *   the other side.
 * - `onNotification(method, handler)`: notifications with no handler are
 *   dropped (extension notifications included); `$/cancel_request` aborts
 *   the handler's `signal` before any handler of it runs.
 * - `request(method, params, { signal })` resolves to the typed result,
 *   rejects with an {@link RpcError} when the other side answers with an
 *   error, and with -32800 when `signal` aborts (`$/cancel_request` is sent).
 * - Until the connection is initialized, requests other than `initialize`
 *   are refused with -32600 (`options.initialized` for a connection already
 *   initialized). Lines that are not messages of the version are answered
 *   as JSON-RPC asks (-32700, -32600, -32602) and reported to
 *   `options.onInvalid`.
 *
 * Register the handlers before the first `await`: lines are read from the
 * next turn of the event loop on.
 */
export class Connection<P extends ProtocolShape, S extends Side> {
  /** The sans-IO peer underneath: ids, pending requests, decoding. */
  readonly peer: Peer;
  /** Settles when the transport's input ends (or {@link close} is called): pending requests are rejected, handlers aborted. */
  readonly closed: Promise<void>;

  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  /** The requests sent and waiting for their answer, by id key. */
  private readonly waiting = new Map<string, Waiter>();
  private readonly running = new Map<string, AbortController>();
  private readonly canCancel: boolean;
  private ended = false;

  constructor(
    codec: PeerCodec & { readonly protocol?: P },
    readonly side: S,
    private readonly transport: Transport,
    private readonly options: ConnectionOptions = {},
  ) {
    this.peer = new Peer(codec, side, options.initialized === undefined ? {} : { initialized: options.initialized });
    this.canCancel = codec.method("$/cancel_request") !== undefined;
    this.closed = this.read();
  }

  /** Handles requests of `method` (one handler per method; a later one replaces it). */
  onRequest<K extends RequestMethod<P, S>>(
    method: K,
    handler: (
      params: RequestParams<P, S, K>,
      cx: RequestContext,
    ) => RequestResult<P, S, K> | Promise<RequestResult<P, S, K>>,
  ): this {
    this.requestHandlers.set(method, handler as RequestHandler);
    return this;
  }

  /** Handles notifications of `method` (one handler per method; a later one replaces it). */
  onNotification<K extends NotificationMethod<P, S>>(
    method: K,
    handler: (params: NotificationParams<P, S, K>, cx: NotificationContext) => void | Promise<void>,
  ): this {
    this.notificationHandlers.set(method, handler as NotificationHandler);
    return this;
  }

  /** Sends a request to the other side and resolves to its typed result. */
  request<K extends RequestMethod<P, OtherSide<S>>>(
    method: K,
    params: RequestParams<P, OtherSide<S>, K>,
    options: { signal?: AbortSignal } = {},
  ): Promise<RequestResult<P, OtherSide<S>, K>> {
    const { signal } = options;
    if (this.ended) return Promise.reject(new RpcError(ErrorCode.internalError, "the connection is closed"));
    if (signal?.aborted === true) return Promise.reject(RpcError.requestCancelled());
    const { id, line } = this.peer.request(method, params as JsonValue | undefined);
    const key = idKey(id);
    return new Promise<RequestResult<P, OtherSide<S>, K>>((resolve, reject) => {
      const abort = () => {
        if (!this.waiting.delete(key)) return;
        // The answer still comes; the peer keeps the id pending so that it decodes, and it is dropped.
        if (this.canCancel) void this.send(this.peer.notify("$/cancel_request", { requestId: id }));
        reject(RpcError.requestCancelled());
      };
      // Settling removes the abort listener, so that a long-lived signal does not hold every request.
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          signal?.removeEventListener("abort", abort);
          f(v);
        };
      this.waiting.set(key, { resolve: settle(resolve as (v: never) => void), reject: settle(reject) });
      signal?.addEventListener("abort", abort, { once: true });
      // A line that cannot be written is never answered: the request fails with the write's error.
      this.transport.write(line).catch((e: unknown) => {
        this.peer.forget(id);
        this.take(id)?.reject(e);
      });
    });
  }

  /** Sends a notification to the other side (or one either side handles). */
  notify<K extends NotificationMethod<P, OtherSide<S>>>(
    method: K,
    params: NotificationParams<P, OtherSide<S>, K>,
  ): Promise<void> {
    return this.send(this.peer.notify(method, params as JsonValue | undefined));
  }

  /** Closes the transport: pending requests are rejected and running handlers aborted. */
  async close(): Promise<void> {
    await this.transport.close();
    this.finish();
  }

  private send(line: string): Promise<void> {
    return this.transport.write(line).catch((e: unknown) => this.error(e));
  }

  private error(e: unknown): void {
    if (this.options.onError !== undefined) this.options.onError(e);
    else console.error(e);
  }

  private async read(): Promise<void> {
    // Lines are read from the next turn on, so that handlers registered after the constructor see every message.
    await Promise.resolve();
    try {
      for await (const line of this.transport.lines()) {
        if (this.ended) break;
        this.receive(line);
      }
    } catch (e) {
      this.error(e);
    } finally {
      this.finish();
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const w of this.waiting.values()) w.reject(new RpcError(ErrorCode.internalError, "the connection is closed"));
    this.waiting.clear();
    for (const c of this.running.values()) c.abort(new RpcError(ErrorCode.internalError, "the connection is closed"));
    this.running.clear();
  }

  private receive(line: Line): void {
    if (typeof line === "string") this.dispatch(this.peer.receive(line), line);
    else this.dispatch(this.peer.oversized(line.limit), "");
  }

  /** The request waiting for the answer with `id`, no longer waiting. */
  private take(id: JsonValue): Waiter | undefined {
    const w = this.waiting.get(idKey(id));
    this.waiting.delete(idKey(id));
    return w;
  }

  private dispatch(event: PeerEvent, line: string): void {
    switch (event.kind) {
      case "request": {
        if (event.reports.length > 0) this.options.onReports?.(event.reports, { method: event.method, id: event.id });
        this.answer(event.id, event.method, event.params, event.reports);
        return;
      }
      case "notification": {
        if (event.reports.length > 0) this.options.onReports?.(event.reports, { method: event.method });
        if (event.method === "$/cancel_request") this.cancelled(event.params);
        const handler = this.notificationHandlers.get(event.method);
        if (handler === undefined) return;
        const cx: NotificationContext = { method: event.method, reports: event.reports };
        void (async () => handler(event.params as never, cx))().catch((e: unknown) => this.error(e));
        return;
      }
      case "response": {
        if (event.reports.length > 0) this.options.onReports?.(event.reports, { method: event.method, id: event.id });
        this.take(event.id)?.resolve(event.result as never);
        return;
      }
      case "error": {
        if (event.id === undefined) {
          this.error(RpcError.from(event.error));
          return;
        }
        this.take(event.id)?.reject(RpcError.from(event.error));
        return;
      }
      case "invalid": {
        if (event.reply !== undefined) void this.send(event.reply);
        if (event.ended !== undefined) this.take(event.ended.id)?.reject(event.error);
        this.options.onInvalid?.(event.error, line);
        return;
      }
    }
  }

  /** `$/cancel_request`: aborts the handler of the request it names, if it is still running. */
  private cancelled(params: JsonValue | undefined): void {
    const requestId = (params as { requestId?: JsonValue } | undefined)?.requestId;
    if (requestId === undefined) return;
    this.running.get(idKey(requestId))?.abort(RpcError.requestCancelled());
  }

  /** Runs the handler of a request and sends its answer. */
  private answer(id: JsonValue, method: string, params: JsonValue | undefined, reports: Report[]): void {
    const key = idKey(id);
    const handler = this.requestHandlers.get(method);
    const respondError = (object: ErrorObject) => {
      try {
        void this.send(this.peer.respondError(id, object));
      } catch (e) {
        this.error(e);
      }
    };
    if (handler === undefined) {
      respondError(RpcError.methodNotFound(method).toObject());
      return;
    }
    const controller = new AbortController();
    this.running.set(key, controller);
    const cx: RequestContext = { id, method, signal: controller.signal, reports };
    (async () => handler(params as never, cx))().then(
      (result) => {
        this.running.delete(key);
        if (this.ended) return;
        try {
          void this.send(this.peer.respond(id, result as JsonValue));
        } catch (e) {
          this.error(e);
        }
      },
      (e: unknown) => {
        this.running.delete(key);
        if (this.ended) return;
        if (e instanceof RpcError) respondError(e.toObject());
        else if (controller.signal.aborted) respondError(RpcError.requestCancelled().toObject());
        else respondError(RpcError.internalError(e instanceof Error ? e.message : String(e)).toObject());
      },
    );
  }
}
