//! Obligations in prose, compared by what they oblige rather than by their
//! words.
//!
//! A gating sentence ("Agents MUST only send this update when the Client
//! advertised compaction") or a handling sentence ("Agents MUST reject a
//! request with a transport they do not support with `-32602`", "Clients MUST
//! treat values they do not recognize as `unknown`") says who must do what,
//! under which condition. A changed sentence of either kind is a change of
//! obligation unless the other side has a sentence with the same
//! *signature*: the sentence's words in order, lowercased, with these
//! rewordings set aside:
//!
//! - a name's spelling: in backticks or not, `load_session`, `loadSession` and
//!   `LoadSession` are one name (case, `_`, `-`, `/` and `.` aside, a plural
//!   `s` aside); `RequestPermissionOutcome::Cancelled` is `Cancelled`;
//! - a capability spelled out with its path (`session.compaction`: every
//!   segment a property of a `*Capabilities` definition of either side) is
//!   the capability (`compaction`), and "the X Client capability" is X;
//! - a union arm or enum value named by its variant (`Text`, `ResourceLink`)
//!   or by its tag with its union's name after it (`text` and
//!   `resource_link` content blocks, the `cancelled` outcome) is the arm;
//! - a definition or a capability named in words ("authentication methods",
//!   "prompt requests", "the `initialize` response"; `auth` and
//!   `authentication`, `config` and `configuration` are one word) is its
//!   name, and a list property is the definition of its items (`authMethods`
//!   is authentication methods; "a non-empty `authMethods` list");
//! - "at least one", "one or more" and "non-empty" are one quantity; articles,
//!   possessives and "valid", "top-level" and "also" are left out;
//! - what a "rather than" or "instead of" excludes is left out: it says no
//!   more than what comes before it;
//! - the verbs a message carries something with (advertise, include, supply,
//!   contain) are one verb, except the verb the modal governs ("Agents MUST
//!   advertise this method" keeps `advertise`).
//!
//! So the modal and its negation, the actors, the action and the condition's
//! names and words all count: "Agents that also support `session/list` may
//! return ..." and "Agents may return ..." differ, as do SHOULD and MUST.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Def, Kind, Type};

/// The names of both sides of a diff that a sentence can use, with the
/// shapes the rewordings need.
#[derive(Debug, Default)]
pub struct Vocabulary {
    /// Capability properties (of `*Capabilities` definitions), by canonical name.
    capabilities: BTreeSet<String>,
    /// List properties, by canonical name: the canonical name of their items' definition.
    lists: BTreeMap<String, String>,
    /// Names in words (a definition's or capability's name split into words,
    /// each canonical), longest first: the canonical name.
    phrases: Vec<(Vec<String>, String)>,
    /// An arm's or enum value's canonical tag and variant name: how its
    /// union's or enum's name may follow it (the name, its words, its last
    /// word), longest first.
    arms: BTreeMap<String, Vec<Vec<String>>>,
    /// Definitions, by canonical name.
    defs: BTreeSet<String>,
}

/// A name or word as the signature compares it: lowercase, letters and
/// digits only, a plural `s` dropped, `authentication` as `auth` and
/// `configuration` as `config`.
pub fn canonical(word: &str) -> String {
    let w: String = word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    let w = w.replace("authentication", "auth").replace("configuration", "config");
    match w.strip_suffix('s') {
        Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_owned(),
        _ => w,
    }
}

/// `ResourceLink` -> `["resource", "link"]`, `loadSession` -> `["load",
/// "session"]`, `load_session` -> the same; each word canonical.
fn words_of(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        let boundary = c.is_uppercase()
            && !cur.is_empty()
            && (chars[i - 1].is_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_lowercase()));
        if (!c.is_alphanumeric() || boundary) && !cur.is_empty() {
            out.push(canonical(&cur));
            cur.clear();
        }
        if c.is_alphanumeric() {
            cur.push(*c);
        }
    }
    if !cur.is_empty() {
        out.push(canonical(&cur));
    }
    out
}

