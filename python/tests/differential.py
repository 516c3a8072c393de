"""The Python CLI against the TypeScript CLI, line for line.

``python tests/differential.py [--src] [--node NODE] [--cli CLI.js] [--tools ACP_TOOLS] [--jobs N] [--only PART,...]``

Runs ``python -m acp_bindings`` and ``node ts/dist/src/cli.js`` with the same
arguments on the same files and compares their stdout, stderr and exit codes
(stderr but for the usage text, which names each program): every corpus
group (``tests/corpus/v1`` and ``v2``, one ``.jsonl`` per version and
definition, with ``--type``), every trace (``check-messages`` under both
versions, and ``replay``), the errors of use, every corpus message and every
trace message with every property replaced by each of the replacements or
removed (as ``tools/tests/it/typescript.rs`` builds them), the broken JSON of
``tools/tests/it/common/mod.rs``, every corpus message with each of its
objects repeating a member name, and traces as bytes (line ends, empty
files, lines that are not UTF-8: ``byte_files``), each checked and replayed;
each with and without ``--unstable``. The
mutated corpus is also run in the package's own wording (``--wording
python`` against the TypeScript ``--wording json``), where the verdicts,
pointers and messages must be the same but for the arm names of untagged
unions, which each package says by its own language's type names. With
``--tools``, every run in the crate's wording but the errors of use (whose
words are clap's) is also held to the Rust ``acp-tools`` itself (the runs
with ``--unstable`` when ``--tools-unstable`` says it has the unstable
types, the others when not): the same
lines and exit code, a rejection in a mutated or broken message at the
crate's pointer or one below it (the crate names the untagged or flattened
union it had buffered).

The traces and the errors of use start each CLI as a user does; the other
parts (some 500 command lines) run in batch processes that call the same entry
on the same arguments (``tests/cli_batch.py``, ``ts/tools/cli-batch.ts``), which
takes seconds rather than the minutes of starting Python and Node for each.

It needs Node 20 and the built TypeScript package (``npm run build`` in
``ts/``), so it is a script rather than a pytest test; the Rust test suite
calls it. ``--src``: the package from ``python/src`` rather than the one
installed. Exit code 0 when everything is the same, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "python" / "src"

sys.path.insert(0, str(SRC))  # the writer, for inputs written as serde_json writes them
from acp_bindings._json import DecodeError, parse  # noqa: E402
from acp_bindings._write import dumps  # noqa: E402

#: The replacements every property of every message is mutated to (``tools/tests/it/typescript.rs``).
REPLACEMENTS: list[Any] = json.loads(
    '[null, 0, 1.5, 2.0, -1, 70000, "x", "", true, [], {}, [1], {"a": 1}, [null], ["x"], [{}], {"type": "text"}]'
)

#: The characters Rust's ``str::trim`` removes (Unicode ``White_Space``).
RUST_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

Path_ = list[str | int]


@dataclass
class Run:
    """One command, run by both CLIs."""

    part: str
    args: list[str]
    #: How the outputs are compared: ``exact`` (stdout, stderr, exit code), ``usage`` (stderr but
    #: for the usage text) or ``worded`` (the package's wording against the TypeScript ``json``).
    compare: str = "exact"


@dataclass
class Outcome:
    runs: int = 0
    lines: int = 0
    differences: list[str] = field(default_factory=list)


# --- inputs, as tools/tests/it/typescript.rs builds them --------------------------------------------


def corpus() -> dict[tuple[str, str], list[Any]]:
    """Every corpus input, by version and definition."""
    out: dict[tuple[str, str], list[Any]] = {}
    for version in ("v1", "v2"):
        for f in sorted((ROOT / "tests" / "corpus" / version).glob("*.json")):
            case = json.loads(f.read_text(encoding="utf-8"))
            out.setdefault((version, case["type"]), []).append(case["input"])
    return dict(sorted(out.items()))


def paths(v: Any, at: Path_, out: list[Path_]) -> list[Path_]:
    """Every path into ``v``, itself first, members and items in order."""
    out.append(list(at))
    if isinstance(v, dict):
        for k, x in v.items():
            paths(x, [*at, k], out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            paths(x, [*at, i], out)
    return out


_REMOVE = object()


def mutated(v: Any, path: Path_, replacement: Any) -> Any:
    """``v`` with the value at ``path`` replaced (``_REMOVE``: removed), the rest unchanged, in order."""
    if not path:
        return None if replacement is _REMOVE else replacement
    head, rest = path[0], path[1:]
    if isinstance(v, dict):
        assert isinstance(head, str)
        if not rest and replacement is _REMOVE:
            return {k: x for k, x in v.items() if k != head}
        return {k: (mutated(x, rest, replacement) if k == head else x) for k, x in v.items()}
    assert isinstance(v, list) and isinstance(head, int)
    if not rest and replacement is _REMOVE:
        return v[:head] + v[head + 1 :]
    return [mutated(x, rest, replacement) if i == head else x for i, x in enumerate(v)]


def mutations(inputs: list[Any]) -> list[Any]:
    """Each input with every property replaced by each replacement or removed (the value itself replaced too)."""
    out: list[Any] = []
    for value in inputs:
        for path in paths(value, [], []):
            out.extend(mutated(value, path, r) for r in REPLACEMENTS)
            if path:
                out.append(mutated(value, path, _REMOVE))
    return out


def trace_groups() -> dict[tuple[str, str], list[Any]]:
    """Every message of every trace: requests and notifications together, responses by the method they answer."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for trace in sorted((ROOT / "tests" / "traces").iterdir()):
        version = "v1" if "v1" in str(trace) else "v2"
        methods: dict[str, str] = {}
        for line in trace.read_text(encoding="utf-8").split("\n"):
            try:
                m = parse(line, duplicates="last")
            except DecodeError:
                continue
            if not isinstance(m, dict):
                continue
            request_id = dumps(m["id"]) if "id" in m else None
            method = m.get("method")
            if isinstance(method, str) and request_id is not None:
                methods[request_id] = method
                key = ""
            elif isinstance(method, str):
                key = ""
            elif request_id is not None and request_id in methods:
                key = methods[request_id]
            else:
                continue
            groups.setdefault((version, key), []).append(m)
    return dict(sorted(groups.items()))


