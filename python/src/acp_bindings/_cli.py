"""``python -m acp_bindings check-messages|replay ...``: the commands of the Rust ``acp-tools``.

The same arguments, output lines and exit codes as ``acp-tools`` and the
TypeScript package's CLI (``node ts/dist/src/cli.js``), so that one set of
captured messages checks every package:

``check-messages --protocol v1|v2 [--unstable] [--wording crate|python] [--method M] [--type DEF] FILE...``
    Decodes each message (each line of a ``.jsonl`` file, or the whole of
    any other file) and writes it back; prints ``PATH[:LINE]: exact`` when
    the written message is the same JSON, ``differs P...`` (the pointers
    where it is not, members in sorted order) or ``rejected at P: M`` (why
    it did not decode), then the tally. ``--type DEF``: each is a
    definition's value instead of a JSON-RPC message; ``--method M``: a
    response whose request was not seen answers ``M``. Exit code 0 when
    every message is exact, 1 otherwise, 2 for an error of use or a file
    that cannot be read.
``replay --protocol v2 [--unstable] [--compact] TRACE.jsonl``
    Folds the trace's ``session/update`` notifications into the state of the
    session (the session reducer) and prints it as JSON, or with
    ``--compact`` the shortest stream of ``session/update`` notifications
    that rebuilds it (one a line); each line that does not decode is said on
    stderr (exit code 1).

Errors are worded as the Rust crate words them (``--wording crate``, the
default here) so that the lines compare; ``--wording python`` words them as
the package's codecs do (``json``, the TypeScript CLI's name for the same
wording, is taken too).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from acp_bindings._codec import Codec, codec, id_key, one_line, session_reducer
from acp_bindings._json import DecodeError, parse
from acp_bindings._words import Wording
from acp_bindings._write import dumps

__all__ = ["main"]

USAGE: Final = (
    "usage: python -m acp_bindings check-messages --protocol v1|v2 [--unstable] [--wording crate|python]"
    " [--method M] [--type DEF] FILE...\n"
    "       python -m acp_bindings replay --protocol v2 [--unstable] [--wording crate|python] [--compact] TRACE.jsonl"
)

#: The characters JavaScript's ``String.prototype.trim`` removes (its ``WhiteSpace`` and ``LineTerminator``).
_JS_SPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


class _Usage(Exception):
    """An error of use: said on stderr with the usage, exit code 2."""


class _Output:
    """stdout and stderr, written as UTF-8 whatever the locale (as Node and Rust write)."""

    def __init__(self) -> None:
        self.stdout = getattr(sys.stdout, "buffer", None)
        self.stderr = getattr(sys.stderr, "buffer", None)

    @staticmethod
    def _bytes(text: str) -> bytes:
        try:
            return text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return text.encode("utf-8", "replace")

    def say(self, line: str) -> None:
        if self.stdout is None:
            sys.stdout.write(line + "\n")
        else:
            self.stdout.write(self._bytes(line + "\n"))

    def warn(self, line: str) -> None:
        if self.stderr is None:
            sys.stderr.write(line + "\n")
        else:
            sys.stderr.flush()
            self.stderr.write(self._bytes(line + "\n"))
            self.stderr.flush()

    def flush(self) -> None:
        for s in (self.stdout, self.stderr):
            if s is not None:
                s.flush()
        sys.stdout.flush()


@dataclass
class _Args:
    protocol: Literal["v1", "v2"]
    unstable: bool = False
    wording: Wording = "crate"
    method: str | None = None
    type: str | None = None
    compact: bool = False
    files: list[str] = field(default_factory=list)


def _args(rest: Sequence[str]) -> _Args:
    protocol: Literal["v1", "v2"] | None = None
    a = _Args("v1")
    i = 0

    def value(arg: str) -> str:
        nonlocal i
        i += 1
        if i >= len(rest):
            raise _Usage(f"{arg} needs a value")
        return rest[i]

    while i < len(rest):
        arg = rest[i]
        if arg == "--protocol":
            p = value(arg)
            if p == "v1":
                protocol = "v1"
            elif p == "v2":
                protocol = "v2"
            else:
                raise _Usage(f"invalid value '{p}' for '--protocol' (possible values: v1, v2)")
        elif arg == "--wording":
            w = value(arg)
            if w == "crate":
                a.wording = "crate"
            elif w in ("python", "json"):
                a.wording = "python"
            else:
                raise _Usage(f"invalid value '{w}' for '--wording' (possible values: crate, python)")
        elif arg == "--unstable":
            a.unstable = True
        elif arg == "--compact":
            a.compact = True
        elif arg == "--method":
            a.method = value(arg)
        elif arg == "--type":
            a.type = value(arg)
        elif arg.startswith("--"):
            raise _Usage(f"unexpected argument '{arg}'")
        else:
            a.files.append(arg)
        i += 1
    if protocol is None:
        raise _Usage("--protocol is required")
    a.protocol = protocol
    return a


def _io_error(e: OSError) -> str:
    """An unreadable file's error as Rust's ``std::io::Error`` words it (``No such file or directory (os error 2)``)."""
    if e.errno is not None:
        return f"{os.strerror(e.errno)} (os error {e.errno})"
    return str(e)


def _read(out: _Output, path: str) -> str | None:
    """Reads a file as UTF-8, or says why not on stderr (``None``; as Rust's ``read_to_string``, which
    names no place in it)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        return data.decode("utf-8")
    except OSError as e:
        out.warn(f"error: {path}: {_io_error(e)}")
    except UnicodeDecodeError:
        out.warn(f"error: {path}: stream did not contain valid UTF-8")
    return None


