//! Instructions per message, counted by valgrind: the project's standing
//! benchmark. Timings on a small shared machine move with its load (the same
//! binary's encode ratio was seen anywhere from 0.36 to 1.20); instruction
//! counts do not, so a change in a decoder or encoder shows as itself.
//!
//! `cargo bench -p acp-tests --bench instructions` runs each row of
//! `session_update/rows.rs` in a process of its own under `valgrind
//! --tool=cachegrind --cache-sim=no`, once with one pass over the stream and
//! once with six; the difference, per extra pass and per message, leaves out
//! starting the process, building the stream and the row's own setup. It
//! prints every row and the ratios the project holds itself to, each beside
//! its reference measured in the same run: decode against `IgnoredAny` and
//! the official crate, a client peer's `receive` against decode, encode
//! against the official crate, convert against decode and encode, the reducer
//! against the official crate's fold (with the patches' clones, as the rows
//! were first written, and without, the fold alone), and `acp-tools`' replay
//! of a long trace from its file against decoding its lines in memory.
//!
//! Arguments after `--` keep only the rows whose names contain one of them.
//! Without valgrind (Debian: `apt-get install valgrind`) it says so and
//! counts nothing.

use std::process::Command;

#[path = "session_update/direct.rs"]
mod direct;
#[path = "session_update/reference.rs"]
mod reference;
#[path = "session_update/rows.rs"]
mod rows;

/// The passes of the two runs of each row.
const PASSES: (u64, u64) = (1, 6);

/// The ratios printed, as (what, row, reference row, target if any).
const RATIOS: &[(&str, &str, &str, Option<f64>)] = &[
    ("Message::decode / IgnoredAny of the same lines", "decode", "IgnoredAny-messages", Some(1.1)),
    ("ClientPeer::receive / Message::decode", "receive", "decode", None),
    ("json::from_str / IgnoredAny", "ours", "IgnoredAny", None),
    ("json::from_str / official", "ours", "official", None),
    ("serde_json::from_str (our types) / official", "serde", "official", None),
    ("encode / official encode", "encode", "encode-official", Some(0.4)),
    ("serde_json::to_string (our types) / official", "encode-serde", "encode-official", None),
    ("convert / decode + encode", "convert", "roundtrip", None),
    ("reducer / official fold, with the clones", "reducer", "reducer-official", None),
    ("reducer / official fold", "reducer-fold", "reducer-official-fold", Some(0.8)),
    ("replay / Message::decode of the same lines", "replay", "replay-decode", Some(1.3)),
];

/// Instructions of one run of `row` with `passes` passes, and the messages of a pass.
fn run(row: &str, passes: u64) -> Result<(u64, u64), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new("valgrind")
        .args(["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"])
        .arg(&exe)
        .env("ACP_BENCH_COUNT", format!("{row}:{passes}"))
        .output()
        .map_err(|e| format!("valgrind did not run: {e}"))?;
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(format!("the run of `{row}` failed:\n{stderr}"));
    }
    let refs = stderr
        .lines()
        // `==123== I   refs:      143,727,515`
        .find_map(|l| l.split_once("refs:").filter(|(head, _)| head.trim_end().ends_with(" I")))
        .map(|(_, n)| n.trim().replace(',', ""))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no `I refs` in the run of `{row}`:\n{stderr}"))?;
    let messages = stdout
        .split_once(" passes over ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no message count in the run of `{row}`:\n{stdout}"))?;
    Ok((refs, messages))
}

/// Instructions per message of one pass of `row`.
fn per_message(row: &str) -> Result<f64, String> {
    let (a, n) = run(row, PASSES.0)?;
    let (b, _) = run(row, PASSES.1)?;
    Ok((b.saturating_sub(a)) as f64 / (PASSES.1 - PASSES.0) as f64 / n as f64)
}

fn main() {
    if let Ok(spec) = std::env::var("ACP_BENCH_COUNT") {
        rows::count(&spec);
        return;
    }
    let available = Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    if !available {
        println!("instructions: valgrind is not installed (Debian: `apt-get install valgrind`); nothing counted");
        return;
    }
    // `cargo bench` passes `--bench`; other arguments filter the rows.
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let wanted = |row: &str| filters.is_empty() || filters.iter().any(|f| row.contains(f.as_str()));
    println!("instructions per message (valgrind; {} vs {} passes over the stream)", PASSES.0, PASSES.1);
    let mut counts = std::collections::BTreeMap::new();
    let large: Vec<(String, String)> = rows::LARGE
        .iter()
        .flat_map(|m| {
            rows::LARGE_WORK.iter().map(move |(w, what)| (format!("large-{m}-{w}"), format!("{what}, the {m} message")))
        })
        .collect();
    let all = rows::ROWS.iter().map(|(r, w)| (r.to_string(), w.to_string())).chain(large);
    for (row, what) in all.filter(|(r, _)| wanted(r)) {
        let row = row.as_str();
        match per_message(row) {
            Ok(n) => {
                println!("  {row:<20} {n:>9.0}  {what}");
                counts.insert(row.to_owned(), n);
            }
            Err(e) => {
                eprintln!("instructions: {e}");
                std::process::exit(1);
            }
        }
    }
    println!("ratios");
    let mut ratios: Vec<(String, String, String, Option<f64>)> =
        RATIOS.iter().map(|(w, r, f, t)| (w.to_string(), r.to_string(), f.to_string(), *t)).collect();
    for (m, size) in rows::LARGE.iter().zip(["4 MB", "2 MB", "500 KB"]) {
        let row = |w: &str| format!("large-{m}-{w}");
        ratios.push((format!("{size} {m}: json::from_str / IgnoredAny"), row("ours"), row("IgnoredAny"), Some(1.1)));
        ratios.push((format!("{size} {m}: json::from_str / official"), row("ours"), row("official"), None));
        ratios.push((
            format!("{size} {m}: encode / official encode"),
            row("encode"),
            row("encode-official"),
            Some(1.0),
        ));
    }
    for (what, row, reference, target) in &ratios {
        let (Some(a), Some(b)) = (counts.get(row.as_str()), counts.get(reference.as_str())) else { continue };
        let ratio = a / b;
        let verdict = match target {
            Some(t) if ratio <= *t => format!("  (target at most {t}: met)"),
            Some(t) => format!("  (target at most {t}: NOT met)"),
            None => String::new(),
        };
        println!("  {what:<48} {ratio:>6.3}{verdict}");
    }
}