def broken_lines() -> list[str]:
    """Every prefix of every eighth v2 corpus message, and each with one character replaced at every position."""
    lines: list[str] = []
    files = sorted((ROOT / "tests" / "corpus" / "v2").glob("*.json"))
    for f in files[::8]:
        text = dumps(json.loads(f.read_text(encoding="utf-8"))["input"])
        for end in range(1, len(text)):
            lines.append(text[:end])
        for i in range(len(text)):
            for c in (",", '"', "\\", "]", "}", "x", "\x01"):
                lines.append(text[:i] + c + text[i + 1 :])
    return [line for line in lines if line.strip(RUST_SPACE) != ""]


def with_repeat(v: Any, at: Path_, target: Path_) -> str:
    """``v`` as JSON text, the object at ``target`` naming its first member a second time at its end."""
    if isinstance(v, dict):
        members = [f"{dumps(k)}:{with_repeat(x, [*at, k], target)}" for k, x in v.items()]
        if at == target and members:
            members.append(members[0])
        return "{" + ",".join(members) + "}"
    if isinstance(v, list):
        return "[" + ",".join(with_repeat(x, [*at, i], target) for i, x in enumerate(v)) + "]"
    return dumps(v)


def at_path(v: Any, path: Path_) -> Any:
    for k in path:
        if isinstance(k, str):
            if not isinstance(v, dict) or k not in v:
                return None
            v = v[k]
        else:
            if not isinstance(v, list) or k >= len(v):
                return None
            v = v[k]
    return v


# --- runs -------------------------------------------------------------------------------------------


#: Malformed UTF-8, one of each kind Rust's ``Utf8Error`` tells apart: a byte that starts nothing,
#: an overlong form, a surrogate, a character past U+10FFFF, a continuation missing after one,
#: two and three bytes, and a character cut off by the end of the line.
MALFORMED: list[bytes] = [
    b"\xff",
    b"\x80",
    b"\xc0\xaf",
    b"\xe0\x80\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xc3(",
    b"\xe2\x82(",
    b"\xf0\x9f\x98(",
]


def byte_files(scratch: Path) -> list[Path]:
    """Traces as bytes: lines ended by ``\\r\\n``, a last line without its newline (and one ending in a
    lone ``\\r``), blank and empty files, a line that is not UTF-8 after good and rejected lines
    (each of ``MALFORMED``, and a character cut off where the line or the file ends), and a message
    file that is not UTF-8."""
    trace = (ROOT / "tests" / "traces" / "v2-prompt-turn.jsonl").read_bytes().split(b"\n")
    lines = [line for line in trace if line.strip()]
    files: dict[str, bytes] = {
        "crlf.jsonl": b"\r\n".join(lines),
        "lone-cr.jsonl": b"\n".join(lines) + b"\r",
        "empty.jsonl": b"",
        "blank.jsonl": b"\n\r\n \t\n\r",
    }
    for i, bad in enumerate(MALFORMED):
        line = b'{"jsonrpc":"2.0","method":"session/update","params":{"text":"a' + bad + b'b"}}'
        files[f"malformed-{i}.jsonl"] = b"\n".join([*lines[:2], b"not json", line, *lines[2:]]) + b"\n"
    files["cut-at-line-end.jsonl"] = b"\n".join([lines[0], b"abc\xe2\x82\r", lines[1]]) + b"\n"
    files["cut-at-file-end.jsonl"] = b"\n".join([lines[0], b"abc\xf0\x9f\x98"])
    files["malformed.json"] = lines[0].replace(b'"2.0"', b'"2.0\xff"')
    paths: list[Path] = []
    for name, data in files.items():
        path = scratch / name
        path.write_bytes(data)
        paths.append(path)
    return paths


