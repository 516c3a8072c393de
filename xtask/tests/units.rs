//! Tests of the generator's parts on small inputs (the whole generator is
//! tested through its output in `tests/cli.rs` and the workspace's tests).
//! They are integration tests, not unit tests inside the library, so that
//! `cargo test` does not build the library a second time in test mode (it
//! took about 17 s of a first test run's compiling).

mod fuzz {
    use std::collections::BTreeSet;
    use std::path::Path;
    use std::process::Command;

    use serde_json::Value;
    use xtask::fuzz::*;

    #[test]
    fn stats_come_from_libfuzzer_output() {
        let log = "#1024\tpulse  cov: 812 ft: 2301 corp: 97/12Kb exec/s: 512 rss: 80Mb\n\
                   #2048\tNEW    cov: 830 ft: 2400 corp: 101/13Kb lim: 100 exec/s: 600 rss: 81Mb\n\
                   stat::number_of_executed_units: 123456\n";
        let s = parse_stats(log);
        assert_eq!((s.execs, s.cov, s.features, s.corpus), (123_456, 830, 2400, 101));
    }

    #[test]
    fn every_target_has_seeds_and_the_dictionary_parses() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for t in TARGETS {
            let seeds = seeds(&root, t.name).unwrap();
            assert!(seeds.len() >= 5, "{}: {} seeds", t.name, seeds.len());
            assert!(seeds.iter().all(|s| s.len() <= t.max_len), "{}: a seed over -max_len", t.name);
        }
        let dict = dictionary(&root).unwrap();
        for line in dict.lines().filter(|l| !l.starts_with('#')) {
            assert!(line.starts_with('"') && line.ends_with('"') && line.len() >= 3, "{line}");
        }
        assert!(target("nope").unwrap_err().to_string().contains("json_decode"));
    }

    /// Every `(name, version)` a workspace's lock file resolves, as `cargo metadata --locked`
    /// reads it (which fails when the lock would need a change).
    fn locked_packages(manifest: &Path) -> BTreeSet<(String, String)> {
        let out = Command::new(env!("CARGO"))
            .args(["metadata", "--locked", "--format-version", "1", "--manifest-path"])
            .arg(manifest)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "the lock file of {} needs updating (`cargo update --manifest-path {0} --workspace`):\n{stderr}",
            manifest.display()
        );
        let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
        let packages = metadata["packages"].as_array().expect("`cargo metadata` lists packages");
        packages
            .iter()
            .map(|p| (p["name"].as_str().unwrap().to_owned(), p["version"].as_str().unwrap().to_owned()))
            .collect()
    }

    /// The fuzz workspace is built only where nightly is, which CI is not, so its lock file
    /// would go stale unseen when a crate of the main workspace gains a dependency. Checked on
    /// stable: cargo resolves it with `--locked` (refused when the lock needs a change), and
    /// every crate both locks hold is at a version the main lock has, so the fuzz targets build
    /// what the tests build.
    #[test]
    fn the_fuzz_lock_is_current_and_agrees_with_the_workspace_lock() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let main = locked_packages(&root.join("Cargo.toml"));
        let fuzz = locked_packages(&root.join("fuzz/Cargo.toml"));
        let names: BTreeSet<&String> = main.iter().map(|(n, _)| n).collect();
        let differ: Vec<_> = fuzz.iter().filter(|p| names.contains(&p.0) && !main.contains(p)).collect();
        assert!(differ.is_empty(), "fuzz/Cargo.lock has versions the workspace's Cargo.lock does not: {differ:?}");
        assert!(fuzz.iter().any(|(n, _)| n == "libfuzzer-sys"), "no libfuzzer-sys in {fuzz:?}");
        assert!(fuzz.iter().any(|(n, _)| n == "genco"), "no genco (xtask's) in {fuzz:?}");
        assert!(fuzz.len() > 50, "cargo metadata listed {} packages", fuzz.len());
    }
}

mod messages {
    use std::path::Path;
    use xtask::messages::*;

    #[test]
    fn placeholders_are_read_once_each_in_order() {
        assert_eq!(placeholders("`{key}` in {union}, {key} again").unwrap(), ["key", "union"]);
        assert!(placeholders("no values").unwrap().is_empty());
    }

