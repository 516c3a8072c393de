"""The benchmark runs (one pass, not timed): every line read by both sides, and by msgspec whole.

The figures are the benchmark's to measure (``python bench/stream.py``), not a test's; what a test
can hold is that the benchmark still measures what it says: the codec reads every line of the
stream, the official SDK validates every one, and the codec's lines all take the fast path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "stream.py"


def test_the_benchmark_runs_and_reads_every_line_whole() -> None:
    env = {**os.environ, "BENCH_ROUNDS": "1"}
    done = subprocess.run([sys.executable, str(BENCH)], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert "1400 lines, 1 alternating passes" in done.stdout, done.stdout
    assert "(1400 of 1400 lines read whole by msgspec)" in done.stdout, done.stdout
    assert "(1400 of 1400 lines written back exactly)" in done.stdout, done.stdout