def write_group(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def runs(scratch: Path, parts: set[str]) -> Iterator[Run]:
    unstable: list[list[str]] = [[], ["--unstable"]]
    n = 0

    def file(lines: list[str]) -> str:
        nonlocal n
        n += 1
        return write_group(scratch / f"{n}.jsonl", lines)

    def grouped(part: str, flag: str, groups: dict[tuple[str, str], list[Any]], worded: bool = False) -> Iterator[Run]:
        for (version, name), inputs in groups.items():
            path = file([dumps(v) for v in inputs])
            args = ["check-messages", "--protocol", version]
            if name:
                args += [flag, name]
            for u in unstable:
                yield Run(part, [*args, *u, path])
                if worded:
                    yield Run(part + " (python wording)", [*args, *u, path, "--wording", "python"], "worded")

    if "corpus" in parts:
        yield from grouped("corpus", "--type", corpus())
    if "traces" in parts:
        for trace in sorted((ROOT / "tests" / "traces").iterdir()):
            for u in unstable:
                for version in ("v1", "v2"):
                    yield Run("traces", ["check-messages", "--protocol", version, *u, str(trace)])
                yield Run("traces", ["replay", "--protocol", "v2", *u, str(trace)])
                yield Run("traces", ["replay", "--protocol", "v2", "--compact", *u, str(trace)])
        for args in (
            ["replay", "--protocol", "v1", "nowhere.jsonl"],
            ["replay", "--protocol", "v2", "nowhere.jsonl"],
            ["check-messages", "--protocol", "v2", "nowhere.json"],
            ["check-messages", "--protocol", "v2", "--type", "NoSuchDefinition", str(ROOT / "Cargo.toml")],
            ["check-messages", "--protocol", "v2", "--type", "NoSuchDefinition", str(ROOT / "tests/traces")],
        ):
            yield Run("errors of use", args)
        for args in (
            [],
            ["frobnicate"],
            ["check-messages"],
            ["check-messages", "--protocol"],
            ["check-messages", "--protocol", "v3", "x"],
            ["check-messages", "--protocol", "v2"],
            ["check-messages", "--protocol", "v2", "--frob", "x"],
            ["check-messages", "--protocol", "v2", "--wording", "rust", "x"],
            ["replay", "--protocol", "v2"],
            ["replay", "--protocol", "v2", "a.jsonl", "b.jsonl"],
        ):
            yield Run("errors of use", args, "usage")
    if "mutations" in parts:
        groups = {key: mutations(inputs) for key, inputs in corpus().items()}
        yield from grouped("mutated corpus", "--type", groups, worded=True)
    if "trace-mutations" in parts:
        groups = {key: mutations(inputs) for key, inputs in trace_groups().items()}
        yield from grouped("mutated traces", "--method", groups)
    if "broken" in parts:
        path = file(broken_lines())
        for u in unstable:
            yield Run("broken JSON", ["check-messages", "--protocol", "v2", "--type", "ContentBlock", *u, path])
    if "bytes" in parts:
        for written in byte_files(scratch):
            for u in unstable:
                yield Run("line ends and bytes", ["check-messages", "--protocol", "v2", *u, str(written)])
                if written.suffix == ".jsonl":
                    yield Run("line ends and bytes", ["replay", "--protocol", "v2", *u, str(written)])
                    yield Run("line ends and bytes", ["replay", "--protocol", "v2", "--compact", *u, str(written)])
    if "repeats" in parts:
        for (version, name), inputs in corpus().items():
            lines: list[str] = []
            for value in inputs:
                for path_ in paths(value, [], []):
                    target = at_path(value, path_)
                    if isinstance(target, dict) and target:
                        lines.append(with_repeat(value, [], path_))
            group = file(lines)
            for u in unstable:
                yield Run("repeated names", ["check-messages", "--protocol", version, "--type", name, *u, group])


# --- comparison -------------------------------------------------------------------------------------


def run(command: list[str], env: dict[str, str] | None = None) -> tuple[str, str, int]:
    p = subprocess.run(command, capture_output=True, env=env, cwd=ROOT, check=False)
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode


#: The parts whose runs start each CLI as a user does (``python -m acp_bindings``, ``node cli.js``):
#: the traces and the errors of use. The others run in batch processes (:class:`Batches`), which
#: call the same entry (``_cli.main``, ``commands.run``) on the same arguments and give the same
#: bytes and exit code, without starting Python and Node some 500 times each.
FRESH_PARTS = {"traces", "errors of use"}


class Batches:
    """Long-lived processes that each run one command line a request (``tests/cli_batch.py``,
    ``ts/dist/tools/cli-batch.js``), handed to one thread at a time."""

    def __init__(self, command: list[str], n: int, env: dict[str, str] | None = None) -> None:
        self.idle: queue.Queue[subprocess.Popen[bytes]] = queue.Queue()
        self.all = [
            subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=ROOT)
            for _ in range(n)
        ]
        for p in self.all:
            self.idle.put(p)

    def run(self, args: list[str]) -> tuple[str, str, int]:
        p = self.idle.get()
        try:
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write((json.dumps(args) + "\n").encode())
            p.stdin.flush()
            header = p.stdout.readline()
            if not header:
                raise RuntimeError(f"the batch process {p.args!r} ended (exit code {p.wait()})")
            d = json.loads(header)
            streams = [p.stdout.read(d[k]) for k in ("stdout", "stderr")]
        finally:
            self.idle.put(p)
        text = [b.decode("utf-8", "replace") for b in streams]
        return text[0], text[1], int(d["code"])

    def close(self) -> None:
        for p in self.all:
            if p.stdin is not None:
                p.stdin.close()
            p.wait()


