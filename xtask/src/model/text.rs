//! What descriptions say, read from their words: the helpers the upsert
//! checks and the schema diff share. A description is compared by its words
//! (case, punctuation, whitespace, link targets and the UNSTABLE banner set
//! aside), split into sentences, and read for what the peers act on: the
//! wording of upserts ("patch semantics"), the words that say what omitted,
//! `null` and a value do, and gating sentences (who must support something,
//! when it may be sent).

/// A description with case, punctuation, whitespace and line breaks set
/// aside: the words only.
pub fn normalize(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The words a sentence uses to say what omitted, `null` and a value do to
/// stored state: a changed sentence with one of them may change an upsert rule.
const RULE_WORDS: &[&str] = &[
    "omit",
    "omits",
    "omitted",
    "omission",
    "null",
    "unset",
    "unsets",
    "unchanged",
    "clear",
    "clears",
    "cleared",
    "reset",
    "resets",
    "replace",
    "replaces",
    "replaced",
    "replacement",
    "merge",
    "merges",
    "merged",
    "default",
    "defaults",
    "absent",
    "append",
    "appends",
    "appended",
    "remove",
    "removes",
    "removed",
    "inherit",
    "inherits",
    "stored",
];

/// Whether a sentence speaks of what omitted, `null` or a value do.
pub fn speaks_of_rules(sentence: &str) -> bool {
    normalize(sentence).split(' ').any(|w| RULE_WORDS.contains(&w))
}

/// A description without what does not carry meaning: the UNSTABLE banner
/// (it marks stability), link targets (`[text](url)` keeps `text`) and
/// rustdoc links to a member (``[`Type::field_name`]`` reads `fieldname`,
/// as the wire name `fieldName` normalises).
pub fn clean(text: &str) -> String {
    let text = text
        .replace("This capability is not part of the spec yet, and may be removed or changed at any point.", " ")
        .replace("**UNSTABLE**", " ");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find('[') {
        out += &rest[..i];
        let tail = &rest[i..];
        let Some(close) = tail.find(']') else {
            out += tail;
            rest = "";
            break;
        };
        let inner = &tail[1..close];
        let after = &tail[close + 1..];
        if let Some(code) = inner.strip_prefix('`').and_then(|c| c.strip_suffix('`')) {
            out += &code.rsplit("::").next().unwrap_or(code).replace('_', "");
        } else {
            out += inner;
        }
        rest = match after.strip_prefix('(').and_then(|a| a.find(')').map(|j| &a[j + 1..])) {
            Some(r) => r,
            None => after,
        };
    }
    out += rest;
    out
}

/// The sentences one text has and the other lacks (compared by their words).
pub fn changed_sentences(was: &str, is: &str) -> (Vec<String>, Vec<String>) {
    // A paragraph ends a sentence too (a heading line such as "HTTP
    // transport configuration" has no full stop).
    let split = |t: &str| -> Vec<String> {
        let mut out = Vec::new();
        for paragraph in t.split("\n\n") {
            let flat = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut cur = String::new();
            let chars: Vec<char> = flat.chars().collect();
            for (i, c) in chars.iter().enumerate() {
                cur.push(*c);
                let ends = matches!(c, '.' | '!' | '?' | ':' | ';') && chars.get(i + 1).is_none_or(|n| *n == ' ');
                if ends {
                    out.push(cur.trim().to_owned());
                    cur.clear();
                }
            }
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_owned());
            }
        }
        out
    };
    let (a, b) = (split(was), split(is));
    let norm_a: Vec<String> = a.iter().map(|s| normalize(s)).collect();
    let norm_b: Vec<String> = b.iter().map(|s| normalize(s)).collect();
    let gone = a.iter().zip(&norm_a).filter(|(_, n)| !n.is_empty() && !norm_b.contains(n)).map(|(s, _)| s.clone());
    let new = b.iter().zip(&norm_b).filter(|(_, n)| !n.is_empty() && !norm_a.contains(n)).map(|(s, _)| s.clone());
    (gone.collect(), new.collect())
}

/// Whether a description uses the spec's wording for upserts (a diff's
/// "patch" is a text patch, so the word alone does not count).
pub fn speaks_of_patches(docs: Option<&str>) -> bool {
    docs.is_some_and(|t| {
        // Words only: a line break or a backquote inside a phrase does not hide it.
        let t = normalize(t);
        ["patch semantics", "patches the stored", "patch that entity", "patch the previous"]
            .iter()
            .any(|p| t.contains(p))
    })
}

/// Whether a sentence gates a feature: it says who must support something,
/// or when something may be sent, advertised or used in terms of a
/// capability or a baseline obligation ("All agents MUST support this
/// transport", "Only available when the agent capabilities include
/// `mcp.stdio`", "Agents MUST only send this update when the client
/// advertised ...", "Baseline agent functionality requires support for
/// ...", "No client capability is required").
///
/// Read from the words: a gating phrase; `must`, `should` or `shall`
/// within five words of `support` or `advertise`, or of `only when` /
/// `only if` (`may` only after them: "agents that support X may send Y"); or a sentence about a capability that says when
/// it applies (`include`, `advertised`, `requires`, `unless`, `only`,
/// `enabled`, `handled`).
pub fn gates(sentence: &str) -> bool {
    let n = format!(" {} ", normalize(sentence));
    let has = |p: &str| n.contains(&format!(" {p} "));
    const PHRASES: &[&str] = &[
        "must support",
        "must not support",
        "must be supported",
        "must only",
        "only available",
        "only be sent",
        "only send",
        "only sent",
        "requires support",
        "require support",
        "is allowed to",
        "are allowed to",
        "no client capability",
        "no agent capability",
    ];
    if PHRASES.iter().any(|p| has(p)) {
        return true;
    }
    let words: Vec<&str> = n.split_whitespace().collect();
    let at = |pred: &dyn Fn(&str) -> bool| -> Vec<usize> {
        words.iter().enumerate().filter(|(_, w)| pred(w)).map(|(i, _)| i).collect()
    };
    let modals = at(&|w| matches!(w, "must" | "should" | "shall"));
    let mays = at(&|w| w == "may");
    // "MUST support" gates either way round; "MAY support" offers an option,
    // but "agents that support X may send Y" gates Y on X.
    let near = |others: &[usize]| {
        modals.iter().any(|m| others.iter().any(|o| m.abs_diff(*o) <= 5))
            || mays.iter().any(|m| others.iter().any(|o| *o < *m && m - o <= 5))
    };
    // "Agents that do not support X MUST reject it" handles what is not
    // supported; it gates nothing.
    let support: Vec<usize> = at(&|w| w.starts_with("support") || w.starts_with("advertis"))
        .into_iter()
        .filter(|i| !matches!(i.checked_sub(1).and_then(|j| words.get(j)), Some(&"not" | &"t")))
        .collect();
    let only_when = at(&|w| w == "only")
        .into_iter()
        .filter(|i| matches!(words.get(i + 1), Some(&"when" | &"if")))
        .collect::<Vec<_>>();
    if near(&support) || near(&only_when) {
        return true;
    }
    let capability = words.iter().any(|w| w.starts_with("capabilit"));
    capability
        && words.iter().any(|w| {
            w.starts_with("includ")
                || w.starts_with("advertis")
                || w.starts_with("requir")
                || matches!(*w, "unless" | "only" | "enabled" | "handled")
        })
}
