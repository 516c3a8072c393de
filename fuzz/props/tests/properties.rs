//! Every fuzz target's property on stable, under `cargo test`: over its seeds
//! (written from the repository's corpus, traces and schemas, as `cargo xtask
//! fuzz --seeds` writes them), over the minimal inputs earlier campaigns
//! found (`fuzz/props/regressions/<target>/`), and over inputs made from the
//! seeds by a seeded mutator (byte edits, dictionary tokens, splices, and
//! objects with a member named twice).
//!
//! `ACP_FUZZ_CASES` sets how many generated inputs each target gets (the
//! defaults keep a debug build's run to seconds), `ACP_FUZZ_SEED` the seed
//! (fixed by default, so a run is reproducible; a failure prints both and
//! the input). Long campaigns stay with `cargo xtask fuzz` on nightly.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// SplitMix64: a small, seedable generator (no dependency, same numbers on
/// every platform).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The dictionary's entries (`cargo xtask fuzz`'s, from the vendored schemas).
fn dictionary(root: &Path) -> Vec<Vec<u8>> {
    let text = xtask::fuzz::dictionary(root).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix('"')?.strip_suffix('"'))
        .map(|l| {
            let (mut out, b) = (Vec::new(), l.as_bytes());
            let mut i = 0;
            while i < b.len() {
                match (b[i], b.get(i + 1)) {
                    (b'\\', Some(b'x')) if i + 3 < b.len() + 1 => {
                        let hex = std::str::from_utf8(&b[i + 2..(i + 4).min(b.len())]).unwrap_or("00");
                        out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
                        i += 4;
                    }
                    (b'\\', Some(&c)) => {
                        out.push(c);
                        i += 2;
                    }
                    (c, _) => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            out
        })
        .collect()
}

/// `value` as JSON text, with the `target`-th object (in document order)
/// naming one of its members twice: again at its end, with the same value
/// or (`other`) another one.
fn with_repeated_member(value: &Value, target: usize, other: Option<&Value>) -> String {
    fn write(v: &Value, target: usize, other: Option<&Value>, seen: &mut usize, out: &mut String) {
        match v {
            Value::Object(m) => {
                let this = *seen;
                *seen += 1;
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    write(v, target, other, seen, out);
                }
                if this == target {
                    if let Some((k, v)) = m.iter().next() {
                        out.push(',');
                        out.push_str(&serde_json::to_string(k).unwrap());
                        out.push(':');
                        out.push_str(&serde_json::to_string(other.unwrap_or(v)).unwrap());
                    }
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(v, target, other, seen, out);
                }
                out.push(']');
            }
            leaf => out.push_str(&serde_json::to_string(leaf).unwrap()),
        }
    }
    let mut out = String::new();
    write(value, target, other, &mut 0, &mut out);
    out
}

fn objects_in(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(objects_in).sum::<usize>(),
        Value::Array(a) => a.iter().map(objects_in).sum(),
        _ => 0,
    }
}

/// One generated input from the seeds.
fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], dict: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(3) {
        let at = if data.is_empty() { 0 } else { rng.below(data.len() + 1) };
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(data.len());
                data.drain(at.min(end)..end);
            }
            2 if !dict.is_empty() => {
                let token = &dict[rng.below(dict.len())];
                data.splice(at..at, token.iter().copied());
            }
            3 => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len() + 1);
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            _ => data = repeat_a_member(rng, data),
        }
    }
    data
}

/// The input with one of its objects naming a member twice (the header line
/// kept), when its text after the header is JSON with an object.
fn repeat_a_member(rng: &mut Rng, data: Vec<u8>) -> Vec<u8> {
    let split = data.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
    let Ok(value) = serde_json::from_slice::<Value>(&data[split..]) else { return data };
    let n = objects_in(&value);
    if n == 0 {
        return data;
    }
    let other = [Value::Null, Value::from(1), Value::from("x"), serde_json::json!({"a": [1]})];
    let replacement = (rng.below(2) == 0).then(|| &other[rng.below(other.len())]);
    let mut out = data[..split].to_vec();
    out.extend_from_slice(with_repeated_member(&value, rng.below(n), replacement).as_bytes());
    out
}

/// The committed minimal inputs of `target`.
fn regressions(root: &Path, target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = root.join("fuzz/props/regressions").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files.into_iter().map(|p| (p.display().to_string(), std::fs::read(&p).unwrap())).collect()
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Runs `check` over the seeds, the regressions and `default_cases`
/// generated inputs of `target`; every failing input is reported with how to
/// make it again.
fn run(target: &str, check: fn(&[u8]), default_cases: u64) {
    let root = root();
    let seeds = xtask::fuzz::seeds(&root, target).unwrap();
    assert!(!seeds.is_empty(), "{target} has no seeds");
    let dict = dictionary(&root);
    let cases = env_number("ACP_FUZZ_CASES").unwrap_or(default_cases);
    let seed = env_number("ACP_FUZZ_SEED").unwrap_or(0x00ac_0f22);
    let mut failures = Vec::new();
    let mut try_one = |what: String, data: &[u8]| {
        if failures.len() < 5 && catch_unwind(AssertUnwindSafe(|| check(data))).is_err() {
            failures.push(format!("{what}: {:?}", String::from_utf8_lossy(data)));
        }
    };
    for (i, s) in seeds.iter().enumerate() {
        try_one(format!("seed {i}"), s);
    }
    for (name, data) in regressions(&root, target) {
        try_one(name, &data);
    }
    let mut rng = Rng(seed ^ target.bytes().fold(0u64, |h, b| h.rotate_left(5) ^ u64::from(b)));
    for i in 0..cases {
        let data = mutate(&mut rng, &seeds, &dict);
        try_one(format!("generated input {i} (ACP_FUZZ_SEED={seed})"), &data);
    }
    assert!(failures.is_empty(), "{target}: the property fails on\n{}", failures.join("\n"));
}

#[test]
fn json_decode() {
    run("json_decode", acp_fuzz_props::json_decode::check, 3000);
}

#[test]
fn json_encode() {
    run("json_encode", acp_fuzz_props::json_encode::check, 2000);
}

#[test]
fn peer() {
    run("peer", acp_fuzz_props::peer::check, 1000);
}

#[test]
fn lower() {
    run("lower", acp_fuzz_props::lower::check, 150);
}

#[test]
fn convert() {
    run("convert", acp_fuzz_props::convert::check, 1000);
}

#[test]
fn patch() {
    run("patch", acp_fuzz_props::patch::check, 2000);
}

#[test]
fn the_mutator_writes_a_member_twice() {
    let v: Value = serde_json::from_str(r#"{"a":{"b":1},"c":[{"d":2}]}"#).unwrap();
    assert_eq!(with_repeated_member(&v, 0, None), r#"{"a":{"b":1},"c":[{"d":2}],"a":{"b":1}}"#);
    assert_eq!(with_repeated_member(&v, 2, Some(&Value::Null)), r#"{"a":{"b":1},"c":[{"d":2,"d":null}]}"#);
    assert_eq!(objects_in(&v), 3);
}
