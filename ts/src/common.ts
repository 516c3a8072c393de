// What both entry points export besides the generated modules: the runtime
// types, the reader, the codec, the patches and the session reducer.
export * from "./runtime.js";
export { DecodeError, parse, escapeToken, type Parsed } from "./json.js";
export type { Decoded, Report } from "./decode.js";
export {
  Codec,
  MessageError,
  idKey,
  type AnyMessage,
  type Envelope,
  type ExtensionNotification,
  type ExtensionRequest,
  type ExtensionResponse,
} from "./codec.js";
export { SessionReducer, applyPatch, fromPatch, mergeByKey, type State } from "./session.js";
export type * from "./shape.js";
