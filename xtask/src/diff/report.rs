//! Rendering reports: the markdown of a pull-request comment, GitHub
//! Actions annotations with file and line, and the accept file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{Change, Level, Report, Side, Summary};
use crate::error::{Error, Result};

/// The report as a pull-request comment: counts by level, then per file the
/// changes by level (breaking first) in a table whose columns are the
/// method that carries the definition, the change, who it breaks on the wire
/// and what it does to the generated Rust (its own axis); description-only
/// changes are summed up in one line.
pub fn markdown(reports: &[Report]) -> String {
    let mut out = String::new();
    let total = |f: fn(&Summary) -> usize| reports.iter().map(|r| f(&r.summary)).sum::<usize>();
    let all = Summary {
        breaking: total(|s| s.breaking),
        dangerous: total(|s| s.dangerous),
        compatible: total(|s| s.compatible),
        rust_breaking: total(|s| s.rust_breaking),
    };
    let one = findings(reports);
    out += &format!(
        "## Schema diff\n\n**{} breaking**, **{} dangerous**, {} compatible on the wire; **{} breaking** the Rust API\n",
        one.breaking, one.dangerous, one.compatible, one.rust_breaking
    );
    if one != all {
        out += &format!(
            "\nA change that the stable and the unstable file of a version both make is counted once; file by file: {} breaking, {} dangerous, {} compatible, {} breaking the Rust API.\n",
            all.breaking, all.dangerous, all.compatible, all.rust_breaking
        );
    }
    for r in reports {
        out += &format!("\n### `{}` -> `{}`\n\n", r.old, r.new);
        if r.applied.old == r.applied.new || same_rules(r) {
            out += &format!("Read as {}.\n\n", r.applied.new.describe());
        } else {
            out += &format!("Old read as {}.\nNew read as {}.\n\n", r.applied.old.describe(), r.applied.new.describe());
        }
        if r.changes.is_empty() {
            out += "No changes.\n";
            continue;
        }
        for level in [Level::Breaking, Level::Dangerous, Level::Compatible] {
            let mut cs: Vec<&Change> =
                r.changes.iter().filter(|c| c.level == level && c.kind != "description_changed").collect();
            if cs.is_empty() {
                continue;
            }
            cs.sort_by(|a, b| a.area.cmp(&b.area).then(a.def.cmp(&b.def)).then(a.kind.cmp(b.kind)));
            out += &format!("#### {} ({})\n\n", level.as_str(), cs.len());
            out += "| method | change | why | breaks | Rust |\n|---|---|---|---|---|\n";
            for c in cs {
                let rust = if c.rust.items.is_empty() {
                    format!("{}: {}", c.rust.level.as_str(), c.rust.note)
                } else {
                    format!(
                        "{} ({}): {}",
                        c.rust.level.as_str(),
                        c.rust.items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", "),
                        c.rust.note
                    )
                };
                out += &format!(
                    "| {} | `{}` {} | {} | {} | {} |\n",
                    cell(&c.area),
                    cell(&c.def),
                    c.kind,
                    cell(&c.reason),
                    cell(&c.breaks.join(", ")),
                    cell(&rust)
                );
            }
            out += "\n";
        }
        if !r.conversions.is_empty() {
            out += &format!("#### v1 ⇄ v2 conversions ({})\n\n", r.conversions.len());
            for c in &r.conversions {
                out += &format!("- {} {}: was {}; now {}.\n", c.label(), c.effect, c.was, c.now);
            }
            out += "\n";
        }
        let docs: BTreeSet<&str> =
            r.changes.iter().filter(|c| c.kind == "description_changed").map(|c| c.def.as_str()).collect();
        if !docs.is_empty() {
            out += &format!(
                "Descriptions changed in {} definitions: {}.\n",
                docs.len(),
                docs.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ")
            );
        }
    }
    out
}

