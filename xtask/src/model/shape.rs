//! A definition's wire shape: what two definitions must share to put the
//! same JSON on the wire.

use super::{Def, Kind};

impl Def {
    /// The definition with everything removed that does not change its wire
    /// value: descriptions, titles, pointers, methods, upsert rules, the
    /// `x-deserialize-*` keywords and property order (the converter's and the
    /// schema diff's comparison of two definitions).
    pub fn wire_shape(&self) -> Def {
        let mut d = self.without_docs();
        normalize(&mut d);
        d
    }
}

fn normalize(d: &mut Def) {
    d.method = None;
    d.envelope = false;
    d.upsert = None;
    match &mut d.kind {
        Kind::Struct(s) => {
            for f in &mut s.fields {
                f.default_on_error = false;
                f.skip_invalid_items = false;
                f.default_on_null = false;
            }
            // Property order does not change the wire value.
            s.fields.sort_by(|a, b| a.name.cmp(&b.name));
        }
        Kind::Enum(e) => {
            for v in &mut e.variants {
                v.title = None;
            }
            if let Some(f) = &mut e.fallback {
                f.title = None;
            }
        }
        Kind::Union(u) => {
            if let Some(t) = &mut u.tag {
                t.lenient = false;
                t.declared = false;
            }
            for v in &mut u.variants {
                v.title = None;
            }
            if let Some(c) = &mut u.catch_all {
                c.title = None;
                c.tag_docs = None;
                for v in &mut c.one_of {
                    v.title = None;
                    v.docs = None;
                    v.pointer.clear();
                }
                for f in &mut c.fields {
                    f.docs = None;
                    f.pointer.clear();
                    f.default_on_error = false;
                    f.skip_invalid_items = false;
                    f.default_on_null = false;
                }
            }
        }
        Kind::Newtype(_) | Kind::Alias(_) | Kind::Any | Kind::Opaque(_) => {}
    }
    for i in &mut d.inline {
        normalize(i);
    }
}
