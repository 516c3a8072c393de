//! `cargo xtask codegen`: schema -> IR -> Rust for v1 and v2 (stable and
//! unstable merged behind the `unstable` feature) and for the fixture schemas.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::{Emitter, Gate};
use crate::error::{Error, Result};
use crate::load::{display_path, read_json};
use crate::lock::Lock;
use crate::lower::lower;
use crate::model::{Def, Module};
use crate::plan::Plan;

/// The runtime path inside the bindings crate.
pub const CRATE_RUNTIME: &str = "crate::runtime";
/// The runtime path of a module generated for a schema file of one's own
/// (and the fixtures): the runtime crate's, so that the output compiles
/// without ACP's types.
pub const EXTERN_RUNTIME: &str = "::acp_bindings_runtime::runtime";

/// The modules (and a type and the derives) the generated code names by their last segment
/// (`de::put`, `read::Lenient`, `runtime::Extra`, `fmt::Formatter`, `Cow`, `Serialize`),
/// with a `use` per module of the file; a module inside another comes first.
const MODULES: &[&str] = &[
    "crate::runtime::de",
    "crate::runtime::read",
    "crate::runtime",
    "crate::json::fast",
    "crate::json",
    "::acp_bindings::runtime::de",
    "::acp_bindings::runtime::read",
    "::acp_bindings::runtime",
    "::acp_bindings::json::fast",
    "::acp_bindings::json",
    "::acp_bindings_runtime::runtime::de",
    "::acp_bindings_runtime::runtime::read",
    "::acp_bindings_runtime::runtime",
    "::acp_bindings_runtime::json::fast",
    "::acp_bindings_runtime::json",
    "::core::fmt",
    "::std::borrow::Cow",
    "::serde::Serialize",
    "::serde::Deserialize",
    "::acp_bindings::AcpDeserialize",
    "::acp_bindings::AcpDispatch",
    "::acp_bindings::AcpEnum",
    "::acp_bindings::AcpPatch",
    "::acp_bindings::AcpSerialize",
    "::acp_bindings::AcpString",
    "::acp_bindings::AcpUnion",
    "::acp_bindings_runtime::AcpDeserialize",
    "::acp_bindings_runtime::AcpDispatch",
    "::acp_bindings_runtime::AcpEnum",
    "::acp_bindings_runtime::AcpPatch",
    "::acp_bindings_runtime::AcpSerialize",
    "::acp_bindings_runtime::AcpString",
    "::acp_bindings_runtime::AcpUnion",
];

/// Where to read and write.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Paths in headers and messages are shown relative to this directory.
    pub root: PathBuf,
    /// The directory holding `v1/` and `v2/` schemas.
    pub schema_dir: PathBuf,
    /// Check `schema_dir` against its lock file (the vendored directory).
    pub locked: bool,
    /// The upsert configuration, and whether an entry that does not fit is an
    /// error (the vendored schema) or a warning (a preview).
    pub upserts: crate::load::UpsertFile,
    /// The directory that receives `v1/mod.rs` and `v2/mod.rs`.
    pub out_dir: PathBuf,
    /// Fixture schemas and the directory their Rust goes to.
    pub fixtures: Option<(PathBuf, PathBuf)>,
    /// Where the by-name `reencode` registry for `acp-tools` goes.
    pub registry: Option<PathBuf>,
    /// The reviewed pairing (`conversions.json`) and the file that receives the
    /// generated v1 ⇄ v2 conversions.
    pub convert: Option<(PathBuf, PathBuf)>,
    /// The directory that receives the TypeScript modules (`ts/src/generated`).
    pub typescript: Option<PathBuf>,
    /// Where the Python package's generated modules go (`python/src/acp_bindings`:
    /// `v1.py`, `unstable/v1.py`, ...), if it gets them.
    pub python: Option<PathBuf>,
    /// The decoders' messages (`runtime/messages.json`) and the runtime
    /// module that receives them (`runtime/src/runtime/messages.rs`; the
    /// TypeScript package's `messages.ts` goes beside its modules).
    pub messages: Option<(PathBuf, PathBuf)>,
    /// Strict for the vendored schema; lenient (`--lenient`) previews make a
    /// definition the generator does not understand `serde_json::Value`,
    /// with a warning.
    pub mode: crate::lower::Mode,
}