def _utf8_error(number: int, e: UnicodeDecodeError) -> str:
    """Rust's ``Utf8Error`` of line ``number``: the sequence's length (both decoders take the
    longest malformed prefix), or none when the line ends inside a character."""
    if e.reason == "unexpected end of data":
        what = f"incomplete utf-8 byte sequence from index {e.start}"
    else:
        what = f"invalid utf-8 sequence of {e.end - e.start} bytes from index {e.start}"
    return f"line {number}: stream did not contain valid UTF-8: {what}"


def _lines(out: _Output, path: str, f: Callable[[str, int], None]) -> bool:
    """Calls ``f(line, number)`` on each line of ``path``, read a line at a time (memory bounded by
    the longest line, not by the file), as ``acp-tools`` reads a trace: ``\n`` ends a line (a
    ``\r`` before it is dropped; the last one may lack it) and a line that is not UTF-8 stops the
    reading. ``False`` when it stopped, said on stderr."""
    try:
        with open(path, "rb") as file:
            for number, raw in enumerate(file, 1):
                if raw.endswith(b"\n"):
                    raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    out.warn(f"error: {path}: {_utf8_error(number, e)}")
                    return False
                f(line, number)
    except OSError as e:
        out.warn(f"error: {path}: {_io_error(e)}")
        return False
    return True


def _blank(line: str) -> bool:
    """Whether ``line`` is only white space, as JavaScript's ``trim`` sees it."""
    return line.strip(_JS_SPACE) == ""


def _escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _utf16(key: str) -> bytes:
    """JavaScript's order of strings (by UTF-16 code unit)."""
    return key.encode("utf-16-be", "surrogatepass")


def _same(a: Any, b: Any) -> bool:
    """Two JSON scalars are the same value (JavaScript's ``===``: numbers by value, ``1`` and ``1.0`` alike)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b)
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return a is None and b is None


def _differences(a: Any, b: Any, at: str, out: list[str]) -> list[str]:
    """Every pointer where ``a`` and ``b`` differ, members in sorted order (as ``acp-tools``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=_utf16):
            p = f"{at}/{_escape_token(k)}"
            if k in a and k in b:
                _differences(a[k], b[k], p, out)
            else:
                out.append(p)
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            if i < len(a) and i < len(b):
                _differences(a[i], b[i], f"{at}/{i}", out)
            else:
                out.append(f"{at}/{i}")
    elif isinstance(a, (dict, list)) or isinstance(b, (dict, list)) or not _same(a, b):
        out.append(at)
    return out


def _shown(pointer: str) -> str:
    return "(root)" if pointer == "" else pointer


class _Checker:
    """The messages of one file, checked one by one (responses matched to the requests seen before them)."""

    def __init__(self, codec: Codec, a: _Args) -> None:
        self.codec = codec
        self.a = a
        self.pending: dict[str, str] = {}

    def check(self, text: str) -> str:
        try:
            original = parse(text, duplicates="last")
        except DecodeError as e:
            said = self.codec.words.syntax(e.message) if e.syntax else e.message
            return f"rejected at (root): malformed JSON: {one_line(said)}"
        try:
            again = self.message(text) if self.a.type is None else self.bare(self.a.type, text)
        except DecodeError as e:
            return f"rejected at {one_line(_shown(e.pointer))}: {one_line(e.message)}"
        d = _differences(original, json.loads(again), "", [])
        return "exact" if not d else "differs " + " ".join(_shown(p) for p in d)

    def bare(self, name: str, text: str) -> str:
        if not self.codec.has(name):
            v = "V1" if self.a.protocol == "v1" else "V2"
            raise DecodeError(f"no definition `{name}` in {v} (check --protocol and --unstable)", "")
        return self.codec.encode(name, self.codec.decode(name, text).value)

    def message(self, text: str) -> str:
        def answer(request_id: Any) -> str | None:
            m = self.pending.pop(id_key(request_id), None)
            return m if m is not None else self.a.method

        m = self.codec.decode_message(text, answer).value
        if m.kind == "request" and m.method is not None:
            self.pending[id_key(m.id)] = m.method
        return self.codec.encode_message(m)


