"""``python tests/cli_batch.py``: many command lines of ``python -m acp_bindings`` in one process.

For the differential test (``differential.py``), which would otherwise start Python hundreds of
times. Reads one JSON array of arguments a line on stdin and answers each with a line
``{"code": N, "stdout": BYTES, "stderr": BYTES}`` followed by that many bytes of each stream: what
:func:`acp_bindings._cli.main` wrote to it, and its exit code (as ``ts/tools/cli-batch.ts``). A
command that raises is answered as Python ends such a process: its traceback on stderr, code 1.
It imports the installed package (or the one ``PYTHONPATH`` names), as ``python -m acp_bindings``
does.
"""

from __future__ import annotations

import io
import json
import sys
import traceback

from acp_bindings._cli import main as cli


def run(args: list[str]) -> bytes:
    """One command line, its streams captured."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = sys.stdout, sys.stderr
    wrapped = [io.TextIOWrapper(b, encoding="utf-8", errors="surrogateescape", newline="") for b in (out, err)]
    sys.stdout, sys.stderr = wrapped
    try:
        code = cli(args)
    except Exception:
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout, sys.stderr = streams
        for w in wrapped:
            w.flush()
            w.detach()  # the bytes stay readable
    o, e = out.getvalue(), err.getvalue()
    return json.dumps({"code": code, "stdout": len(o), "stderr": len(e)}).encode() + b"\n" + o + e


def serve() -> None:
    for line in sys.stdin:
        if line.strip():
            sys.stdout.buffer.write(run(json.loads(line)))
            sys.stdout.buffer.flush()


if __name__ == "__main__":
    serve()