impl Layout {
    /// The layout of this repository, rooted at `root`.
    pub fn repo(root: &Path) -> Layout {
        Layout {
            root: root.to_path_buf(),
            schema_dir: root.join("schema"),
            locked: true,
            upserts: crate::load::UpsertFile::beside(&root.join("schema")),
            out_dir: root.join("generated/src"),
            fixtures: Some((root.join("schema/fixtures"), root.join("tests/generated"))),
            registry: Some(root.join("tools/src/registry.rs")),
            convert: Some((root.join("schema/conversions.json"), root.join("convert/src/generated.rs"))),
            typescript: Some(root.join("ts/src/generated")),
            python: Some(root.join("python/src/acp_bindings")),
            messages: Some((root.join("runtime/messages.json"), root.join("runtime/src/runtime/messages.rs"))),
            mode: crate::lower::Mode::Strict,
        }
    }
}

/// What one generated version module was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    /// The schema files (stable, unstable).
    pub schemas: Vec<String>,
    /// `$defs` read from each.
    pub defs: Vec<usize>,
    /// Rust types (structs and enums, the `rpc` module's included) in the output.
    pub items: usize,
    /// Time to read, lower, emit and format it.
    pub millis: u128,
}

impl std::fmt::Display for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let defs: Vec<String> = self.defs.iter().map(ToString::to_string).collect();
        write!(
            f,
            "{}: {} defs read, {} items emitted, {} ms",
            self.schemas.join(" + "),
            defs.join(" + "),
            self.items,
            self.millis
        )
    }
}

/// Generated files (absolute paths) and statistics.
#[derive(Debug, Clone)]
pub struct Output {
    /// Every file to write, with its full text.
    pub files: Vec<(PathBuf, String)>,
    /// Directories whose `*.rs` files are all generated (stale extras are removed).
    pub owned_dirs: Vec<PathBuf>,
    /// One line per schema.
    pub stats: Vec<Stat>,
    /// Upsert configuration warnings.
    pub warnings: Vec<String>,
    /// What the conversions between the versions were generated from.
    pub convert: Option<crate::convert::Summary>,
}

/// What the versions' passes collect for the files written after them.
#[derive(Default)]
struct Generated {
    files: Vec<(PathBuf, String)>,
    stats: Vec<Stat>,
    registries: Vec<TokenStream>,
    /// The schema files read, for the headers of the files made from all of them.
    sources: Vec<String>,
    warnings: Vec<String>,
    /// Each version's (stable, unstable) models, for the conversions.
    models: Vec<(Module, Module)>,
    /// Each version's `mod.rs`, parsed, until the items the versions share are taken out.
    modules: Vec<VersionModule>,
}

/// A version's `mod.rs` before it is printed.
struct VersionModule {
    path: PathBuf,
    sources: Vec<String>,
    file: syn::File,
}