def _codec_of(a: _Args) -> Codec:
    return codec(a.protocol, unstable=a.unstable, wording=a.wording)


def _check_messages(out: _Output, a: _Args) -> int:
    c = _codec_of(a)
    if not a.files:
        raise _Usage("the following required arguments were not provided: <PATHS>...")
    total = {"exact": 0, "differs": 0, "rejected": 0}

    def tally(at: str, outcome: str) -> None:
        out.say(f"{at}: {outcome}")
        if outcome == "exact":
            total["exact"] += 1
        elif outcome.startswith("differs"):
            total["differs"] += 1
        else:
            total["rejected"] += 1

    for path in a.files:
        checker = _Checker(c, a)
        if path.endswith(".jsonl"):
            # A trace is read a line at a time: any length, in the memory of one line.
            def line(text: str, number: int, path: str = path, checker: _Checker = checker) -> None:
                if not _blank(text):
                    tally(f"{path}:{number}", checker.check(text))

            if not _lines(out, path, line):
                return 2
        else:
            text = _read(out, path)
            if text is None:
                return 2
            tally(path, checker.check(text))
    out.say(f"{total['exact']} exact, {total['differs']} differs, {total['rejected']} rejected")
    return 0 if total["differs"] == 0 and total["rejected"] == 0 else 1


def _replay(out: _Output, a: _Args) -> int:
    if a.protocol == "v1":
        out.warn("error: replay folds v2 upserts; v1 has no upsert semantics (use --protocol v2)")
        return 2
    if len(a.files) != 1:
        raise _Usage("replay takes one trace")
    path = a.files[0]
    c = _codec_of(a)
    state = session_reducer("v2", unstable=a.unstable)
    pending: dict[str, str] = {}
    sessions: list[str] = []
    # Said once the whole trace is read, as ``acp-tools`` says them (only the error when a line stops it).
    rejected: list[str] = []

    def answer(request_id: Any) -> str | None:
        return pending.pop(id_key(request_id), None)

    def fold(line: str, number: int) -> None:
        if _blank(line):
            return
        try:
            m = c.decode_message(line, answer).value
        except DecodeError as e:
            rejected.append(f"{path}:{number}: rejected at {one_line(_shown(e.pointer))}: {one_line(e.message)}")
            return
        if m.kind == "request" and m.method is not None:
            pending[id_key(m.id)] = m.method
        if m.kind == "notification" and m.method == "session/update" and isinstance(m.params, dict):
            session = m.params.get("sessionId")
            if isinstance(session, str) and session not in sessions:
                sessions.append(session)
            if "update" in m.params:
                state.apply(m.params["update"])

    if not _lines(out, path, fold):
        return 2
    for r in rejected:
        out.warn(r)
    if not a.compact:
        out.say(dumps(state.to_json(), indent=2))
    elif len(sessions) > 1:
        many = f"{len(sessions)} sessions ({', '.join(sessions)})"
        out.warn(f"error: {path}: the trace updates {many}; --compact writes the stream of one")
        return 2
    else:
        # The stream that rebuilds the state (``SessionReducer.compact``), as session/update notifications.
        for update in state.compact() if sessions else []:
            notification = {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": sessions[0], "update": update},
            }
            out.say(dumps(notification))
    return 0 if not rejected else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line ``argv`` (``sys.argv[1:]`` by default); the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = _Output()
    try:
        command, rest = (args[0], args[1:]) if args else (None, [])
        if command in ("--help", "-h") or "--help" in rest or "-h" in rest:
            out.say(USAGE)
            return 0
        if command == "check-messages":
            return _check_messages(out, _args(rest))
        if command == "replay":
            return _replay(out, _args(rest))
        raise _Usage("a command is required" if command is None else f"unrecognized subcommand '{command}'")
    except _Usage as e:
        out.flush()
        out.warn(f"error: {e}\n{USAGE}")
        return 2
    finally:
        out.flush()