impl Vocabulary {
    /// The vocabulary of the definitions of both sides.
    pub fn of<'a>(defs: impl IntoIterator<Item = &'a Def>) -> Vocabulary {
        let mut v = Vocabulary::default();
        let mut phrases = BTreeMap::new();
        for d in defs {
            let name = canonical(&d.name);
            v.defs.insert(name.clone());
            phrases.insert(words_of(&d.name), name.clone());
            match &d.kind {
                Kind::Struct(s) => {
                    for f in &s.fields {
                        if d.name.ends_with("Capabilities") {
                            v.capabilities.insert(canonical(&f.name));
                            phrases.insert(words_of(&f.name), canonical(&f.name));
                        }
                        if let Type::Array { items, .. } = &f.ty {
                            if let Type::Ref(r) = items.as_ref() {
                                v.lists.insert(canonical(&f.name), canonical(r));
                            }
                        }
                    }
                }
                Kind::Union(u) => {
                    for a in &u.variants {
                        for n in a.tag.iter().chain([&a.rust_name]) {
                            v.arm(n, &d.name);
                        }
                    }
                }
                Kind::Enum(e) => {
                    for x in &e.variants {
                        v.arm(x.value.to_string().trim_matches('"'), &d.name);
                        v.arm(&x.rust_name, &d.name);
                    }
                }
                _ => {}
            }
        }
        let mut phrases: Vec<(Vec<String>, String)> = phrases.into_iter().filter(|(w, _)| w.len() >= 2).collect();
        phrases.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
        v.phrases = phrases;
        v
    }

    /// Records an arm named `arm` of the union or enum `of`.
    fn arm(&mut self, arm: &str, of: &str) {
        let words = words_of(of);
        let suffixes = self.arms.entry(canonical(arm)).or_default();
        for s in [words.clone(), vec![canonical(of)], words.last().cloned().into_iter().collect()] {
            if !s.is_empty() && !suffixes.contains(&s) {
                suffixes.push(s);
            }
        }
        suffixes.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    /// A name written in backticks, canonical: the part after `::`, a
    /// capability path as its last segment, a list property as its items'
    /// definition.
    fn term(&self, inner: &str) -> String {
        let inner = inner.rsplit("::").next().unwrap_or(inner);
        let segments: Vec<String> = inner.split('.').map(canonical).collect();
        let name = if segments.len() > 1 && segments.iter().all(|s| self.capabilities.contains(s)) {
            segments.last().cloned().unwrap_or_default()
        } else {
            canonical(inner)
        };
        self.lists.get(&name).cloned().unwrap_or(name)
    }

    /// The signature of a sentence (see the module's documentation).
    pub fn signature(&self, sentence: &str) -> Vec<String> {
        // "X rather than Y", "X instead of Y": what X excludes says no more than X.
        let lower = sentence.to_ascii_lowercase();
        let cut = ["rather than", "instead of"].iter().filter_map(|p| lower.find(p)).min();
        let sentence = cut.map_or(sentence, |i| &sentence[..i]);
        let tokens = self.names_joined(tokens(sentence).into_iter().map(|t| match t {
            Token::Term(t) => self.term(&t),
            Token::Word(w) => canonical(&w),
        }));
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        let mut after_modal = false;
        while i < tokens.len() {
            let t = tokens[i].as_str();
            let rest = &tokens[i..];
            let starts = |p: &[&str]| rest.len() >= p.len() && rest.iter().zip(p).all(|(a, b)| a == b);
            if starts(&["at", "least", "one"]) || starts(&["one", "or", "more"]) {
                out.push("some".into());
                i += 3;
                continue;
            }
            if starts(&["non", "empty"]) || t == "nonempty" {
                out.push("some".into());
                i += if t == "nonempty" { 1 } else { 2 };
                continue;
            }
            if matches!(t, "the" | "a" | "an" | "it" | "their" | "valid" | "top" | "level" | "also") {
                i += 1;
                continue;
            }
            let prev = out.last().map(String::as_str);
            // "the `session.compaction` Client capability", "a `authMethods` list".
            if matches!(t, "capability" | "capabilitie") && prev.is_some_and(|p| self.capabilities.contains(p)) {
                i += 1;
                continue;
            }
            if matches!(t, "client" | "agent")
                && matches!(tokens.get(i + 1).map(String::as_str), Some("capability" | "capabilitie"))
                && prev.is_some_and(|p| self.capabilities.contains(p))
            {
                i += 2;
                continue;
            }
            if t == "list" && prev.is_some_and(|p| self.defs.contains(p)) {
                i += 1;
                continue;
            }
            let modal = matches!(t, "must" | "should" | "shall" | "may" | "can" | "cannot");
            let carries = ["advertis", "includ", "suppl", "contain"].iter().any(|p| t.starts_with(p));
            if carries && !after_modal {
                out.push("has".into());
            } else {
                out.push(t.to_owned());
            }
            if modal {
                after_modal = true;
            } else if !matches!(t, "not" | "only" | "still" | "always" | "never" | "be") {
                after_modal = false;
            }
            i += 1;
        }
        out
    }

    /// Runs of words that spell a name ("authentication method", "initialize
    /// response") joined into it, longest first.
    fn names_joined(&self, tokens: impl Iterator<Item = String>) -> Vec<String> {
        let tokens: Vec<String> = tokens.collect();
        let mut out = Vec::new();
        let mut i = 0;
        'outer: while i < tokens.len() {
            // "`text` content blocks", "the `cancelled` outcome": the arm.
            for suffix in self.arms.get(&tokens[i]).into_iter().flatten() {
                if tokens[i + 1..].starts_with(suffix) {
                    out.push(tokens[i].clone());
                    i += 1 + suffix.len();
                    continue 'outer;
                }
            }
            for (words, name) in &self.phrases {
                if tokens[i..].starts_with(words) {
                    out.push(self.lists.get(name).cloned().unwrap_or_else(|| name.clone()));
                    i += words.len();
                    continue 'outer;
                }
            }
            out.push(tokens[i].clone());
            i += 1;
        }
        out
    }
}

