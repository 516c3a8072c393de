//! The tables as one JSON document: what the Python package's runtime reads.

use serde_json::{json, Map, Value};

use super::Tables;

impl Tables {
    /// The tables as one JSON document, `{"shapes", "methods", "upserts",
    /// "reducer"}`, each keyed by the names the TypeScript tables use (the
    /// reducer with its upserts inside, as `session.ts` reads it; `{}` where
    /// the file has none): what the Python package's runtime interprets.
    pub fn json(&self) -> String {
        let object = |entries: &[(String, Value)]| -> Value {
            Value::Object(entries.iter().map(|(k, v)| (unprop(k), v.clone())).collect())
        };
        let reducer = if self.reducer.is_empty() {
            Value::Object(Map::new())
        } else {
            let mut r = Map::new();
            r.insert("upserts".into(), object(&self.upserts));
            r.extend(self.reducer.iter().map(|(k, v)| (k.clone(), v.clone())));
            Value::Object(r)
        };
        let doc = json!({
            "shapes": object(&self.shapes),
            "methods": object(&self.methods),
            "upserts": object(&self.upserts),
            "reducer": reducer,
        });
        let mut text = serde_json::to_string_pretty(&doc).expect("JSON values serialize");
        text.push('\n');
        text
    }
}

/// A key as [`prop`] wrote it, back to the name it stands for.
fn unprop(key: &str) -> String {
    if key.starts_with('"') {
        serde_json::from_str(key).expect("prop writes a JSON string")
    } else {
        key.to_owned()
    }
}
