//! Derive macros for the ACP bindings (the `AcpPatch` derive lands with its own issue).
