//! Decode and encode throughput on a realistic v2 `session/update` stream,
//! ours against the official `agent-client-protocol-schema` crate,
//! `serde_json::Value` and `serde::de::IgnoredAny` (the parse floor). Decode
//! also has two reference rows: the same information decoded by plain serde
//! derives with none of ACP's rules (`session_update/reference.rs`), the
//! bound of any serde-based owned decoder of this stream, and the same with
//! the texts skipped instead of copied, the bound of a borrowed one.
//!
//! The same stream as v2 `session/update` messages is also converted to v1
//! (`V2ToV1`: decode, convert, encode) against decoding and encoding alone.
//!
//! `cargo bench -p acp-tests --bench session_update` prints criterion's
//! figures and, at the end, the ratios measured in the same run: each as
//! the ratio of two medians, and the targets also as the median ratio of
//! pairs of runs taken in turn (steadier on a loaded machine).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, BatchSize, Criterion, Throughput};
use serde::de::IgnoredAny;
use serde_json::Value;

#[path = "session_update/direct.rs"]
mod direct;
#[path = "session_update/reference.rs"]
mod reference;
#[path = "session_update/rows.rs"]
mod rows;
use rows::*;

fn bench(c: &mut Criterion) {
    let lines = stream();
    let bytes: usize = lines.iter().map(String::len).sum();
    let ours: Vec<Ours> = decode(&lines);
    let official: Vec<Official> = decode(&lines);
    let values: Vec<Value> = decode(&lines);

    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("ours", |b| b.iter(|| each(black_box(&lines), ours_fast)));
    g.bench_function("ours with serde_json::from_str", |b| b.iter(|| each(black_box(&lines), serde::<Ours>)));
    g.bench_function("official", |b| b.iter(|| each(black_box(&lines), serde::<Official>)));
    g.bench_function("reference: plain serde derives, no ACP rules", |b| {
        b.iter(|| each(black_box(&lines), serde::<reference::owned::Notification>))
    });
    g.bench_function("reference, texts skipped (no copy)", |b| {
        b.iter(|| each(black_box(&lines), serde::<reference::skipped::Notification>))
    });
    g.bench_function("reference, hand-written parser (no serde)", |b| b.iter(|| each(black_box(&lines), direct_one)));
    g.bench_function("serde_json::Value", |b| b.iter(|| each(black_box(&lines), serde::<Value>)));
    g.bench_function("IgnoredAny", |b| b.iter(|| each(black_box(&lines), serde::<IgnoredAny>)));
    g.finish();

    let patches = tool_call_patches();
    let ours_patches: Vec<acp_bindings::v2::ToolCallUpdate> =
        patches.iter().map(|p| serde_json::from_value(p.clone()).unwrap()).collect();
    let official_patches: Vec<agent_client_protocol_schema::v2::ToolCallUpdate> =
        patches.iter().map(|p| serde_json::from_value(p.clone()).unwrap()).collect();
    let mut g = c.benchmark_group("fold tool-call patches");
    g.throughput(Throughput::Elements(patches.len() as u64));
    g.bench_function("ours: SessionReducer", |b| {
        b.iter_batched(|| ours_patches.clone(), |p| fold_ours(black_box(p)), BatchSize::LargeInput)
    });
    g.bench_function("official: apply_update over a HashMap", |b| {
        b.iter_batched(|| official_patches.clone(), |p| fold_official(black_box(p)), BatchSize::LargeInput)
    });
    g.finish();

    // The 100 MB, 25,000-line replay of `tools/bench/long-replay.py`: read
    // from its file a line at a time and folded, against decoding the same
    // lines from memory (the replay's bound: 1.3 times it).
    let long = long_replay(500);
    let long_lines: Vec<String> = std::fs::read_to_string(&long).unwrap().lines().map(str::to_owned).collect();
    let mut g = c.benchmark_group("long replay (100 MB)");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(long_lines.iter().map(|l| l.len() as u64 + 1).sum()));
    g.bench_function("acp_tools::replay::replay of the file", |b| {
        b.iter(|| drop(black_box(acp_tools::replay::replay(&long).unwrap())))
    });
    g.bench_function("Message::decode of each line", |b| {
        b.iter(|| each(black_box(&long_lines), |l| acp_bindings::v2::rpc::Message::decode(l, |_| None).unwrap()))
    });
    g.finish();

    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("ours", |b| b.iter(|| encode_fast(black_box(&ours))));
    g.bench_function("ours with serde_json::to_string", |b| b.iter(|| encode(black_box(&ours))));
    g.bench_function("official", |b| b.iter(|| encode(black_box(&official))));
    g.bench_function("serde_json::Value", |b| b.iter(|| encode(black_box(&values))));
    g.finish();

    let msgs = messages(&lines);
    let mut g = c.benchmark_group("convert v2 to v1");
    g.throughput(Throughput::Bytes(msgs.iter().map(String::len).sum::<usize>() as u64));
    g.bench_function("decode + encode (v2 typed dispatch)", |b| b.iter(|| roundtrip_v2(black_box(&msgs))));
    g.bench_function("decode + convert + encode (V2ToV1)", |b| b.iter(|| convert_to_v1(black_box(&msgs))));
    g.finish();
}

