// What both entry points export besides the generated modules: the runtime
// types, the reader, the codec, the patches and the session reducer.
export * from "./runtime.js";
export { DecodeError, parse, escapeToken, type Parsed } from "./json.js";
export type { Decoded, Report } from "./decode.js";
export type { Wording } from "./words.js";
export {
  Codec,
  MessageError,
  errorCodes,
  idKey,
  oneLine,
  type DecodeMessageOptions,
  type ErrorObject,
  type MessageErrorKind,
  type AnyMessage,
  type Envelope,
  type ExtensionNotification,
  type ExtensionRequest,
  type ExtensionResponse,
} from "./codec.js";
export { SessionReducer, applyPatch, creatingPatch, fromPatch, mergeByKey, type State } from "./session.js";
export type * from "./shape.js";
export { Peer, type PeerCodec, type PeerEvent, type Side } from "./peer.js";
export {
  Connection,
  ErrorCode,
  RpcError,
  type ConnectionOptions,
  type ExtensionMethod,
  type NotificationContext,
  type NotificationMethod,
  type NotificationParams,
  type OtherSide,
  type ProtocolShape,
  type RequestContext,
  type RequestMethod,
  type RequestParams,
  type RequestResult,
  type SideShape,
} from "./connection.js";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  ndjson,
  pair,
  type ByteSink,
  type ByteStream,
  type Input,
  type Line,
  type NodeSink,
  type Output,
  type TooLarge,
  type Transport,
} from "./transport.js";