/// A release's section for `CHANGELOG.md` (`--format changelog`, and what
/// `cargo xtask schema update` prints): under `## {title}`, the wire changes
/// by level (breaking, dangerous, compatible; a change the stable and the
/// unstable file of a version both make once, one only the unstable file
/// makes marked so; description-only changes counted in one line), then the
/// Rust API changes (breaking, then additive, by item).
pub fn changelog(title: &str, reports: &[Report]) -> String {
    // Each finding once: (level, version, line), with the files it is in.
    let mut findings: Vec<(Level, String, String, BTreeSet<bool>)> = Vec::new();
    let mut seen: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    let (mut docs, mut rust_breaking, mut rust_additive) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for r in reports {
        let version = r.applied.new.protocol.clone();
        let unstable = r.new.contains("unstable");
        for c in &r.changes {
            let items = c.rust.items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ");
            match c.rust.level {
                super::RustLevel::Breaking => {
                    rust_breaking.insert(format!("{version}: {items}: {}", c.rust.note));
                }
                super::RustLevel::Additive if !items.is_empty() => {
                    rust_additive.insert(format!("{version}: {items}"));
                }
                _ => {}
            }
            if c.kind == "description_changed" {
                docs.insert((version.clone(), c.def.clone()));
                continue;
            }
            let key = (version.clone(), c.fingerprint.clone(), c.reason.clone());
            let i = *seen.entry(key).or_insert_with(|| {
                let member = if c.member.is_empty() { String::new() } else { format!(".{}", c.member) };
                let breaks =
                    if c.breaks.is_empty() { String::new() } else { format!(" (breaks {})", c.breaks.join(", ")) };
                let line = format!("`{}{member}` {}: {}{breaks}", c.def, c.kind, c.reason.replace('\n', " "));
                findings.push((c.level, version.clone(), line, BTreeSet::new()));
                findings.len() - 1
            });
            findings[i].3.insert(unstable);
        }
    }
    let mut out = format!("## {title}\n");
    for level in [Level::Breaking, Level::Dangerous, Level::Compatible] {
        let mut lines: Vec<String> = findings
            .iter()
            .filter(|f| f.0 == level)
            .map(|(_, v, line, files)| {
                let only = if files.len() == 1 && files.contains(&true) { ", unstable only" } else { "" };
                format!("- {v}{only}: {line}")
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        lines.sort();
        out += &format!("\n### Wire: {} ({})\n\n{}\n", level.as_str(), lines.len(), lines.join("\n"));
    }
    if !docs.is_empty() {
        out += &format!(
            "\nDescriptions changed in {} definitions (no gating or handling sentence changed what it obliges).\n",
            docs.len()
        );
    }
    if !rust_breaking.is_empty() || !rust_additive.is_empty() {
        out += "\n### Rust API\n\n";
        for l in &rust_breaking {
            out += &format!("- breaking, {l}\n");
        }
        for l in &rust_additive {
            out += &format!("- added, {l}\n");
        }
    }
    if findings.is_empty() && docs.is_empty() {
        out += "\nNo changes.\n";
    }
    out
}

/// The counts by level of the findings of several reports: a change that
/// two files of one protocol version both make (the stable and the unstable
/// file: the same fingerprint and reason) is one finding.
pub fn findings(reports: &[Report]) -> Summary {
    let mut seen = BTreeSet::new();
    let mut out = Summary::default();
    for r in reports {
        for c in &r.changes {
            if !seen.insert((r.applied.new.protocol.as_str(), c.fingerprint.as_str(), c.reason.as_str())) {
                continue;
            }
            match c.level {
                Level::Breaking => out.breaking += 1,
                Level::Dangerous => out.dangerous += 1,
                Level::Compatible => out.compatible += 1,
            }
            if c.rust.level == super::RustLevel::Breaking {
                out.rust_breaking += 1;
            }
        }
    }
    out
}

/// Whether both files of a report were read alike (the version, how it was
/// decided and the upserts; the evidence may name different paths).
fn same_rules(r: &Report) -> bool {
    let (a, b) = (&r.applied.old, &r.applied.new);
    a.protocol == b.protocol
        && a.decided_by == b.decided_by
        && a.upsert_config == b.upsert_config
        && a.upserts == b.upserts
        && (a.decided_by != "contents" || a.evidence == b.evidence)
}

/// Text for a markdown table cell: `|` escaped, line breaks as spaces.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Reads an accept file: one fingerprint a line; blank lines and text after
/// `#` are ignored. A line that is not a fingerprint is an error naming it.
pub fn read_accepted(path: &Path) -> Result<BTreeSet<String>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read { file: path.to_path_buf(), source })?;
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or_default().trim();
        if l.is_empty() {
            continue;
        }
        if l.len() != 16 || !l.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::Schema {
                file: path.to_path_buf(),
                pointer: String::new(),
                message: format!("line {}: `{l}` is not a fingerprint (16 hex digits)", i + 1),
            });
        }
        out.insert(l.to_ascii_lowercase());
    }
    Ok(out)
}