def without_usage(stderr: str) -> str:
    """stderr without the usage text, and with the package's name of its wording for the TypeScript one."""
    stderr = stderr.replace("(possible values: crate, json)", "(possible values: crate, python)")
    return "\n".join(line for line in stderr.split("\n") if "usage:" not in line and not line.startswith("       "))


def verdict(line: str) -> tuple[str, str, str]:
    """A line's location, pointer (for a rejection) and the rest."""
    at, _, rest = line.partition(": ")
    if rest.startswith("rejected at "):
        pointer, _, text = rest[len("rejected at ") :].partition(": ")
        return at, pointer, text
    return at, "", rest


def arms_named(text: str) -> bool:
    """Whether a message names an untagged union's arms (by each language's type names)."""
    return "did not match any variant" in text or "no arm that accepts other values" in text


def compare(r: Run, python: tuple[str, str, int], node: tuple[str, str, int], out: Outcome) -> None:
    what = " ".join(r.args)
    out.runs += 1
    out.lines += len(node[0].splitlines())
    if r.compare == "exact":
        if python != node:
            out.differences.append(f"{what}\n{diff(node, python)}")
        return
    if r.compare == "usage":
        if (python[0], without_usage(python[1]), python[2]) != (node[0], without_usage(node[1]), node[2]):
            out.differences.append(f"{what}\n{diff(node, python)}")
        return
    # The package's wording: the same verdicts and pointers, and messages but for the arms' names.
    if python[2] != node[2] or len(python[0].splitlines()) != len(node[0].splitlines()):
        out.differences.append(f"{what}\n{diff(node, python)}")
        return
    for ours, theirs in zip(python[0].splitlines(), node[0].splitlines(), strict=True):
        (oa, op, ot), (ta, tp, tt) = verdict(ours), verdict(theirs)
        if (oa, op) != (ta, tp) or (ot != tt and not (arms_named(ot) and arms_named(tt))):
            out.differences.append(f"{what}\n  TypeScript: {theirs}\n  Python:     {ours}")


#: The parts whose lines are held to the crate's verdicts rather than its exact lines: a
#: rejection inside a union the crate decodes from a buffered value (an untagged or flattened
#: union) is named at that union by the crate and at the member that failed by the packages.
DEEPER_ALLOWED = ("mutated corpus", "mutated traces", "broken JSON", "repeated names")


