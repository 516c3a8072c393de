#!/usr/bin/env bash
# Clean debug build time of `acp-bindings` (all features, and all but `convert`)
# against the official `agent-client-protocol-schema` 1.15.1 (all features),
# same machine, same run.
#
# For each crate: a fresh target directory; the dependencies are built first,
# then the crate itself is cleaned and rebuilt alone and timed (`crate only`),
# and the whole build from scratch is timed too (`with deps`).
# Usage: scripts/build-time.sh   (needs the crates.io registry or its cache)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/official/src"
cat > "$work/official/Cargo.toml" <<'TOML'
[package]
name = "official-build-probe"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
agent-client-protocol-schema = { version = "=1.15.1", features = ["unstable", "unstable_protocol_v2", "schemars", "tracing"] }

[workspace]
TOML
echo "" > "$work/official/src/lib.rs"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }

measure() { # name manifest package target-dir features...
  local name=$1 manifest=$2 package=$3 target=$4
  shift 4
  local t0 t1 t2 t3
  t0=$(now)
  cargo build --quiet --manifest-path "$manifest" -p "$package" --target-dir "$target" "$@"
  t1=$(now)
  cargo clean --quiet --manifest-path "$manifest" -p "$package" --target-dir "$target"
  t2=$(now)
  cargo build --quiet --manifest-path "$manifest" -p "$package" --target-dir "$target" "$@"
  t3=$(now)
  printf '%-32s with deps %7.1f s   crate only %7.1f s\n' "$name" "$(elapsed "$t0" "$t1")" "$(elapsed "$t2" "$t3")"
}

echo "clean debug builds on $(nproc) cores, $(rustc --version)"
measure "acp-bindings --all-features" "$root/Cargo.toml" acp-bindings "$work/ours" --all-features
measure "acp-bindings without convert" "$root/Cargo.toml" acp-bindings "$work/ours-no-convert" --features unstable,schemars
measure "agent-client-protocol-schema" "$work/official/Cargo.toml" agent-client-protocol-schema "$work/theirs"