/// Runs the whole pipeline in memory; nothing is written.
pub fn generate(layout: &Layout) -> Result<Output> {
    let lock = if layout.locked { Some(Lock::read(&layout.schema_dir)?) } else { None };
    let versions = crate::load::versions(&layout.schema_dir);
    if versions.is_empty() {
        return Err(Error::Read {
            file: display_path(&layout.root, &layout.schema_dir),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no schema files (expected `v1/schema.json`, `v1/schema.unstable.json`, `v2/schema.json`, \
                 `v2/schema.unstable.json`, or the pre-2.0 `schema.json`)",
            ),
        });
    }
    let mut g = Generated::default();
    for held in versions {
        one_version(&mut g, layout, lock.as_ref(), held)?;
    }
    version_modules(&mut g, layout);
    if let Some((table, out)) = &layout.messages {
        messages(&mut g, layout, table, out)?;
    }
    let mut convert = None;
    if let (Some((config_path, out)), [v1, v2]) = (&layout.convert, g.models.as_slice()) {
        let label = display_path(&layout.root, config_path);
        let config = crate::convert::Config::read(config_path, &label)?;
        let (items, registry, summary) = crate::convert::generate((&v1.0, &v1.1), (&v2.0, &v2.1), &config, &label)?;
        g.registries.push(registry);
        let srcs: Vec<&str> =
            g.sources.iter().map(String::as_str).chain([label.to_str().unwrap_or("conversions.json")]).collect();
        let doc = " The v1 ⇄ v2 conversions the generator states from the two schema models (see `super`).";
        g.files.push((out.clone(), render(&srcs, doc, items, "convert/generated.rs")?));
        convert = Some(summary);
    }
    if let Some(path) = &layout.registry {
        let doc = " Decode and re-encode a payload by definition name, for `check-messages --type` and the tests.";
        let srcs: Vec<&str> = g.sources.iter().map(String::as_str).collect();
        let registries = std::mem::take(&mut g.registries);
        g.files.push((path.clone(), render(&srcs, doc, registries, "registry.rs")?));
    }
    // The shared files are the generator's alone: one no longer written is removed.
    let mut owned_dirs = vec![layout.out_dir.join("shared")];
    if let Some((dir, out)) = &layout.fixtures {
        let mut mods = Vec::new();
        for path in fixture_files(dir)? {
            let (_, text) = fixture(&layout.root, &path)?;
            let stem = module_stem(&path);
            g.files.push((out.join(format!("{stem}.rs")), text));
            mods.push(stem);
        }
        let list: String = mods.iter().map(|m| format!("pub mod {m};\n")).collect();
        g.files.push((out.join("mod.rs"), format!("{}\n{list}", header(&["schema/fixtures/*.json"]))));
        owned_dirs.push(out.clone());
    }
    Ok(Output { files: g.files, owned_dirs, stats: g.stats, warnings: g.warnings, convert })
}

/// A version's stable and unstable models. A version with one file: a
/// stable schema alone is generated as is; an unstable schema alone is
/// generated behind `unstable`.
fn read_version(layout: &Layout, lock: Option<&Lock>, held: &crate::load::VersionFiles) -> Result<(Module, Module)> {
    let read = |rel: &str| -> Result<Module> {
        let m = crate::load::module_in(&layout.root, &layout.schema_dir, rel, lock, &layout.upserts, layout.mode)?;
        opaque_names(&m)?;
        Ok(m)
    };
    Ok(match (held.stable, held.unstable) {
        (Some(s), Some(u)) => (read(s)?, read(u)?),
        (Some(s), None) => {
            let m = read(s)?;
            (m.clone(), m)
        }
        (None, Some(u)) => {
            let m = read(u)?;
            let empty = Module { source: m.source.clone(), defs: Vec::new(), warnings: Vec::new() };
            (empty, m)
        }
        (None, None) => unreachable!("`versions` lists versions with a file"),
    })
}

/// The decoders' messages, as the runtime's module and the TypeScript package's.
fn messages(g: &mut Generated, layout: &Layout, table: &Path, out: &Path) -> Result<()> {
    let label = display_path(&layout.root, table);
    let messages = crate::messages::read(table, &label)?;
    let source = label.to_str().unwrap_or("messages.json");
    let doc = " The error messages the decoders write themselves, one function per message of the table\n \
               (worded once for this crate and the TypeScript package).";
    g.files.push((out.to_path_buf(), render(&[source], doc, crate::messages::rust(&messages), "messages.rs")?));
    if let Some(dir) = &layout.typescript {
        g.files.push((dir.join("messages.ts"), crate::messages::typescript(&messages, source)));
    }
    if let Some(dir) = &layout.python {
        g.files.push((dir.join("_messages.py"), crate::messages::python(&messages, source)));
    }
    Ok(())
}

