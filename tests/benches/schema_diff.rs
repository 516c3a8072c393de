//! `cargo xtask diff` on the two largest files: v2 unstable, two releases apart
//! (2.2.0 and the vendored 2.4.0), and on the two whole directories (all four
//! files, with the v1 <-> v2 conversion impact of both builds). Loading and
//! lowering the models is included.
//!
//! `cargo bench -p acp-tests --bench schema_diff`

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let old = root.join("schema/releases/2.2.0/v2/schema.unstable.json");
    let new = root.join("schema/v2/schema.unstable.json");
    let mut g = c.benchmark_group("schema diff");
    g.sample_size(20);
    g.bench_function("v2 unstable 2.2.0 -> 2.4.0 (load both, diff)", |b| {
        b.iter(|| xtask::diff::diff_sides(&root, &old, &new).expect("diffs"))
    });
    let (old_dir, new_dir) = (root.join("schema/releases/2.2.0"), root.join("schema"));
    g.bench_function("2.2.0 -> 2.4.0, all four files and the conversions", |b| {
        b.iter(|| xtask::diff::diff_sides(&root, &old_dir, &new_dir).expect("diffs"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
