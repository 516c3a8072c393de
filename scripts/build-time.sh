#!/usr/bin/env bash
# Clean debug build time of `acp-bindings` with its runtime crate, with and
# without the conversions (`acp-bindings-convert`), all features, against the
# official `agent-client-protocol-schema` 1.15.1 (all features), same machine,
# same run. With FEATURES=default: `acp-bindings` with its default features
# (v1, stable) against the official crate with its defaults (v1, with
# `schemars`), as a user who adds either crate to their build compiles it;
# and each with v2 too (`acp-bindings/v2`; the official crate's
# `unstable_protocol_v2`), as a v2 peer or a bridge builds it.
#
# For each crate: a fresh target directory, and a first build from scratch,
# timed (`with deps`). Then, in each of ROUNDS rounds (default 5), every crate
# in turn is cleaned and rebuilt alone and timed (`crate only`): the rounds
# interleave the crates, so a change in the machine's load hits all of them
# alike. The medians and the ratio of the medians are printed at the end.
# Usage: [ROUNDS=n] [FEATURES=all|default] scripts/build-time.sh
# (needs the crates.io registry or its cache)
#
# Both crates are built without incremental compilation (CARGO_INCREMENTAL=0),
# as a user's build compiles them: cargo compiles a dependency from a registry
# or git without it. Left on, cargo would build this workspace's member
# incrementally (writing the query cache and dependency graph, about 3 s more
# here) and the official crate, a registry dependency of the probe, not.
#
# Both are built with cargo's default debug info (`debug = true`): a user's
# build compiles either crate with the user's profile, and this workspace's
# `[profile.dev]` (line tables only, for contributors) would otherwise apply
# to our crate alone.
set -euo pipefail
export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=true
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mode=${FEATURES:-all}
case $mode in
  all) official='{ version = "=1.15.1", features = ["unstable", "unstable_protocol_v2", "schemars", "tracing"] }' ;;
  default) official='"=1.15.1"' ;;
  *)
    echo "build-time.sh: FEATURES must be all or default, got '$mode'" >&2
    exit 2
    ;;
esac
probe() { # directory, dependency spec
  mkdir -p "$1/src"
  cat > "$1/Cargo.toml" <<TOML
[package]
name = "official-build-probe"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
agent-client-protocol-schema = $2

[workspace]
TOML
  echo "" > "$1/src/lib.rs"
}
probe "$work/official" "$official"
if [[ $mode == default ]]; then
  probe "$work/official-v2" '{ version = "=1.15.1", features = ["unstable_protocol_v2"] }'
fi

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

rounds=${ROUNDS:-5}
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
  echo "build-time.sh: ROUNDS must be a positive whole number, got '$rounds'" >&2
  exit 2
fi
# What is built, and what each round cleans and rebuilds: our crates (the
# runtime is a crate of its own), or the official one (last).
if [[ $mode == all ]]; then
  names=("acp-bindings + convert" "acp-bindings" "agent-client-protocol-schema")
  manifests=("$root/Cargo.toml" "$root/Cargo.toml" "$work/official/Cargo.toml")
  packages=("-p acp-bindings-runtime -p acp-bindings -p acp-bindings-convert" "-p acp-bindings-runtime -p acp-bindings" "-p agent-client-protocol-schema")
  targets=("$work/ours" "$work/ours-no-convert" "$work/theirs")
  features=("--features=acp-bindings/schemars,acp-bindings-convert/unstable" "--features=acp-bindings/schemars,acp-bindings/unstable,acp-bindings/v2" "")
else
  names=("acp-bindings (default: v1)" "acp-bindings (v1 and v2)" "agent-client-protocol-schema (v1 and v2)" "agent-client-protocol-schema (defaults: v1)")
  manifests=("$root/Cargo.toml" "$root/Cargo.toml" "$work/official-v2/Cargo.toml" "$work/official/Cargo.toml")
  packages=("-p acp-bindings-runtime -p acp-bindings" "-p acp-bindings-runtime -p acp-bindings" "-p agent-client-protocol-schema" "-p agent-client-protocol-schema")
  targets=("$work/ours" "$work/ours-v2" "$work/theirs-v2" "$work/theirs")
  features=("" "--features=acp-bindings/v2" "" "")
fi
last=$((${#names[@]} - 1))
times=()
for i in $(seq 0 "$last"); do times[i]=""; done

build() { # index
  # shellcheck disable=SC2086 # an empty feature list is no argument
  # shellcheck disable=SC2086 # one argument per package
  cargo build --quiet --manifest-path "${manifests[$1]}" ${packages[$1]} --target-dir "${targets[$1]}" ${features[$1]}
}

echo "clean debug builds on $(nproc) cores, $(rustc --version), $rounds rounds, no incremental compilation, FEATURES=$mode"
for i in $(seq 0 "$last"); do
  t0=$(now)
  build "$i"
  printf '%-32s with deps %7.1f s\n' "${names[$i]}" "$(elapsed "$t0" "$(now)")"
done
for r in $(seq "$rounds"); do
  line="round $r:"
  for i in $(seq 0 "$last"); do
    # shellcheck disable=SC2086 # one argument per package
    cargo clean --quiet --manifest-path "${manifests[$i]}" ${packages[$i]} --target-dir "${targets[$i]}"
    t0=$(now)
    build "$i"
    t=$(elapsed "$t0" "$(now)")
    times[i]="${times[$i]} $t"
    line="$line  $t"
  done
  echo "$line   (crate only, s, in the order above)"
done
ours=$(echo "${times[0]}" | median)
for i in $(seq 0 "$last"); do
  m=$(echo "${times[$i]}" | median)
  printf '%-40s crate only, median %6.2f s   (%s)\n' "${names[$i]}" "$m" "${times[$i]# }"
done
theirs=$(echo "${times[$last]}" | median)
awk -v a="$ours" -v b="$theirs" -v what="${names[0]}" 'BEGIN { printf "ratio %s / official, medians: %.2f\n", what, a / b }'
if [[ $mode == default ]]; then
  both=$(echo "${times[1]}" | median)
  theirs_both=$(echo "${times[2]}" | median)
  awk -v a="$both" -v b="$theirs_both" 'BEGIN { printf "ratio acp-bindings (v1 and v2) / official (v1 and v2), medians: %.2f\n", a / b }'
fi