enum Token {
    /// A name in backticks.
    Term(String),
    /// A word (letters and digits).
    Word(String),
}

fn tokens(sentence: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut rest = sentence;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`') {
            if let Some(end) = after.find('`') {
                out.push(Token::Term(after[..end].to_owned()));
                rest = &after[end + 1..];
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_alphanumeric() {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            out.push(Token::Word(rest[..end].to_owned()));
            rest = &rest[end..];
        } else {
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Whether a sentence says how a peer must (or may) handle what arrives:
/// the verb a modal governs (after `not`, `only`, `still`, `also`,
/// `always`) is `reject`, `treat`, `handle`, `ignore`, `accept`, `respond`,
/// `answer`, `disconnect`, `preserve`, or `return` with an error or a code
/// ("Agents MUST reject ... with `-32602`", "Clients MUST treat values they
/// do not recognize as `unknown`", "Agents MUST return an error for ...").
pub fn handles(sentence: &str) -> bool {
    let words: Vec<String> = tokens(sentence)
        .into_iter()
        .map(|t| match t {
            Token::Term(t) => format!("`{t}`"),
            Token::Word(w) => w.to_lowercase(),
        })
        .collect();
    let verb = |i: usize| -> bool {
        let w = words[i].as_str();
        const VERBS: &[&str] =
            &["reject", "treat", "handle", "ignore", "accept", "respond", "answer", "disconnect", "preserve"];
        if VERBS.iter().any(|v| w.starts_with(v)) {
            return true;
        }
        w.starts_with("return") && words[i + 1..].iter().take(3).any(|n| n.starts_with("error") || n.starts_with("`-3"))
    };
    words.iter().enumerate().any(|(m, w)| {
        if !matches!(w.as_str(), "must" | "should" | "shall" | "may") {
            return false;
        }
        let skip = |x: &String| matches!(x.as_str(), "not" | "only" | "still" | "also" | "always");
        (m + 1..words.len()).find(|i| !skip(&words[*i])).is_some_and(verb)
    })
}
