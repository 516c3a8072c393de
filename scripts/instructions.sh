#!/usr/bin/env bash
# Instructions per message of the decode rows of the session_update bench,
# counted by valgrind (cachegrind, no cache simulation). Unlike the timings,
# the counts do not move with the machine's load, so the ratios between rows
# are the same from one run to the next; they are not the time ratios (a
# memory-bound instruction costs more than a register one), but they tell a
# change in the decoder from noise.
#
# Each row decodes the stream once and then six times, each in one process
# (`ACP_BENCH_COUNT=<row>:<passes>`, see tests/benches/session_update.rs);
# the difference of the two counts, divided by the extra passes and the
# messages, leaves out building the stream and starting the process.
# Usage: scripts/instructions.sh        (needs valgrind; builds the bench in release)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! command -v valgrind >/dev/null; then
  echo "instructions.sh: valgrind is not installed (Debian: apt-get install valgrind)" >&2
  exit 2
fi

passes_a=1
passes_b=6
bin=$(cargo bench -p acp-tests --bench session_update --no-run 2>&1 |
  sed -n 's/^ *Executable .*(\(.*\))$/\1/p' | tail -n 1)
if [[ -z $bin || ! -x $bin ]]; then
  echo "instructions.sh: could not find the session_update bench executable (cargo bench --no-run printed none)" >&2
  exit 1
fi

# Total instructions of one run and the messages of the stream, as
# `<instructions> <messages>`: `count <row> <passes>`.
count() {
  local out refs n
  out=$(ACP_BENCH_COUNT="$1:$2" valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=/dev/null "$bin" 2>&1) || {
    echo "instructions.sh: the run of $1 failed:" >&2
    echo "$out" >&2
    return 1
  }
  refs=$(sed -n 's/^==[0-9]*== I *refs: *\([0-9,]*\)$/\1/p' <<<"$out" | tr -d ,)
  n=$(sed -n 's/.* passes over \([0-9]*\) messages.*$/\1/p' <<<"$out")
  if [[ -z $refs || -z $n ]]; then
    echo "instructions.sh: no instruction count in the run of $1:" >&2
    echo "$out" >&2
    return 1
  fi
  echo "$refs $n"
}

declare -A per
echo "instructions per message (valgrind, $passes_a vs $passes_b passes over the stream)"
for row in ours official reference IgnoredAny roundtrip; do
  read -r a messages < <(count "$row" "$passes_a" || echo "")
  read -r b _ < <(count "$row" "$passes_b" || echo "")
  if [[ -z ${a:-} || -z ${b:-} ]]; then
    exit 1
  fi
  per[$row]=$(awk -v a="$a" -v b="$b" -v n="$messages" -v p=$((passes_b - passes_a)) 'BEGIN { printf "%.0f", (b - a) / p / n }')
  printf '  %-12s %6s\n' "$row" "${per[$row]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "  ours / IgnoredAny = $(ratio "${per[ours]}" "${per[IgnoredAny]}"), ours / official = $(ratio "${per[ours]}" "${per[official]}")"
echo "  reference (hand-written, no ACP rules) / IgnoredAny = $(ratio "${per[reference]}" "${per[IgnoredAny]}")"
echo "  roundtrip (decode and encode of each message as a typed v2 message) - ours (decode) = $((per[roundtrip] - per[ours])) (about the encoder's)"
