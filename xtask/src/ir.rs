//! `cargo xtask ir`: the schema model of one file as JSON, so a maintainer can
//! see what the generator understood.
//!
//! The output is `{"source": FILE, "defs": [DEF...]}` with every definition in
//! schema order and its inline items under `inline`. Each definition has its
//! `name`, `rust_name`, `pointer` (a JSON pointer into FILE), `kind` (struct,
//! enum, union, newtype, alias, any) with its fields, values or arms (each with
//! its own `pointer`), `method` (`x-method`, `x-side`, and the payload's role),
//! `refs` (the definitions it names), `direction` (`sent_by`, `read_by` and the
//! method `uses` that reach it) and `upsert` (from `schema/upserts.json`).
//! Empty lists and false flags are omitted. Keys keep this order, so the text
//! is deterministic.
//!
//! With `--plan`, the Rust plan of a version instead (stable and unstable
//! merged): `{"sources": [..], "items": [ITEM...], "payloads": {..}}`, each
//! item with `name`, `rust_name`, `gate` (`always`, `stable`, `unstable`),
//! `state` (the state struct of an upsert), `decoder` (who writes its
//! decoder) and `fields` (`name`, `rust_name`, `repr`, and `state`, the
//! field's representation in the state struct), `no_from` (union arms given
//! no `From`); `payloads` holds the JSON-RPC payloads' decisions per build
//! (`stable`, `unstable`: what each stands for, its `null_mode`, whether
//! `Message::decode` streams it), `peers` (whether the module gets the sans-IO
//! peers), `groups` (each dispatch enum's payloads, by the enum's name, with
//! their gates) and `from`, the payloads that convert into each dispatch
//! enum with `From`.

use std::path::Path;

use crate::error::{Error, Result};
use crate::load::UpsertFile;
use crate::lock::Lock;

/// Lowers `dir/rel` and renders the model, or only the named definitions.
pub fn render(
    root: &Path,
    dir: &Path,
    rel: &str,
    lock: Option<&Lock>,
    upserts: &UpsertFile,
    only: &[String],
) -> Result<String> {
    // Lenient: a definition the generator does not understand is shown as
    // `opaque`, with its schema and every problem in it.
    let module = crate::load::module_in(root, dir, rel, lock, upserts, crate::lower::Mode::Lenient)?;
    let defs: Vec<&crate::model::Def> = if only.is_empty() {
        module.defs.iter().collect()
    } else {
        only.iter()
            .map(|name| module.defs.iter().find(|d| &d.name == name).ok_or_else(|| missing(&module.source, name)))
            .collect::<Result<_>>()?
    };
    let out = serde_json::json!({ "source": module.source, "defs": defs });
    Ok(serde_json::to_string_pretty(&out).expect("the model serializes"))
}

/// The Rust plan of `version` (both of its schemas), or of the named items.
pub fn render_plan(
    root: &Path,
    dir: &Path,
    version: &str,
    lock: Option<&Lock>,
    upserts: &UpsertFile,
    only: &[String],
) -> Result<String> {
    let mut stable = crate::load::module_with(root, dir, &format!("{version}/schema.json"), lock, upserts)?;
    let mut unstable = crate::load::module_with(root, dir, &format!("{version}/schema.unstable.json"), lock, upserts)?;
    // The naming pass, as `codegen` runs it: a renamed item shows its `rust_name`.
    let label = crate::load::display_path(root, &upserts.path);
    let reducers = crate::upserts::read_reducers(&upserts.path, &label)?;
    let config = reducers.get(version);
    for w in crate::plan::item_names::name_version(&mut stable, &mut unstable, true, config.is_some()) {
        eprintln!("warning: {w}");
    }
    let plan = crate::plan::Plan::version(&stable, &unstable);
    let reducer = match config {
        Some(c) if only.is_empty() => {
            let (reducer, left_out) = crate::plan::reducer::Reducer::of(c, &plan, upserts.strict)
                .map_err(|e| Error::Input { file: label.clone(), message: e.join("; ") })?;
            for w in left_out {
                eprintln!("warning: {}: reducer: {w} (left out)", label.display());
            }
            reducer
        }
        _ => None,
    };
    if let Some(name) = only.iter().find(|name| !plan.items.iter().any(|i| &i.name == *name)) {
        return Err(missing(&unstable.source, name));
    }
    let items: Vec<_> = plan.items.iter().filter(|i| only.is_empty() || only.contains(&i.name)).collect();
    let mut payloads = plan.payloads();
    payloads.retain(|n| only.is_empty() || only.iter().any(|o| o == n));
    let out = serde_json::json!({
        "sources": [stable.source, unstable.source],
        "items": items,
        "payloads": payloads,
        "reducer": reducer,
    });
    Ok(serde_json::to_string_pretty(&out).expect("the plan serializes"))
}

fn missing(source: &str, name: &str) -> Error {
    Error::Schema { file: source.into(), pointer: "#/$defs".into(), message: format!("no definition `{name}`") }
}
