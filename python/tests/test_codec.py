"""The careful decoder (``acp_bindings.codec``): the schema's tables applied as the Rust crate applies them.

``tests/differential.py`` compares the command line with the TypeScript
package's on tens of thousands of messages; these are the rules one by one,
and the corpus and traces, which need no other package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_bindings import (
    UNSET,
    Codec,
    DecodeError,
    Message,
    MessageError,
    Report,
    UnknownArmObject,
    codec,
    is_known,
)
from acp_bindings._json import read
from acp_bindings._shape import load
from acp_bindings._write import dumps, float_text

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
TRACES = ROOT / "tests" / "traces"

V2 = codec("v2")
CRATE = codec("v2", wording="crate")


def error(c: Codec, name: str, text: str) -> tuple[str, str]:
    with pytest.raises(DecodeError) as e:
        c.decode(name, text)
    return e.value.message, e.value.pointer


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_every_corpus_case_decodes_and_is_written_back_as_the_crate_writes_it(version: str) -> None:
    # The corpus holds the crate's messages: compared in the crate's words.
    c = codec(version, unstable=True, wording="crate")  # type: ignore[arg-type]
    files = sorted((CORPUS / version).glob("*.json"))
    assert len(files) >= 20
    for f in files:
        case = json.loads(f.read_text(encoding="utf-8"))
        text = dumps(case["input"])
        if "reject" in case:
            with pytest.raises(DecodeError) as e:
                c.decode(case["type"], text)
            assert case["reject"] in e.value.message, f"{f.name}: {e.value.message}"
            continue
        again = c.encode(case["type"], c.decode(case["type"], text).value)
        # Byte for byte: every object keeps its members in the order they came.
        assert again == dumps(case.get("expect", case["input"])), f"{f.name} ({case['note']})"


def test_a_patch_field_has_three_states_and_what_leniency_dropped_is_reported_by_pointer() -> None:
    text = (
        '{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1",'
        '"title":null,"kind":7,"x-vendor":{"b":1,"a":2}}}'
    )
    d = V2.decode("UpdateSessionNotification", text)
    u = d.value["update"]
    assert u["title"] is None, "null clears: kept"
    assert "kind" not in u, "a wrong-shaped patch field keeps: dropped"
    assert "status" not in u, "omitted keeps"
    assert d.reports == [
        Report("/update/kind", "patch-keeps", "invalid type: integer `7`, expected a ToolKind string"),
    ]
    assert V2.encode("UpdateSessionNotification", d.value) == (
        '{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1",'
        '"title":null,"x-vendor":{"b":1,"a":2}}}'
    )


def test_an_unknown_union_arm_keeps_its_tag_and_members_and_is_written_back_as_it_came() -> None:
    text = '{"type":"_acme_widget","size":3,"nested":{"z":1,"a":[true,null]}}'
    value = V2.decode("ContentBlock", text).value
    assert isinstance(value, UnknownArmObject) and not is_known(value)
    assert value["type"] == "_acme_widget"
    assert V2.encode("ContentBlock", value) == text
    assert is_known(V2.decode("ContentBlock", '{"type":"text","text":"hi"}').value)
    # v1's unions are closed: the same object is an error there.
    with pytest.raises(DecodeError, match="unknown `type` `_acme_widget` for ContentBlock"):
        codec("v1").decode("ContentBlock", text)


def test_errors_name_what_is_wrong_and_where() -> None:
    assert error(V2, "ContentBlock", '{"type":"text","text":7}') == (
        "invalid `text` variant of ContentBlock: invalid type: integer `7`, expected a string",
        "/text",
    )
    assert error(V2, "ContentBlock", '{"type":"text","text":"a","text":"b"}') == (
        "invalid `text` variant of ContentBlock: duplicate field `text`",
        "/text",
    )
    # A repeated name fails the message even inside a lenient member (`_meta`).
    assert error(V2, "TextContent", '{"text":"a","_meta":{"k":1,"k":2}}') == ("duplicate field `k`", "/_meta/k")
    assert error(V2, "TerminalSize", '{"cols":0,"rows":24}') == (
        "0 is out of range: expected 1 to 65535 (#/$defs/TerminalSize/properties/cols)",
        "/cols",
    )
    assert error(V2, "ContentBlock", '{"type":"text"') == ("EOF while parsing an object at line 1 column 14", "")
    u16 = "an integer from 0 to 65535"
    assert error(V2, "ProtocolVersion", "1.0") == (f"invalid type: floating point `1.0`, expected {u16}", "")
    # A whole number written as a float is no integer, wherever it is.
    assert error(V2, "TerminalSize", '{"cols":80.0,"rows":24}') == (
        f"invalid type: floating point `80.0`, expected {u16}",
        "/cols",
    )
    assert error(V2, "TextContent", '{"text":"\\ud800"}') == ("unexpected end of hex escape at line 1 column 16", "")


@pytest.mark.parametrize(
    ("name", "text", "pointer", "python", "crate"),
    [
        ("ProtocolVersion", "70000", "", "invalid value: integer `70000`, expected an integer from 0 to 65535", "u16"),
        ("ProtocolVersion", '"1"', "", 'invalid type: string "1", expected an integer from 0 to 65535', "u16"),
        (
            "PromptRequest",
            '{"sessionId":"s","prompt":{}}',
            "/prompt",
            "invalid type: object, expected an array",
            "map, expected a sequence",
        ),
        ("TerminalSize", "[80,24]", "", "invalid type: array, expected a TerminalSize object", "sequence"),
        ("ContentBlock", '{"type":"text"', "", "EOF while parsing an object at line 1 column 14", "object"),
        # An untagged union's arms: by Python's type names, or the Rust variants'.
        ("RequestId", "true", "", "data did not match any variant of RequestId (int: ", "(Number: "),
        ("RequestId", "true", "", "; str: invalid type: boolean `true`, expected a string)", "; Str: "),
        ("RequestId", "[true]", "", "invalid type: array, expected an integer from -9223372036854775808", "sequence"),
    ],
)
def test_errors_are_worded_in_jsons_terms_or_the_crates(
    name: str, text: str, pointer: str, python: str, crate: str
) -> None:
    ours, at = error(V2, name, text)
    theirs, at_crate = error(CRATE, name, text)
    assert (at, at_crate) == (pointer, pointer)
    assert python in ours
    assert crate in theirs


def test_the_readers_words_and_a_lenient_members_report_are_worded_too() -> None:
    with pytest.raises(MessageError, match="not JSON: EOF while parsing an array at line 1 column 2"):
        V2.decode_message("[1")
    with pytest.raises(MessageError, match="not JSON: EOF while parsing a list at line 1 column 2"):
        CRATE.decode_message("[1")
    assert error(V2, "TextContent", "[tru]")[0] == "expected `true`, `false` or `null` at line 1 column 5"
    meta = '{"text":"a","_meta":[1]}'
    assert V2.decode("TextContent", meta).reports[0].message == "invalid type: array, expected an object"
    assert CRATE.decode("TextContent", meta).reports[0].message == "invalid type: sequence, expected a map"


def test_validate_checks_a_value_built_at_run_time_with_no_leniency() -> None:
    problem = V2.validate("ToolCallUpdate", {"toolCallId": "c1", "kind": 7})
    assert problem is not None and "expected a ToolKind string" in problem.message
    assert problem.pointer == "/kind"
    assert V2.validate("ToolCallUpdate", {"toolCallId": "c1", "kind": "read", "title": None}) is None
    # A value built in Python: a float is no integer, `True` no number.
    assert V2.validate("TerminalSize", {"cols": 80.0, "rows": 24}) is not None
    assert V2.validate("TerminalSize", {"cols": True, "rows": 24}) is not None


def test_messages_are_typed_by_method_and_responses_by_the_request_they_answer() -> None:
    pending = {"2": "session/prompt"}
    n = V2.decode_message(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
        '{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":"hi"}}}}'
    ).value
    assert (n.kind, n.method, n.params["sessionId"]) == ("notification", "session/update", "s")
    line = '{"jsonrpc":"2.0","id":2,"result":{"messageId":"u1","x":1}}'
    r = V2.decode_message(line, lambda i: pending.get(json.dumps(i))).value
    assert (r.kind, r.method, r.result["messageId"]) == ("response", "session/prompt", "u1")
    assert V2.encode_message(r) == line
    # An empty payload comes back in the form it came: omitted, or `null`.
    for text in (
        '{"jsonrpc":"2.0","id":1,"method":"session/list"}',
        '{"jsonrpc":"2.0","id":1,"method":"session/list","params":null}',
    ):
        assert V2.encode_message(V2.decode_message(text).value) == text
    with pytest.raises(MessageError, match="a response whose request is not known") as e:
        V2.decode_message('{"jsonrpc":"2.0","id":3,"result":{}}')
    assert (e.value.kind, e.value.code, e.value.reply_id) == ("unknown_request", -32603, UNSET)
    with pytest.raises(MessageError) as e:
        V2.decode_message('{"jsonrpc":"2.0","id":3,"method":"session/frobnicate","params":{}}')
    assert (e.value.pointer, e.value.code, e.value.reply_id) == ("/method", -32601, 3)
    ext = V2.decode_message('{"jsonrpc":"2.0","method":"_acme/ping","params":[1]}').value
    assert (ext.kind, ext.method, ext.params) == ("notification", "_acme/ping", [1])
    # A message built in Python is written with a fresh envelope.
    fresh = Message("request", "session/list", 7, {})
    assert V2.encode_message(fresh) == '{"jsonrpc":"2.0","id":7,"method":"session/list","params":{}}'


def test_a_message_error_says_what_to_reply() -> None:
    with pytest.raises(MessageError) as e:
        V2.decode_message('{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"sessionId":7}}')
    err = e.value
    assert (err.kind, err.code, err.reply_id, err.pointer) == ("invalid_payload", -32602, "a", "/params/sessionId")
    assert err.error_object() == {
        "code": -32602,
        "message": "invalid type: integer `7`, expected a string (at /params/sessionId)",
        "data": {"pointer": "/params/sessionId"},
    }
    with pytest.raises(MessageError) as e:
        V2.decode_message("{")
    assert (e.value.kind, e.value.code, e.value.reply_id) == ("parse", -32700, None)
    # A side refuses the methods the other side handles.
    line = '{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{}}'
    with pytest.raises(MessageError, match="unknown request method") as e:
        V2.decode_message(line, side="agent")
    refusal = MessageError("not yet", "", "not_initialized")
    with pytest.raises(MessageError, match="not yet"):
        V2.decode_message('{"jsonrpc":"2.0","id":1,"method":"session/list"}', admit=lambda m, i: refusal)


def test_every_trace_line_that_decodes_without_a_report_is_written_back_byte_for_byte() -> None:
    checked = 0
    for trace in sorted(TRACES.glob("*.jsonl")):
        c = codec("v1") if trace.name.startswith("v1") else V2
        pending: dict[str, str] = {}
        for line in trace.read_text(encoding="utf-8").split("\n"):
            try:
                d = c.decode_message(line, lambda i: pending.get(json.dumps(i)))  # noqa: B023
            except DecodeError:
                continue  # the traces' refused lines
            m = d.value
            if m.kind == "request" and m.method is not None:
                pending[json.dumps(m.id)] = m.method
            if d.reports:
                continue
            assert c.encode_message(m) == line, f"{trace.name}: {line}"
            checked += 1
    assert checked >= 20


# --- the rules on a table of their own -----------------------------------------------------------


def table(shapes: dict[str, Any]) -> Codec:
    return Codec(load({"shapes": shapes, "methods": {}}), "crate")


def test_integers_are_serdes_the_bounds_exact_and_a_float_never_one() -> None:
    c = table({"I": {"newtype": {"int": "i64"}}, "U": {"newtype": {"int": "u64"}}})
    assert c.decode("I", "9223372036854775807").value == 2**63 - 1
    assert error(c, "I", "9223372036854775808")[0] == ("invalid value: integer `9223372036854775808`, expected i64")
    assert c.decode("U", "18446744073709551615").value == 2**64 - 1
    # Past u64, serde_json reads an integer as a float (shown as Rust shows it); so is `-0`.
    assert error(c, "U", "18446744073709551616")[0] == (
        "invalid type: floating point `18446744073709552000.0`, expected u64"
    )
    assert error(c, "U", "-0")[0] == "invalid type: floating point `-0.0`, expected u64"
    assert error(c, "U", "2.0")[0] == "invalid type: floating point `2.0`, expected u64"
    assert error(c, "U", "-1")[0] == "invalid value: integer `-1`, expected u64"
    assert error(c, "U", "true")[0] == "invalid type: boolean `true`, expected u64"


def test_lenient_rules_drop_default_and_report() -> None:
    c = table(
        {
            "S": {
                "struct": [
                    {"name": "a", "ty": {"list": {"int": "u8"}}, "repr": "value", "read": "lenient", "default": []},
                    {"name": "b", "ty": {"list": {"int": "u8"}}, "read": "items"},
                    {"name": "c", "ty": "string", "read": "null_as_default", "default": ""},
                    {"name": "d", "ty": "string"},
                ],
                "rest": "deny",
            }
        }
    )
    d = c.decode("S", '{"a":[1,300],"b":[1,300,2],"c":null,"d":null}')
    assert d.value == {"a": [], "b": [1, 2], "c": ""}
    assert [(r.pointer, r.rule) for r in d.reports] == [
        ("/a", "default-on-error"),
        ("/b/1", "skip-invalid-items"),
        ("/c", "default-on-null"),
        ("/d", "null-is-absent"),
    ]
    assert error(c, "S", '{"a":[],"e":1}') == ("unknown field `e`, expected one of `a`, `b`, `c`, `d`", "")
    assert error(c, "S", '{"b":[]}') == ("missing field `a`", "")
    # Validation allows no recovery.
    assert c.validate("S", {"a": [1, 300]}) is not None


def test_numbers_are_written_as_serde_json_writes_them() -> None:
    assert dumps([2.0, 0.5, 1e20, 1e16, 1e15, 1e-7, 0.0001, -0.0, 7, 2**64 - 1]) == (
        "[2.0,0.5,1e20,1e16,1000000000000000.0,1e-7,0.0001,-0.0,7,18446744073709551615]"
    )
    assert dumps({"é": "\n\x01\u2028"}) == '{"é":"\\n\\u0001\u2028"}'
    assert dumps({"a": [], "b": {"c": [1]}}, indent=2) == '{\n  "a": [],\n  "b": {\n    "c": [\n      1\n    ]\n  }\n}'
    # As serde's errors show a float: every digit, a point.
    assert [float_text(f) for f in (1.0, 1e20, 1e-7, 0.5)] == ["1.0", "100000000000000000000.0", "0.0000001", "0.5"]


def test_the_decoders_reader_keeps_the_first_of_a_repeated_name_and_notes_where() -> None:
    value, duplicates = read('{"a":1,"b":{"c":1,"c":2},"a":2}')
    assert value == {"a": 1, "b": {"c": 1}}
    assert duplicates is not None
    inner = duplicates.repeat_of(value["b"])
    outer = duplicates.repeat_of(value)
    assert inner is not None and (inner.key, inner.after) == ("c", 1)
    assert outer is not None and (outer.key, outer.after) == ("a", 2)
    assert duplicates.holds(value) and duplicates.holds(value["b"])
    assert read('{"a":1}') == ({"a": 1}, None)