    #[test]
    fn a_broken_template_is_refused_with_what_is_wrong() {
        assert!(placeholders("a lone } here").unwrap_err().contains("a lone `}`"));
        assert!(placeholders("open {key").unwrap_err().contains("an unclosed `{`"));
        assert!(placeholders("{Key}").unwrap_err().contains("no snake-case placeholder"));
        let dir = std::env::temp_dir().join(format!("acp-messages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("messages.json");
        std::fs::write(&path, r#"{"fine": "ok {a}", "broken": "x {"}"#).unwrap();
        let e = read(&path, Path::new("messages.json")).unwrap_err().to_string();
        assert!(e.contains("messages.json") && e.contains("/broken") && e.contains("unclosed"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn both_targets_write_every_placeholder() {
        let m = Message {
            name: "unknown_tag".into(),
            template: "`{key}` is `{tag}`".into(),
            params: vec!["key".into(), "tag".into()],
        };
        let items = rust(std::slice::from_ref(&m));
        let rust = quote::quote!(#(#items)*).to_string();
        assert!(rust.contains("fn unknown_tag") && rust.contains("key : & 'a dyn fmt :: Display"), "{rust}");
        let ts = typescript(std::slice::from_ref(&m), "messages.json");
        assert!(
            ts.contains(
                "export const unknownTag = (key: Shown, tag: Shown): string => `\\`${key}\\` is \\`${tag}\\``;"
            ),
            "{ts}"
        );
        let py = python(&[m], "messages.json");
        assert!(py.contains("def unknown_tag(key: Shown, tag: Shown) -> str:"), "{py}");
        assert!(py.contains("    return f\"`{key!s}` is `{tag!s}`\"\n"), "{py}");
    }

    #[test]
    fn python_strings_escape_quotes_backslashes_and_braces() {
        let quoted = Message { name: "q".into(), template: r#"say "{a}" \ done"#.into(), params: vec!["a".into()] };
        let plain = Message { name: "p".into(), template: r#"a "quote""#.into(), params: vec![] };
        let py = python(&[quoted, plain], "messages.json");
        assert!(py.contains(r#"    return f"say \"{a!s}\" \\ done""#), "{py}");
        assert!(py.contains(r#"    return "a \"quote\"""#), "{py}");
    }
}

mod paths {
    use xtask::paths::*;

    fn shortened(code: &str) -> String {
        let mut file: syn::File = syn::parse_str(code).unwrap();
        shorten(&mut file, &["xtask::runtime", "::acp_bindings::json", "::std::borrow::Cow"]);
        prettyplease::unparse(&file)
    }

    #[test]
    fn prelude_paths_shorten_unless_the_file_defines_the_name() {
        let out = shortened(
            r#"
            pub struct Result;
            #[serde(skip_serializing_if = "::core::option::Option::is_none", with = "xtask::runtime::read::with::<xtask::runtime::read::Lenient,_,_>")]
            pub struct A(::core::option::Option<::std::string::String>, ::core::result::Result<u8, ()>);
            fn f() -> ::core::option::Option<u8> { ::core::option::Option::Some(<u8 as ::core::convert::From<u8>>::from(1)) }
            fn g() { let _ = xtask::runtime::de::once; let _ = ::acp_bindings::json::fast::Bail; }
            pub mod inner { fn h() { let _ = xtask::runtime::Extra::new(); } }
            fn name() -> ::std::borrow::Cow<'static, str> { ::std::borrow::Cow::Borrowed("x") }
            "#,
        );
        // A type imported by its name, its arguments kept.
        assert!(out.contains("fn name() -> Cow<'static, str> {\n    Cow::Borrowed(\"x\")"), "{out}");
        // `Result` is this file's: its absolute path stays; the others shorten.
        assert!(out.contains("::core::result::Result<u8, ()>"), "{out}");
        assert!(out.contains("pub struct A(Option<String>"), "{out}");
        assert!(out.contains("Some(<u8 as From<u8>>::from(1))"), "{out}");
        // Modules by their last name, imported where used (an inline module is its own scope).
        let uses =
            "#[allow(unused_imports)]\nuse xtask::runtime;\n#[allow(unused_imports)]\nuse ::acp_bindings::json;\n";
        assert!(out.starts_with(uses), "{out}");
        assert!(out.contains("let _ = runtime::de::once;") && out.contains("let _ = json::fast::Bail;"), "{out}");
        assert!(
            out.contains("pub mod inner {\n    #[allow(unused_imports)]\n    use xtask::runtime;\n    fn h()"),
            "{out}"
        );
        // Path strings of serde attributes, not other strings.
        assert!(out.contains(r#"skip_serializing_if = "Option::is_none""#), "{out}");
        assert!(out.contains(r#"with = "runtime::read::with::<runtime::read::Lenient,_,_>""#), "{out}");
    }

    #[test]
    fn a_module_named_like_an_alias_keeps_the_full_paths() {
        let out = shortened("pub mod runtime {} fn g() { let _ = xtask::runtime::de::once; }");
        assert!(out.contains("xtask::runtime::de::once") && !out.contains("use xtask::runtime;"), "{out}");
    }
}

mod cfg_pairs {
    use xtask::cfg_pairs::collapse;

    fn run(src: &str) -> String {
        let mut file: syn::File = syn::parse_str(src).unwrap();
        collapse(&mut file);
        prettyplease::unparse(&file)
    }

    #[test]
    fn an_equal_adjacent_pair_is_written_once() {
        let out = run(r#"
            fn f(m: &str) -> u8 {
                match m {
                    #[cfg(not(feature = "unstable"))]
                    "a" => 1,
                    #[cfg(feature = "unstable")]
                    "a" => 1,
                    #[cfg(feature = "unstable")]
                    "b" => 2,
                    _ => 0,
                }
            }
            const M: &[&str] = &[#[cfg(not(feature = "unstable"))] "a", #[cfg(feature = "unstable")] "a"];
        "#);
        assert_eq!(out.matches("\"a\" => 1").count(), 1, "{out}");
        assert_eq!(out.matches("cfg(").count(), 1, "only the unstable-only arm keeps its gate: {out}");
        assert!(out.contains("&[\"a\"]"), "{out}");
    }

    #[test]
    fn a_pair_that_differs_or_is_not_adjacent_stays() {
        let src = r#"
            fn f(m: &str) -> u8 {
                match m {
                    #[cfg(not(feature = "unstable"))]
                    "a" => 1,
                    #[cfg(feature = "unstable")]
                    "a" => 3,
                    #[cfg(not(feature = "unstable"))]
                    "b" => 2,
                    "c" => 0,
                    #[cfg(feature = "unstable")]
                    "b" => 2,
                    _ => 0,
                }
            }
        "#;
        let out = run(src);
        assert_eq!(out.matches("cfg(").count(), 4, "{out}");
    }

    #[test]
    fn either_order_is_a_pair() {
        let out = run(r#"
            #[cfg(feature = "unstable")]
            struct S;
            #[cfg(not(feature = "unstable"))]
            struct S;
        "#);
        assert_eq!(out.matches("cfg(").count(), 0, "{out}");
    }
}

mod shared {
    use quote::ToTokens;
    use xtask::shared::*;

    fn file(src: &str) -> syn::File {
        syn::parse_str(src).unwrap()
    }

    #[test]
    fn items_every_module_has_move_once_and_each_module_includes_them() {
        let mut a = file(
            "use x::Y; /// A.\npub struct A; pub struct B(u8); impl A {} mod rpc { pub enum E {} pub struct Only; }",
        );
        let mut b = file(
            "use x::Y; /// A.\npub struct A; pub struct B(u16); impl A {} mod rpc { pub struct Other; pub enum E {} }",
        );
        let shared = share(&mut [&mut a, &mut b], "../shared");
        let stems: Vec<&str> = shared.iter().map(|s| s.stem.as_str()).collect();
        assert_eq!(stems, ["items", "rpc"]);
        let text = |items: &[syn::Item]| items.iter().map(|i| i.to_token_stream().to_string()).collect::<Vec<_>>();
        assert_eq!(text(&shared[0].items), ["# [doc = \" A.\"] pub struct A ;", "impl A { }"]);
        assert_eq!(text(&shared[1].items), ["pub enum E { }"]);
        let a_text = a.to_token_stream().to_string();
        assert!(
            a_text.starts_with("use x :: Y ; include ! (\"../shared/items.rs\") ; pub struct B (u8) ;"),
            "{a_text}"
        );
        assert!(a_text.contains("mod rpc { include ! (\"../shared/rpc.rs\") ; pub struct Only ; }"), "{a_text}");
        let b_text = b.to_token_stream().to_string();
        assert!(b_text.contains("mod rpc { pub struct Other ; include ! (\"../shared/rpc.rs\") ; }"), "{b_text}");
    }

    #[test]
    fn a_doc_or_gate_that_differs_keeps_the_item_in_each_module() {
        let mut a = file("/// One.\npub struct A; #[cfg(feature = \"unstable\")] pub struct B;");
        let mut b = file("/// Two.\npub struct A; pub struct B;");
        assert!(share(&mut [&mut a, &mut b], "../shared").is_empty());
        assert_eq!(a.items.len(), 2);
        let mut only = file("pub struct A;");
        assert!(share(&mut [&mut only], "../shared").is_empty());
    }
}

mod text {
    use xtask::model::text::gates;

    #[test]
    fn gating_sentences_are_told_from_other_rules() {
        let gating = [
            "All Agents MUST support this transport.",
            "Only available when the Agent capabilities include `mcp.stdio`.",
            "Agents MUST only send this update when the Client advertised [`ClientSessionCapabilities::notices`].",
            "Baseline agent functionality requires support for `text` and `resource_link` content blocks.",
            "When enabled, the Client is allowed to include `resource` content blocks in prompt requests.",
            "No Client capability is required.",
            "The client should supply `{}` only when it can reproduce the configured agent invocation.",
            "Agents that also support `session/list` may return `SessionInfo.additionalDirectories`.",
            "Unless the Client advertised support for this state, Agents MUST still report the standard states.",
            "`session/load` is still handled by the top-level `loadSession` capability.",
        ];
        let other = [
            "Prompt capabilities supported by the agent.",
            "Whether the agent supports the logout method.",
            "Supplying `{}` means the agent supports the logout method.",
            "Agents MUST reject a request with a transport they do not support with `-32602`.",
            "Agents that do not support this cursor MUST reject the request with `-32602`.",
            "Clients SHOULD render this text as CommonMark and MAY support GitHub Flavored Markdown extensions.",
            "Agents MUST return an error for modes they do not support, rather than ignoring them.",
            "Implementations MUST NOT make assumptions about values at these keys.",
            "Stdio transport configuration",
        ];
        for s in gating {
            assert!(gates(s), "should gate: {s}");
        }
        for s in other {
            assert!(!gates(s), "should not gate: {s}");
        }
    }
}

mod aliases {
    use std::collections::BTreeMap;
    use xtask::model::follow_aliases;

    #[test]
    fn an_alias_chain_ends_at_the_first_definition_that_is_not_an_alias() {
        let aliases: BTreeMap<&str, &str> = [("A", "B"), ("B", "C")].into_iter().collect();
        assert_eq!(follow_aliases("A", |n| aliases.get(n).copied()), "C");
        assert_eq!(follow_aliases("C", |n| aliases.get(n).copied()), "C");
    }

    #[test]
    #[should_panic(expected = "alias cycle A -> B -> A")]
    fn an_alias_cycle_is_named() {
        let aliases: BTreeMap<&str, &str> = [("A", "B"), ("B", "A")].into_iter().collect();
        follow_aliases("A", |n| aliases.get(n).copied());
    }
}

mod naming {
    use acp_bindings_codegen::case::Case;
    use xtask::plan::naming::{field_naming, naming};

    #[test]
    fn the_convention_most_names_follow_and_a_rename_for_the_rest() {
        let pairs = [("AgentMessage", "agent_message"), ("UserMessage", "user_message"), ("Plan", "plan_v2")];
        assert_eq!(naming(&pairs), (Some(Case::Snake), vec!["Plan"]));
        // One name alone does not make a convention.
        assert_eq!(naming(&[("Boolean", "boolean"), ("ValueId", "x")]), (None, vec!["Boolean", "ValueId"]));
        // Names that are the wire names need nothing.
        assert_eq!(naming(&[("Number", "Number"), ("Str", "Str")]), (None, vec![]));
        let fields =
            [("session_id", "sessionId"), ("tool_call_id", "toolCallId"), ("meta", "_meta"), ("r#type", "type")];
        assert_eq!(field_naming(&fields), (Some(Case::Camel), vec!["meta"]));
        assert_eq!(field_naming(&[("title", "title"), ("meta", "_meta")]), (None, vec!["meta"]));
    }
}

mod item_names {
    use xtask::model::Module;
    use xtask::plan::item_names::resolve;

    fn module(source: &str, names: &[(&str, &str)]) -> Module {
        let defs = names
            .iter()
            .map(|(name, rust)| {
                let json = serde_json::json!({ "$defs": { *name: { "type": "string" } } });
                let mut m = xtask::lower::lower(std::path::Path::new(source), &json).expect("lowers");
                let mut d = m.defs.remove(0);
                d.rust_name = (*rust).to_owned();
                d
            })
            .collect();
        Module { source: source.to_owned(), defs, warnings: Vec::new() }
    }

    #[test]
    fn the_later_definition_or_the_schema_side_is_renamed_the_same_in_both_files() {
        let mut stable = module("s.json", &[("Message", "Message"), ("ToolCall", "ToolCall")]);
        let mut unstable = module(
            "u.json",
            &[("tool_call", "ToolCall"), ("ToolCall", "ToolCall"), ("Message", "Message"), ("ToolCall2", "ToolCall2")],
        );
        let warnings = resolve(&mut [&mut stable, &mut unstable], &["Message".to_owned()]);
        let names = |m: &Module| m.defs.iter().map(|d| d.rust_name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&stable), ["MessageDef", "ToolCall"]);
        // `ToolCall2` is a definition's own name: the renamed one takes the next number.
        assert_eq!(names(&unstable), ["ToolCall3", "ToolCall", "MessageDef", "ToolCall2"]);
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(warnings[0].starts_with("s.json: #/$defs/Message: `Message` is renamed `MessageDef`"), "{warnings:#?}");
        assert!(
            warnings[1].contains("`ToolCall` (#/$defs/ToolCall) is the Rust item `ToolCall` already"),
            "{warnings:#?}"
        );
    }
}

mod obligation {
    use xtask::diff::obligation::*;
    use xtask::model::text::clean;

    fn vocabulary() -> Vocabulary {
        let schema = serde_json::json!({
            "$defs": {
                "ClientCapabilities": {"type": "object", "properties": {
                    "session": {"$ref": "#/$defs/ClientSessionCapabilities"}}},
                "ClientSessionCapabilities": {"type": "object", "properties": {
                    "compaction": {"type": "boolean"}, "notices": {"type": "boolean"}}},
                "AgentCapabilities": {"type": "object", "properties": {"loadSession": {"type": "boolean"}}},
                "AuthMethod": {"type": "object", "properties": {"id": {"type": "string"}}},
                "InitializeResponse": {"type": "object", "properties": {
                    "authMethods": {"type": "array", "items": {"$ref": "#/$defs/AuthMethod"}}}},
                "PromptRequest": {"type": "object", "properties": {"x": {"type": "string"}}},
                "TextContent": {"type": "object", "properties": {"text": {"type": "string"}}},
                "ContentBlock": {"oneOf": [
                    {"allOf": [{"$ref": "#/$defs/TextContent"}], "properties": {"type": {"const": "text"}}, "required": ["type"]},
                    {"allOf": [{"$ref": "#/$defs/TextContent"}], "properties": {"type": {"const": "resource_link"}}, "required": ["type"]}
                ]},
                "RequestPermissionOutcome": {"oneOf": [
                    {"properties": {"outcome": {"const": "cancelled"}}, "required": ["outcome"], "type": "object"}
                ]}
            }
        });
        let module = xtask::lower::lower(std::path::Path::new("test.json"), &schema).expect("lowers");
        Vocabulary::of(module.defs.iter())
    }

    fn same(v: &Vocabulary, a: &str, b: &str) -> bool {
        v.signature(&clean(a)) == v.signature(&clean(b))
    }

    #[test]
    fn rewordings_of_one_obligation_have_one_signature() {
        let v = vocabulary();
        let pairs = [
            (
                "Agents MUST only send this update when the Client advertised [`ClientSessionCapabilities::compaction`].",
                "Agents MUST only send this update when the Client advertised the `session.compaction` Client capability.",
            ),
            (
                "Baseline agent functionality requires support for [`ContentBlock::Text`] and [`ContentBlock::ResourceLink`] in prompt requests.",
                "Baseline agent functionality requires support for `text` and `resource_link` content blocks in prompt requests.",
            ),
            (
                "`session/load` is still handled by the top-level `load_session` capability.",
                "`session/load` is still handled by the top-level `loadSession` capability.",
            ),
            (
                "Agents MUST support this method when their `initialize` response advertised at least one valid authentication method.",
                "Agents MUST support this method when their `initialize` response included a non-empty `authMethods` list.",
            ),
            (
                "If the client cancels the prompt turn via `session/cancel`, it MUST respond to this request with `RequestPermissionOutcome::Cancelled`.",
                "If the client cancels the prompt turn via `session/cancel`, it MUST respond to this request with the `cancelled` outcome.",
            ),
            ("Agents advertising the capability MUST accept Text.", "Agents advertising the capability MUST accept `text` content blocks."),
            (
                "Agents MUST return an error for modes they do not support.",
                "Agents MUST return an error for a mode they do not support rather than treating it as `append` or `override`.",
            ),
        ];
        for (a, b) in pairs {
            assert!(same(&v, a, b), "{a}\n{b}\n{:?}\n{:?}", v.signature(&clean(a)), v.signature(&clean(b)));
        }
    }

    #[test]
    fn a_changed_modal_actor_action_or_condition_is_another_obligation() {
        let v = vocabulary();
        let pairs = [
            (
                "Agents that also support `session/list` may return `SessionInfo.additionalDirectories`.",
                "Agents may return `SessionInfo.additionalDirectories`.",
            ),
            (
                "The client should disconnect if it does not support this version.",
                "The client must disconnect if it does not support this version.",
            ),
            (
                "Agents MUST only send this update when the Client advertised compaction.",
                "Agents MUST only send this update when the Client advertised notices.",
            ),
            (
                "Agents MUST only send this update when the Client advertised compaction.",
                "Clients MUST only send this update when the Agent advertised compaction.",
            ),
            (
                "Agents MUST only send this update when the Client advertised compaction.",
                "Agents MUST only send this update unless the Client advertised compaction.",
            ),
            ("Agents MUST reject it with `-32602`.", "Agents MAY reject it with `-32602`."),
            (
                "Clients MUST treat values they do not recognize as `unknown`.",
                "Clients MUST treat values they do not recognize as `idle`.",
            ),
            (
                "Agents MUST advertise this method only when the client enabled it.",
                "Agents MUST include this method only when the client enabled it.",
            ),
        ];
        for (a, b) in pairs {
            assert!(!same(&v, a, b), "{a}\n{b}\n{:?}", v.signature(&clean(a)));
        }
    }

    #[test]
    fn handling_sentences_are_found() {
        for s in [
            "Agents MUST reject a request with a transport they do not support with `-32602`.",
            "Clients MUST treat values they do not recognize as `unknown`.",
            "Agents that do not understand this action should preserve the raw payload, and otherwise MUST handle it as `cancel`.",
            "Agents MUST return an error for modes they do not support.",
            "An Agent MUST return `-32602` for a value it does not support rather than treating it as `exclude`.",
            "Agents MAY reject duplicates with `-32602`, and otherwise the last entry wins.",
        ] {
            assert!(handles(s), "{s}");
        }
        for s in [
            "Agents MUST only send this update when the Client advertised compaction.",
            "Whether the agent supports the logout method.",
            "The agent returns the list of sessions.",
            "`{ \"start\" }` means the Agent should replay the whole conversation before responding.",
            "Implementations MUST NOT make assumptions about values at these keys.",
        ] {
            assert!(!handles(s), "{s}");
        }
    }
}
