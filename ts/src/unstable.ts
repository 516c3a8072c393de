// The `unstable` entry point: the ACP v1 and v2 types, decoders and encoders
// of the unstable schemas, which may change or disappear at any point; the
// reader, the patches and the session reducer as in the main entry point.
export * as v1 from "./generated/v1.unstable.js";
export * as v2 from "./generated/v2.unstable.js";
export * from "./common.js";