/// The version's session reducer, when the configuration gives it one:
/// resolved against the plan; for a preview of another revision, what does
/// not fit is left out with a warning (as for the upserts).
fn reducer_of(
    config: Option<&crate::upserts::ReducerConfig>,
    plan: &Plan<'_>,
    layout: &Layout,
    version: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<crate::plan::reducer::Reducer>> {
    let Some(config) = config else { return Ok(None) };
    let label = display_path(&layout.root, &layout.upserts.path);
    let (reducer, left_out) = crate::plan::reducer::Reducer::of(config, plan, layout.upserts.strict)
        .map_err(|e| Error::Input { file: label.clone(), message: format!("reducer `{version}`: {}", e.join("; ")) })?;
    for w in left_out {
        warnings.push(format!("{}: reducer `{version}`: {w} (left out)", label.display()));
    }
    Ok(reducer)
}

/// The session reducer the configuration states, over the generated upserts
/// (behind `unstable` with the rest of a version only that schema has).
fn reducer_items(
    reducer: &crate::plan::reducer::Reducer,
    plan: &Plan<'_>,
    choices: &crate::plan::VersionChoices,
) -> Vec<TokenStream> {
    let emitter = Emitter::new(CRATE_RUNTIME, plan.unstable.clone());
    let mut items = emitter.reducer(reducer);
    items.push(quote! {
        #[doc(inline)]
        pub use crate::runtime::session::Ordered;
    });
    let gate = if choices.unstable_only { Gate::Unstable } else { Gate::Always };
    crate::emit::gated(items, gate)
}

/// A version's modules of the other targets: the TypeScript package's and the Python package's.
fn other_targets(
    g: &mut Generated,
    layout: &Layout,
    version: &str,
    plan: &Plan<'_>,
    (stable, unstable): (&Module, &Module),
    payloads: &crate::plan::Payloads,
    reducer: Option<&crate::plan::reducer::Reducer>,
) {
    if let Some(dir) = &layout.typescript {
        // The stable file's module for the package's main entry point; the
        // unstable file's, as a difference from it, for its `unstable` entry point.
        g.files.push((dir.join(format!("{version}.ts")), crate::ts::module(plan, stable, payloads, reducer)));
        let text = crate::ts::unstable_module(plan, stable, unstable, payloads, version, reducer);
        g.files.push((dir.join(format!("{version}.unstable.ts")), text));
    }
    if let Some(dir) = &layout.python {
        // The stable file's module, and the unstable file's under `unstable/`, as a difference.
        g.files.push((dir.join(format!("{version}.py")), crate::py::module(plan, stable, payloads)));
        let base = format!("acp_bindings.{version}");
        g.files.push((
            dir.join(format!("unstable/{version}.py")),
            crate::py::unstable_module(plan, stable, unstable, &base, payloads),
        ));
        // The decoding tables the package's runtime interprets, one complete document per build.
        for (module, unstable, name) in
            [(stable, false, format!("{version}.json")), (unstable, true, format!("{version}.unstable.json"))]
        {
            let text = crate::ts::tables_json(plan, module, payloads, reducer, unstable);
            g.files.push((dir.join("_tables").join(name), text));
        }
    }
}

/// One version: its `mod.rs`, its part of the registry, its line of stats.
fn one_version(g: &mut Generated, layout: &Layout, lock: Option<&Lock>, held: crate::load::VersionFiles) -> Result<()> {
    let version = held.version;
    let start = Instant::now();
    let (mut stable, mut unstable) = read_version(layout, lock, &held)?;
    // The naming pass: `use vN::*;` and `use vN::rpc::*;` together must not
    // make a name ambiguous, nor two definitions share an item.
    let reducer_config =
        crate::upserts::read_reducers(&layout.upserts.path, &display_path(&layout.root, &layout.upserts.path))?
            .remove(version);
    let renamed = crate::plan::item_names::name_version(&mut stable, &mut unstable, true, reducer_config.is_some());
    for w in stable.warnings.iter().chain(&unstable.warnings).chain(&renamed) {
        if !g.warnings.contains(w) {
            g.warnings.push(w.clone());
        }
    }
    let plan = Plan::version(&stable, &unstable);
    let choices = crate::plan::VersionChoices::of(version, &plan, stable.defs.is_empty());
    let payloads = plan.payloads();
    let reducer = reducer_of(reducer_config.as_ref(), &plan, layout, version, &mut g.warnings)?;
    other_targets(g, layout, version, &plan, (&stable, &unstable), &payloads, reducer.as_ref());
    let (mut items, registry, schemas, schema_impls) = emit_version(&plan, &payloads);
    if !schemas.is_empty() {
        // A fragment of a shape only one build has is unused in the other; a
        // version only the unstable schema has is behind `unstable` whole.
        let gate = if choices.unstable_only { Gate::Unstable.cfg() } else { quote!() };
        items.push(quote! {
            /// `schemars::JsonSchema` for this module's types, out of line.
            #gate
            #[cfg(feature = "schemars")]
            #[allow(dead_code)]
            mod schemas;
        });
    }
    items.push(protocol_version(&choices));
    if let Some(reducer) = &reducer {
        items.extend(reducer_items(reducer, &plan, &choices));
    }
    let v = proc_macro2::Ident::new(version, proc_macro2::Span::call_site());
    let doc = format!(" `reencode` for every ACP {version} definition.");
    g.registries.push(quote! {
        #[doc = #doc]
        pub mod #v {
            use ::acp_bindings::#v as bindings;
            #registry
        }
    });
    // The files read, once each (a version may have only one).
    let read: Vec<&Module> = match (held.stable, held.unstable) {
        (Some(_), Some(_)) => vec![&stable, &unstable],
        (Some(_), None) => vec![&stable],
        _ => vec![&unstable],
    };
    let names: Vec<&str> = read.iter().map(|m| m.source.as_str()).collect();
    g.sources.extend(names.iter().map(|s| s.to_string()));
    let doc = format!(
        " ACP {version} types, generated from the canonical JSON Schema.\n\n Items and fields that exist only in the unstable schema need the `unstable` feature."
    );
    let file = prepare(&doc, items, &format!("{version}/mod.rs"))?;
    let count = count_types(&file.items);
    let path = layout.out_dir.join(version).join("mod.rs");
    g.modules.push(VersionModule { path, sources: names.iter().map(|s| s.to_string()).collect(), file });
    if !schemas.is_empty() {
        let consts = schemas.iter().map(|(name, json)| {
            let (name, json) =
                (proc_macro2::Ident::new(name, proc_macro2::Span::call_site()), proc_macro2::Literal::string(json));
            quote! { const #name: &str = #json; }
        });
        let mut out = vec![quote!(
            use super::*;
        )];
        out.extend(schema_impls);
        out.push(crate::emit::schema_refs(&plan.gated()));
        out.extend(consts);
        let doc = format!(
            " `schemars::JsonSchema` for each ACP {version} type: the type's JSON Schema fragment, embedded, its `$ref`s resolved by `schema_ref`."
        );
        let text = render(&names, &doc, out, &format!("{version}/schemas.rs"))?;
        g.files.push((layout.out_dir.join(version).join("schemas.rs"), text));
    }
    g.stats.push(Stat {
        schemas: names.iter().map(|s| s.to_string()).collect(),
        defs: read.iter().map(|m| m.defs.len()).collect(),
        items: count,
        millis: start.elapsed().as_millis(),
    });
    g.models.push((stable, unstable));
    Ok(())
}

/// Lowers one fixture schema and renders its Rust (items use the runtime
/// crate, `acp_bindings_runtime`, by its external path).
pub fn fixture(root: &Path, path: &Path) -> Result<(Module, String)> {
    let label = display_path(root, path);
    let json = read_json(path, &label)?;
    render_schema(&label, &json, &module_stem(path))
}

/// Lowers a schema document already read (`label` names it in messages) and
/// renders its Rust as [`fixture`] does, into `{stem}.rs`. Any JSON value is
/// accepted: what the generator cannot lower is an error, never a panic.
pub fn render_schema(label: &Path, json: &serde_json::Value, stem: &str) -> Result<(Module, String)> {
    render_module(lower(label, json)?, stem)
}

/// One schema file of any layout, as `cargo xtask codegen --schema FILE.json
/// --out DIR` generates it: every `$def` of the file becomes an item of one
/// module `DIR/{stem}.rs` that uses the `acp_bindings` runtime (a file
/// `schemars` wrote for a crate's own serde types, say). Lenient mode makes a
/// definition the generator does not understand `serde_json::Value`, with a
/// warning in the module's `warnings`.
pub fn single_file(root: &Path, path: &Path, mode: crate::lower::Mode) -> Result<(Module, String)> {
    let label = display_path(root, path);
    let json = read_json(path, &label)?;
    let module = crate::lower::lower_in(&label, &json, None, mode)?;
    opaque_names(&module)?;
    render_module(module, &module_stem(path))
}

/// The Rust module a schema file becomes (`{stem}.rs`): its file stem, `-` as `_`.
pub fn module_stem(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("schema");
    // A module's name: `my-types.schema.json` is `my_types_schema`.
    stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

/// Emits a module lowered from one file, as [`fixture`] does.
fn render_module(mut module: Module, stem: &str) -> Result<(Module, String)> {
    let renamed = crate::plan::item_names::name_single(&mut module);
    module.warnings.extend(renamed);
    let plan = Plan::single(&module);
    let emitter = Emitter::new(EXTERN_RUNTIME, plan.stable.clone());
    let registry = plan.gated();
    let mut items: Vec<TokenStream> = registry.iter().flat_map(|(d, gate)| emitter.def(d, *gate)).collect();
    items.push(type_names(&registry));
    if module.defs.iter().any(|d| d.method.is_some()) {
        let payloads = plan.payloads();
        items.push(crate::rpc::module(&registry, &payloads, EXTERN_RUNTIME));
    }
    let doc = format!(" Rust emitted for the fixture schema `{}`.", module.source);
    let text = render(&[&module.source], &doc, items, &format!("{stem}.rs"))?;
    Ok((module, text))
}

/// The fixture schemas directly inside `dir`, sorted (subdirectories hold bad schemas).
pub fn fixture_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Read { file: dir.to_path_buf(), source })?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    out.sort();
    Ok(out)
}

