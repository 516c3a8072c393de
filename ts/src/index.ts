// The package's main entry point: the ACP v1 and v2 types, decoders and
// encoders of the stable schemas (`v1.codec`, `v2.codec`), the reader, the
// patches and the session reducer. Items that exist only in the unstable
// schemas are in `acp-bindings/unstable`.
export * as v1 from "./generated/v1.js";
export * as v2 from "./generated/v2.js";
export * from "./common.js";