/// The 1-based line of a JSON pointer in a schema file's text: the line of its
/// last named segment, found key by key after the previous one (list indexes
/// keep the position of the key before them).
pub fn line_of(text: &str, pointer: &str) -> usize {
    let mut pos = 0;
    for seg in pointer.split('/').skip(1) {
        if seg.parse::<usize>().is_ok() {
            continue;
        }
        let key = seg.replace("~1", "/").replace("~0", "~");
        let needle = format!("\"{key}\"");
        match text[pos..].find(&needle) {
            Some(i) => pos += i,
            None => break,
        }
    }
    text[..pos].matches('\n').count() + 1
}

/// GitHub Actions annotations: `::error` for breaking, `::warning` for
/// dangerous, `::notice` for compatible changes (descriptions left out), each
/// with the schema file and line of its pointer; the message ends with the
/// Rust axis when the generated API changes.
pub fn github(root: &Path, reports: &[Report]) -> String {
    github_named(root, reports, &|f| f.to_owned())
}

/// [`github`], naming each file as `name` gives it (a side fetched from a
/// revision, `git:<rev>:schema`, is named as the repository's file it was
/// at; its lines are still read from what the revision held).
pub fn github_named(root: &Path, reports: &[Report], name: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for r in reports {
        // A plain log line (not an annotation): how the files were read.
        if same_rules(r) {
            out += &format!("{} -> {}: read as {}\n", name(&r.old), name(&r.new), r.applied.new.describe());
        } else {
            out += &format!("{}: read as {}\n", name(&r.old), r.applied.old.describe());
            out += &format!("{}: read as {}\n", name(&r.new), r.applied.new.describe());
        }
        for c in r.changes.iter().filter(|c| c.kind != "description_changed") {
            let file = match c.side {
                Side::Old => &r.old,
                Side::New => &r.new,
            };
            let text = texts
                .entry(file.clone())
                .or_insert_with(|| {
                    let p = Path::new(file);
                    std::fs::read_to_string(if p.is_absolute() { p.to_path_buf() } else { root.join(p) })
                        .unwrap_or_default()
                })
                .as_str();
            let line = line_of(text, &c.pointer);
            let command = match c.level {
                Level::Breaking => "error",
                Level::Dangerous => "warning",
                Level::Compatible => "notice",
            };
            let breaks = if c.breaks.is_empty() { String::new() } else { format!(" (breaks {})", c.breaks.join(", ")) };
            // Annotation messages escape `%`, CR and LF.
            let rust = match c.rust.level {
                super::RustLevel::Unchanged => String::new(),
                l => format!(". Rust API: {}", l.as_str()),
            };
            let message = format!("{} {}: {}{breaks}{rust}", c.def, c.kind, c.reason)
                .replace('%', "%25")
                .replace('\r', "%0D")
                .replace('\n', "%0A");
            out += &format!(
                "::{command} file={},line={line},title={} {}::{message}\n",
                name(file),
                c.level.as_str(),
                c.fingerprint
            );
        }
    }
    out
}
