//! The JSON object type, on its own: the value types beside it (`Extra`,
//! the unknown variants) hold it, and the module re-exports it.

/// The JSON object type used for `_meta` and other free-form objects.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
