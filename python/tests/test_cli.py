"""``python -m acp_bindings``: the commands of ``acp-tools``, their lines and exit codes.

``tests/differential.py`` compares them with the TypeScript CLI's on the
corpus, the traces and their mutations; these are the rules of use.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acp_bindings._cli import USAGE, main

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "tests" / "traces" / "v2-prompt-turn.jsonl"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_messages_says_each_messages_verdict_and_the_tally(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = [
        '{"jsonrpc":"2.0","id":1,"method":"session/list"}',
        "",
        '{"jsonrpc":"2.0","id":1,"result":{"sessions":[],"x":1}}\r',
        '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":7}}',
        '{"jsonrpc":"2.0",',
        '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s","_meta":1}}',
    ]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = cli(capsys, "check-messages", "--protocol", "v2", str(path))
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{path}:1: exact",
        f"{path}:3: exact",
        f"{path}:4: rejected at /params/sessionId: invalid type: integer `7`, expected a string",
        f"{path}:5: rejected at (root): malformed JSON: EOF while parsing a value at line 1 column 17",
        f"{path}:6: differs /params/_meta",
        "2 exact, 1 differs, 2 rejected",
    ]


def test_a_bare_definition_and_the_wording(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "size.json"
    path.write_text('{"cols":[1],"rows":24}', encoding="utf-8")
    args = ["check-messages", "--protocol", "v2", "--type", "TerminalSize", str(path)]
    assert cli(capsys, *args) == (1, f"{path}: rejected at /cols: invalid type: sequence, expected u16\n" + TALLY, "")
    python = f"{path}: rejected at /cols: invalid type: array, expected an integer from 0 to 65535\n" + TALLY
    assert cli(capsys, *args, "--wording", "python") == (1, python, "")
    no = ["check-messages", "--protocol", "v1", "--type", "Nothing", str(path)]
    assert (
        cli(capsys, *no)[1]
        .splitlines()[0]
        .endswith("rejected at (root): no definition `Nothing` in V1 (check --protocol and --unstable)")
    )


TALLY = "0 exact, 0 differs, 1 rejected\n"


def test_replay_folds_a_trace_into_the_sessions_state(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "replay", "--protocol", "v2", str(TRACE))
    state = json.loads(out)
    assert list(state) == ["toolCalls", "messages", "plans", "terminals", "sessionInfo", "usage", "compactions"]
    # The trace's refused lines are said on stderr, and the exit code says so.
    assert code == (1 if err else 0)
    assert all(line.startswith(f"{TRACE}:") for line in err.splitlines())
    assert out.startswith('{\n  "toolCalls": ')


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "a command is required"),
        (["frob"], "unrecognized subcommand 'frob'"),
        (["check-messages"], "--protocol is required"),
        (["check-messages", "--protocol"], "--protocol needs a value"),
        (["check-messages", "--protocol", "v3"], "invalid value 'v3' for '--protocol' (possible values: v1, v2)"),
        (["check-messages", "--protocol", "v2", "--x"], "unexpected argument '--x'"),
        (["check-messages", "--protocol", "v2"], "the following required arguments were not provided: <PATHS>..."),
        (["replay", "--protocol", "v2"], "replay takes one trace"),
    ],
)
def test_errors_of_use_say_why_with_the_usage_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert cli(capsys, *args) == (2, "", f"error: {message}\n{USAGE}\n")


def test_help_an_unreadable_file_and_replay_of_v1(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "check-messages", "--help") == (0, USAGE + "\n", "")
    assert cli(capsys, "check-messages", "--protocol", "v2", "nowhere.json") == (
        2,
        "",
        "error: nowhere.json: No such file or directory (os error 2)\n",
    )
    assert cli(capsys, "replay", "--protocol", "v1", "nowhere.jsonl") == (
        2,
        "",
        "error: replay folds v2 upserts; v1 has no upsert semantics (use --protocol v2)\n",
    )


def test_a_trace_is_read_a_line_at_a_time_and_a_line_not_utf8_stops_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = TRACE.read_bytes().split(b"\n")[0]
    path = tmp_path / "t.jsonl"
    path.write_bytes(good + b"\r\nnot json\n" + b"ab\xf0\x9f\x98(\n" + good + b"\n")
    stopped = (
        f"error: {path}: line 3: stream did not contain valid UTF-8: invalid utf-8 sequence of 3 bytes from index 2\n"
    )
    code, out, err = cli(capsys, "check-messages", "--protocol", "v2", str(path))
    assert code == 2
    assert out.splitlines() == [
        f"{path}:1: exact",
        f"{path}:2: rejected at (root): malformed JSON: expected ident at line 1 column 2",
    ]
    assert err == stopped
    # A replay says nothing but the error: not the rejection before it, not the state.
    code, out, err = cli(capsys, "replay", "--protocol", "v2", str(path))
    assert (code, out) == (2, "")
    assert err == stopped
    path.write_bytes(good + b"\nab\xe2\x82")
    code, out, err = cli(capsys, "replay", "--protocol", "v2", str(path))
    assert (
        err
        == f"error: {path}: line 2: stream did not contain valid UTF-8: incomplete utf-8 byte sequence from index 2\n"
    )
    message = tmp_path / "m.json"
    message.write_bytes(b'{"jsonrpc":"2.0\xff"}')
    code, out, err = cli(capsys, "check-messages", "--protocol", "v2", str(message))
    assert (code, out, err) == (2, "", f"error: {message}: stream did not contain valid UTF-8\n")


def test_the_module_runs_as_a_command() -> None:
    args = [sys.executable, "-m", "acp_bindings", "check-messages", "--protocol", "v2", str(TRACE)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stdout.endswith(" rejected\n")
