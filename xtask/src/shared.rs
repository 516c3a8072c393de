//! What the version modules have word for word, written once.
//!
//! Most of a protocol version is the same in the next one: of the v1 and v2
//! modules' items, about half print to the same text. After each version's
//! module is rendered, an item whose tokens are the same in every version
//! module (its documentation, attributes and `cfg` gate included) moves to a
//! file under `shared/`, and each module takes it back with `include!`.
//!
//! Inclusion, not a shared module, on purpose: each version module still has
//! an item of its own (`v1::SessionId` and `v2::SessionId` stay distinct
//! types, each naming the other items of its own version), so a later schema
//! change to one version is a change to that version's item alone, never a
//! breaking change to the other version's users who relied on the two being
//! one type. What is shared is the text, which a reader and the compiler's
//! front end meet once.
//!
//! `use` declarations stay in each module (they are what the included items
//! resolve against); an inline module present in every version (`rpc`) is
//! shared item by item into a file of its own, included inside that module.

use std::collections::HashMap;

use quote::ToTokens;

/// One file of items included by every version module: its file stem
/// (`items` for the modules' own level, else the inline module's path joined
/// by `_`) and its items, in the first module's order.
pub struct SharedFile {
    pub stem: String,
    pub items: Vec<syn::Item>,
}

/// Moves every item all `modules` have word for word into a [`SharedFile`],
/// leaving an `include!("{include_dir}/{stem}.rs")` where the first of them
/// stood. `include_dir` is the shared directory relative to a module's file.
/// With fewer than two modules nothing is shared.
pub fn share(modules: &mut [&mut syn::File], include_dir: &str) -> Vec<SharedFile> {
    let mut out = Vec::new();
    if modules.len() < 2 {
        return out;
    }
    let mut levels: Vec<&mut Vec<syn::Item>> = modules.iter_mut().map(|f| &mut f.items).collect();
    share_level(&mut levels, "items", include_dir, &mut out);
    out
}

/// The text an item is compared by; `None` for an item that stays in place.
fn key(item: &syn::Item) -> Option<String> {
    match item {
        syn::Item::Use(_) | syn::Item::Mod(_) | syn::Item::ExternCrate(_) => None,
        _ => Some(item.to_token_stream().to_string()),
    }
}

fn share_level(levels: &mut [&mut Vec<syn::Item>], stem: &str, include_dir: &str, out: &mut Vec<SharedFile>) {
    // How many times each text occurs in each module after the first.
    let mut counts: Vec<HashMap<String, usize>> = levels[1..]
        .iter()
        .map(|items| {
            let mut m = HashMap::new();
            for k in items.iter().filter_map(key) {
                *m.entry(k).or_insert(0) += 1;
            }
            m
        })
        .collect();
    // The first module's items every other module has too, in its order.
    let mut shared_keys = Vec::new();
    for k in levels[0].iter().map(key) {
        let taken = k.as_ref().is_some_and(|k| {
            let everywhere = counts.iter().all(|c| c.get(k).is_some_and(|n| *n > 0));
            if everywhere {
                for c in &mut counts {
                    *c.get_mut(k).expect("counted") -= 1;
                }
            }
            everywhere
        });
        shared_keys.push(taken.then(|| k.expect("keyed")));
    }
    let wanted: Vec<String> = shared_keys.iter().flatten().cloned().collect();
    if !wanted.is_empty() {
        let include: syn::Item =
            syn::parse_str(&format!("include!(\"{include_dir}/{stem}.rs\");")).expect("an include! invocation parses");
        let mut items = Vec::new();
        for (i, level) in levels.iter_mut().enumerate() {
            let mut remaining: HashMap<&str, usize> = HashMap::new();
            for k in &wanted {
                *remaining.entry(k.as_str()).or_insert(0) += 1;
            }
            let mut kept = Vec::with_capacity(level.len());
            let mut placed = false;
            for item in level.drain(..) {
                let moving = key(&item).is_some_and(|k| match remaining.get_mut(k.as_str()) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                });
                if moving {
                    if !placed {
                        kept.push(include.clone());
                        placed = true;
                    }
                    if i == 0 {
                        items.push(item);
                    }
                } else {
                    kept.push(item);
                }
            }
            **level = kept;
        }
        out.push(SharedFile { stem: stem.to_owned(), items });
    }
    // An inline module every version has: its items likewise.
    let names: Vec<String> = levels[0]
        .iter()
        .filter_map(|i| match i {
            syn::Item::Mod(m) if m.content.is_some() => Some(m.ident.to_string()),
            _ => None,
        })
        .collect();
    let modules = levels.len();
    for name in names {
        let mut inner: Vec<&mut Vec<syn::Item>> = Vec::new();
        for level in levels.iter_mut() {
            let found = level.iter_mut().find_map(|i| match i {
                syn::Item::Mod(m) if m.ident == name => m.content.as_mut().map(|(_, items)| items),
                _ => None,
            });
            match found {
                Some(items) => inner.push(items),
                None => break,
            }
        }
        if inner.len() == modules {
            let stem = if stem == "items" { name.clone() } else { format!("{stem}_{name}") };
            share_level(&mut inner, &stem, include_dir, out);
        }
    }
}