/// Median time of `f` over at least `runs` timed runs (after one warm-up),
/// and over at least 0.3 s in all: a short routine gets more runs, so a
/// moment of load on the machine does not move its median.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let t = Instant::now();
    f();
    let warm = t.elapsed().as_secs_f64().max(1e-6);
    let runs = runs.max(((0.3 / warm) as usize).min(1001)) | 1;
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

/// The median of the ratios `a / b` over pairs of runs taken in turn (`a`
/// then `b`, then `b` then `a`), at least 31 pairs and about 0.6 s in all.
/// Load on the machine that comes and goes in seconds moves two medians
/// taken one after the other apart; it hits both runs of a pair alike.
fn paired(mut a: impl FnMut(), mut b: impl FnMut()) -> f64 {
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64().max(1e-9)
    };
    let warm = time(&mut a) + time(&mut b);
    let pairs = (31.0_f64).max((0.6 / warm).min(1001.0)) as usize | 1;
    let mut ratios: Vec<f64> = (0..pairs)
        .map(|i| {
            if i % 2 == 0 {
                let ta = time(&mut a);
                ta / time(&mut b)
            } else {
                let tb = time(&mut b);
                time(&mut a) / tb
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[pairs / 2]
}

/// The ratios of the targets, measured in this run.
fn ratios() {
    let lines = stream();
    let ours: Vec<Ours> = decode(&lines);
    let official: Vec<Official> = decode(&lines);
    // The hand-written reference decodes exactly what the serde one does.
    assert!(
        lines.iter().map(|l| direct_one(l)).collect::<Vec<_>>() == decode::<reference::owned::Notification>(&lines)
    );
    assert!(lines.iter().map(|l| ours_fast(l)).collect::<Vec<_>>() == ours);
    let runs = 31;
    let d_ours = median(runs, || {
        black_box(each(&lines, ours_fast));
    });
    let d_ours_serde = median(runs, || {
        black_box(each(&lines, serde::<Ours>));
    });
    let d_off = median(runs, || {
        black_box(each(&lines, serde::<Official>));
    });
    let d_val = median(runs, || {
        black_box(each(&lines, serde::<Value>));
    });
    let d_floor = median(runs, || {
        black_box(each(&lines, serde::<IgnoredAny>));
    });
    let d_ref = median(runs, || {
        black_box(each(&lines, serde::<reference::owned::Notification>));
    });
    let d_ref_skip = median(runs, || {
        black_box(each(&lines, serde::<reference::skipped::Notification>));
    });
    let d_direct = median(runs, || {
        black_box(each(&lines, direct_one));
    });
    let patches = tool_call_patches();
    let ours_patches: Vec<acp_bindings::v2::ToolCallUpdate> =
        patches.iter().map(|p| serde_json::from_value(p.clone()).unwrap()).collect();
    let official_patches: Vec<agent_client_protocol_schema::v2::ToolCallUpdate> =
        patches.iter().map(|p| serde_json::from_value(p.clone()).unwrap()).collect();
    let f_ours = median(runs, || drop(black_box(fold_ours(ours_patches.clone()))));
    let f_off = median(runs, || drop(black_box(fold_official(official_patches.clone()))));
    let e_ours = median(runs, || {
        black_box(encode_fast(&ours));
    });
    let e_ours_serde = median(runs, || {
        black_box(encode(&ours));
    });
    let e_off = median(runs, || {
        black_box(encode(&official));
    });
    let r = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "\nratios on {} messages ({} bytes), medians of at least {runs} runs and 0.3 s each:",
        lines.len(),
        lines.iter().map(String::len).sum::<usize>()
    );
    println!("  decode ours / official   = {:.2}  (target <= 0.50; acp_bindings::json::from_str)", r(d_ours, d_off));
    println!("  decode ours / IgnoredAny = {:.2}  (target <= 2.50)", r(d_ours, d_floor));
    paired_ratios(&lines, &ours, &official);
    println!(
        "  decode ours / official   = {:.2}, / IgnoredAny = {:.2}  (both with serde_json::from_str)",
        r(d_ours_serde, d_off),
        r(d_ours_serde, d_floor)
    );
    println!("  decode ours / Value      = {:.2}", r(d_ours, d_val));
    println!(
        "  decode reference (plain serde derives, no ACP rules) / IgnoredAny = {:.2}; with texts skipped = {:.2}; ours / reference = {:.2}",
        r(d_ref, d_floor),
        r(d_ref_skip, d_floor),
        r(d_ours, d_ref)
    );
    println!("  decode reference, hand-written parser (no serde) / IgnoredAny = {:.2}", r(d_direct, d_floor));
    println!("  encode ours / official   = {:.2}  (target <= 0.70; acp_bindings::json::to_string)", r(e_ours, e_off));
    println!("  encode ours / official   = {:.2}  (both with serde_json::to_string)", r(e_ours_serde, e_off));
    println!(
        "  fold {} tool-call patches ours / official = {:.2}  (target <= 1.00; clone of the input included in both)",
        patches.len(),
        r(f_ours, f_off)
    );
    convert_ratios(&lines, runs);
    print_sizes();
}

/// The convert target: `V2ToV1` (decode, convert, encode) against decoding
/// and encoding the same v2 messages, as two medians and as paired runs.
fn convert_ratios(lines: &[String], runs: usize) {
    let msgs = messages(lines);
    let c_base = median(runs, || {
        black_box(roundtrip_v2(&msgs));
    });
    let c_conv = median(runs, || {
        black_box(convert_to_v1(&msgs));
    });
    println!(
        "  convert v2 -> v1 (decode, convert, encode) / (decode, encode) = {:.2}  ({:.2} / {:.2} ms; target <= 1.50)",
        c_conv.as_secs_f64() / c_base.as_secs_f64(),
        c_conv.as_secs_f64() * 1e3,
        c_base.as_secs_f64() * 1e3
    );
    let p_conv = paired(
        || {
            black_box(convert_to_v1(&msgs));
        },
        || {
            black_box(roundtrip_v2(&msgs));
        },
    );
    println!("  paired runs: convert v2 -> v1 / (decode, encode) = {p_conv:.2}  (target <= 1.50)");
}

/// The targets again, each as the median ratio of runs taken in turn.
fn paired_ratios(lines: &[String], ours: &[Ours], official: &[Official]) {
    let p_floor = paired(
        || {
            black_box(each(lines, ours_fast));
        },
        || {
            black_box(each(lines, serde::<IgnoredAny>));
        },
    );
    let p_off = paired(
        || {
            black_box(each(lines, ours_fast));
        },
        || {
            black_box(each(lines, serde::<Official>));
        },
    );
    let p_enc = paired(
        || {
            black_box(encode_fast(ours));
        },
        || {
            black_box(encode(official));
        },
    );
    println!(
        "  paired runs: decode ours / IgnoredAny = {p_floor:.2}, ours / official = {p_off:.2}; encode ours / official = {p_enc:.2}"
    );
}

/// The sizes the `size_of` target is about.
fn print_sizes() {
    println!(
        "  size_of v2::ToolCallUpdate ours {} / official {}; v2::SessionUpdate ours {} / official {}",
        std::mem::size_of::<acp_bindings::v2::ToolCallUpdate>(),
        std::mem::size_of::<agent_client_protocol_schema::v2::ToolCallUpdate>(),
        std::mem::size_of::<acp_bindings::v2::SessionUpdate>(),
        std::mem::size_of::<agent_client_protocol_schema::v2::SessionUpdate>(),
    );
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(spec) = std::env::var("ACP_BENCH_COUNT") {
        rows::count(&spec);
        return;
    }
    benches();
    ratios();
    Criterion::default().configure_from_args().final_summary();
}