/// One item list for a version: items equal in both schemas (ignoring
/// descriptions) once; items whose unstable shape only adds fields or arms
/// once, with those gated; items that differ otherwise twice, each behind its
/// cfg; items only in the unstable schema behind `unstable`.
///
/// Also returns the version's `reencode` registry, which lives in `acp-tools`
/// (instantiating a decoder for every type costs the bindings' users compile time).
pub fn merge(stable: &Module, unstable: &Module) -> (Vec<TokenStream>, TokenStream) {
    let plan = Plan::version(stable, unstable);
    let (items, registry, _, _) = emit_version(&plan, &plan.payloads());
    (items, registry)
}

/// [`merge`] for a plan already made from `stable` and `unstable`.
/// Returns the items, the registry and the `schemars` fragments by constant.
/// A version's items, its `reencode` registry, and its `schemas.rs`: the
/// fragments by constant name and the impls naming them.
type Emitted = (Vec<TokenStream>, TokenStream, BTreeMap<String, String>, Vec<TokenStream>);

fn emit_version(plan: &Plan<'_>, payloads: &crate::plan::Payloads) -> Emitted {
    let stable_emitter = Emitter::new(CRATE_RUNTIME, plan.stable.clone()).with_schemars();
    let unstable_emitter = Emitter::new(CRATE_RUNTIME, plan.unstable.clone()).with_schemars();
    let mut items = Vec::new();
    for item in &plan.items {
        if let Some(stable) = item.stable_shape {
            items.extend(unstable_emitter.merged(item.def, stable, &stable_emitter));
            continue;
        }
        let emitter = if plan.renders_unstable(item) { &unstable_emitter } else { &stable_emitter };
        items.extend(emitter.def(item.def, item.gate));
    }
    let registry = plan.gated();
    items.push(type_names(&registry));
    items.push(crate::rpc::module(&registry, payloads, CRATE_RUNTIME));
    let mut schemas = stable_emitter.schemas();
    schemas.extend(unstable_emitter.schemas());
    let mut impls = stable_emitter.schema_impls();
    impls.extend(unstable_emitter.schema_impls());
    (items, crate::registry::reencode_fn(&registry), schemas, impls)
}