def compare_crate(r: Run, python: tuple[str, str, int], crate: tuple[str, str, int], out: Outcome) -> None:
    """Python against ``acp-tools`` itself: the same stdout, stderr and exit code; in the parts of
    ``DEEPER_ALLOWED``, the same verdicts, a rejection's pointer the crate's or one below it (for a
    repeated name, any pointer)."""
    what = "acp-tools: " + " ".join(r.args)
    out.runs += 1
    out.lines += len(crate[0].splitlines())
    if r.part not in DEEPER_ALLOWED:
        if python != crate:
            out.differences.append(f"{what}\n{diff(crate, python, 'acp-tools')}")
        return
    if python[2] != crate[2] or len(python[0].splitlines()) != len(crate[0].splitlines()):
        out.differences.append(f"{what}\n{diff(crate, python, 'acp-tools')}")
        return
    for ours, theirs in zip(python[0].splitlines(), crate[0].splitlines(), strict=True):
        (oa, op, ot), (ta, tp, tt) = verdict(ours), verdict(theirs)
        op, tp = op.replace("(root)", ""), tp.replace("(root)", "")
        # A repeated name: the crate's pointer can land inside a key, where its reader held a
        # slice of the text; the message is compared, not the pointer.
        pointed = r.part == "repeated names" or op == tp or op.startswith(tp + "/")
        if (oa, ot) != (ta, tt) or not pointed:
            out.differences.append(f"{what}\n  acp-tools: {theirs}\n  Python:    {ours}")


def diff(node: tuple[str, str, int], python: tuple[str, str, int], other: str = "TypeScript") -> str:
    lines: list[str] = []
    if node[2] != python[2]:
        lines.append(f"  exit code: {other} {node[2]}, Python {python[2]}")
    for name, a, b in (("stdout", node[0], python[0]), ("stderr", node[1], python[1])):
        for i, (x, y) in enumerate(zip(a.split("\n"), b.split("\n"), strict=False)):
            if x != y:
                lines.append(f"  {name} line {i + 1}:\n    {other}: {x}\n    Python: {y}")
                break
        else:
            if a.count("\n") != b.count("\n"):
                lines.append(f"  {name}: {other} {a.count(chr(10))} lines, Python {b.count(chr(10))}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--src", action="store_true", help="run the package in python/src, not the installed one")
    parser.add_argument("--node", default="node")
    parser.add_argument("--cli", default=str(ROOT / "ts" / "dist" / "src" / "cli.js"))
    parser.add_argument(
        "--tools",
        help="an acp-tools binary: the Python CLI is also held to it (but for the errors of use, which"
        " clap words, and the package's own wording)",
    )
    parser.add_argument(
        "--tools-unstable",
        action="store_true",
        help="the acp-tools binary has the unstable types (`--features unstable`): hold the `--unstable` runs"
        " to it rather than the others",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    all_parts = "corpus,traces,mutations,trace-mutations,broken,repeats,bytes"
    parser.add_argument("--only", default=all_parts, help=f"a comma-separated subset of {all_parts}")
    a = parser.parse_args()
    if not Path(a.cli).exists():
        print(f"error: {a.cli} is missing: run `npm run build` in ts/", file=sys.stderr)
        return 2
    env = dict(os.environ)
    if a.src:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    outcomes: dict[str, Outcome] = {}
    batch = [
        Batches([sys.executable, str(Path(__file__).with_name("cli_batch.py"))], a.jobs, env),
        Batches([a.node, str(Path(a.cli).parents[1] / "tools" / "cli-batch.js")], a.jobs),
    ]
    with tempfile.TemporaryDirectory(prefix="acp-differential-") as scratch:
        todo = list(runs(Path(scratch), set(a.only.split(","))))

        def both(r: Run) -> Callable[[], None]:
            python_args = list(r.args)
            node_args = [
                "json" if x == "python" and i and r.args[i - 1] == "--wording" else x for i, x in enumerate(r.args)
            ]
            if r.part in FRESH_PARTS:
                p = run([sys.executable, "-m", "acp_bindings", *python_args], env)
                n = run([a.node, a.cli, *node_args])
            else:
                p, n = batch[0].run(python_args), batch[1].run(node_args)
            # An acp-tools built with the unstable types reads them without `--unstable` too.
            held = a.tools and r.compare == "exact" and ("--unstable" in r.args) == a.tools_unstable
            c = run([a.tools, *python_args]) if held else None

            def done() -> None:
                compare(r, p, n, outcomes.setdefault(r.part, Outcome()))
                if c is not None:
                    compare_crate(r, p, c, outcomes.setdefault(r.part + " (acp-tools)", Outcome()))

            return done

        try:
            with ThreadPoolExecutor(max_workers=a.jobs) as pool:
                for done in pool.map(both, todo):
                    done()
        finally:
            for b in batch:
                b.close()
    failed = False
    for part, o in outcomes.items():
        print(f"{part}: {o.runs} runs, {o.lines} lines compared, {len(o.differences)} differences")
        for d in o.differences[:10]:
            print(d)
        failed = failed or bool(o.differences)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