/// `PROTOCOL_VERSION`: the protocol version a module's types speak, typed
/// as the plan's [`crate::plan::VersionChoices`] say; behind `unstable` for
/// a version only the unstable schema has.
fn protocol_version(choices: &crate::plan::VersionChoices) -> TokenStream {
    let n = choices.number;
    let lit = proc_macro2::Literal::u16_unsuffixed(n);
    let doc = format!(
        " The protocol version these types speak: `{n}`, the `protocolVersion` an `initialize` request of this version sends."
    );
    let cfg = if choices.unstable_only { Gate::Unstable.cfg() } else { quote!() };
    if choices.typed_protocol_version {
        quote! { #[doc = #doc] #cfg pub const PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion(#lit); }
    } else {
        quote! { #[doc = #doc] #cfg pub const PROTOCOL_VERSION: u16 = #lit; }
    }
}

fn type_names(defs: &[(&Def, Gate)]) -> TokenStream {
    let names = defs.iter().map(|(d, gate)| {
        let key = proc_macro2::Literal::string(&d.name);
        let cfg = gate.cfg();
        quote!(#cfg #key,)
    });
    quote! {
        /// The schema name of every definition in this module (in this build's feature set).
        pub const TYPE_NAMES: &[&str] = &[#(#names)*];
    }
}

/// The header of every generated file.
pub fn header(sources: &[&str]) -> String {
    let from = sources.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(" and ");
    format!(
        "// @generated by `cargo xtask codegen` from {from}.\n// Do not edit: change the generator (`xtask/`) or its inputs (`schema/`) and run `cargo xtask codegen`.\n"
    )
}

/// Prints the version modules, each without the items every version has
/// word for word: those are written once, under `shared/`, and included by
/// each module (see [`crate::shared`]).
fn version_modules(g: &mut Generated, layout: &Layout) {
    let mut modules = std::mem::take(&mut g.modules);
    let shared = {
        let mut files: Vec<&mut syn::File> = modules.iter_mut().map(|m| &mut m.file).collect();
        crate::shared::share(&mut files, "../shared")
    };
    let mut sources: Vec<&str> = Vec::new();
    for m in &modules {
        sources.extend(m.sources.iter().map(String::as_str));
    }
    for s in shared {
        let file = syn::File { shebang: None, attrs: Vec::new(), items: s.items };
        let what = if s.stem == "items" {
            String::new()
        } else {
            format!(" (inside their `{}` module)", s.stem.replace('_', "::"))
        };
        let text = format!(
            "{}//\n// The items every version module has word for word{what}, written once: each\n// module includes this file with `include!`, so each still has its own items\n// (distinct types per version, their names resolved in that version).\n\n{}",
            header(&sources),
            prettyplease::unparse(&file)
        );
        g.files.push((layout.out_dir.join("shared").join(format!("{}.rs", s.stem)), text));
    }
    for m in modules {
        let sources: Vec<&str> = m.sources.iter().map(String::as_str).collect();
        g.files.push((m.path, format!("{}\n{}", header(&sources), prettyplease::unparse(&m.file))));
    }
}

fn render(sources: &[&str], doc: &str, items: Vec<TokenStream>, label: &str) -> Result<String> {
    let file = prepare(doc, items, label)?;
    Ok(format!("{}\n{}", header(sources), prettyplease::unparse(&file)))
}

/// The Rust types in a file's items.
fn count_types(items: &[syn::Item]) -> usize {
    items
        .iter()
        .map(|i| match i {
            syn::Item::Struct(_) | syn::Item::Enum(_) => 1,
            syn::Item::Mod(m) => m.content.as_ref().map_or(0, |(_, inner)| count_types(inner)),
            _ => 0,
        })
        .sum()
}

/// A file's items under its documentation and lints, parsed, with paired
/// `cfg`s collapsed and the runtime's paths shortened.
fn prepare(doc: &str, items: Vec<TokenStream>, label: &str) -> Result<syn::File> {
    let doc_lines = doc.lines().map(|l| l.to_owned());
    let tokens = quote! {
        #( #![doc = #doc_lines] )*
        // Variant and item names follow the schema's titles and tags.
        #![allow(clippy::large_enum_variant, clippy::enum_variant_names)]
        #![allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls, rustdoc::invalid_html_tags)]
        #(#items)*
    };
    let mut file: syn::File =
        syn::parse2(tokens).map_err(|e| Error::Emit { file: label.to_owned(), message: e.to_string() })?;
    crate::cfg_pairs::collapse(&mut file);
    crate::paths::shorten(&mut file, MODULES);
    Ok(file)
}

/// Files that differ from what is on disk (missing, changed, or generated
/// leftovers in an owned directory).
pub fn stale_files(output: &Output) -> Vec<PathBuf> {
    let mut stale: Vec<PathBuf> = output
        .files
        .iter()
        .filter(|(path, text)| std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()))
        .map(|(p, _)| p.clone())
        .collect();
    stale.extend(leftovers(output));
    stale
}

fn leftovers(output: &Output) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in &output.owned_dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "rs") && !output.files.iter().any(|(f, _)| *f == p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Writes every file or none (see [`crate::write`]); stale generated files in
/// owned directories are removed in the same all-or-nothing step.
/// A file whose bytes are already what would be written is left alone (its
/// modification time too, so cargo does not rebuild what depends on it).
/// Returns how many files were written.
pub fn write_all(output: &Output) -> Result<usize> {
    let files: Vec<(PathBuf, Vec<u8>)> = output
        .files
        .iter()
        .filter(|(p, t)| std::fs::read(p).map_or(true, |old| old != t.as_bytes()))
        .map(|(p, t)| (p.clone(), t.clone().into_bytes()))
        .collect();
    crate::write::write_all(&files, &leftovers(output))?;
    Ok(files.len())
}

/// A definition kept opaque (`--lenient`) becomes an item of its own (any
/// JSON): its name must make a Rust identifier no other item has.
fn opaque_names(m: &Module) -> Result<()> {
    let mut errors = Vec::new();
    for d in &m.defs {
        if !matches!(d.kind, crate::model::Kind::Opaque(_)) {
            continue;
        }
        let problem = if syn::parse_str::<syn::Ident>(&d.rust_name).is_err() {
            Some(format!("`{}` (from `{}`) cannot be a Rust identifier", d.rust_name, d.name))
        } else {
            m.defs
                .iter()
                .flat_map(crate::model::Def::walk)
                .find(|o| o.rust_name == d.rust_name && o.name != d.name)
                .map(|o| format!("`{}` and `{}` both become the Rust item `{}`", d.name, o.name, d.rust_name))
        };
        if let Some(message) = problem {
            errors.push(Error::Schema { file: m.source.clone().into(), pointer: format!("#{}", d.pointer), message });
        }
    }
    Error::all(errors)
}
