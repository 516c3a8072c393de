"""The reader: JSON read as the Rust crate reads it (``acp_bindings.parse``).

``tools/tests/it/python.rs`` compares its errors with the crate's on thousands of
broken lines; these are the rules one by one.
"""

from __future__ import annotations

import pytest

from acp_bindings import DecodeError, parse, syntax_error


def error(text: str) -> tuple[str, str, bool]:
    with pytest.raises(DecodeError) as e:
        parse(text)
    return e.value.message, e.value.pointer, e.value.syntax


def test_a_repeated_member_name_is_an_error_at_the_repeated_member_whatever_the_depth() -> None:
    assert error('{"a":1,"a":2}') == ("duplicate field `a`", "/a", False)
    # The first in reading order: an inner object is read before its parent's later members.
    assert error('{"a":{"x":1,"x":2},"a":3}') == ("duplicate field `x`", "/a/x", False)
    assert error('[{"k":1},{"k":1,"k":2}]') == ("duplicate field `k`", "/1/k", False)
    assert parse('{"a":1,"a":2}', duplicates="last") == {"a": 2}


def test_what_json_loads_lets_through_is_refused_with_serde_jsons_words() -> None:
    assert error('"\\ud800"') == ("unexpected end of hex escape at line 1 column 8", "", True)
    assert error('["\\udc00"]') == ("lone leading surrogate in hex escape at line 1 column 8", "", True)
    assert error("[1e400]") == ("number out of range at line 1 column 6", "", True)
    assert error("NaN") == ("expected value at line 1 column 1", "", True)
    assert error("[" * 128 + "]" * 128)[0] == "recursion limit exceeded at line 1 column 128"
    assert parse("[" * 127 + "]" * 127) is not None
    # A surrogate pair is one character, and fine.
    assert parse('"\\ud83d\\ude00"') == "\U0001f600"


def test_broken_json_gets_serde_jsons_message_line_and_column() -> None:
    assert error('{"type":"text"')[0] == "EOF while parsing an object at line 1 column 14"
    assert error('{"a":1,')[0] == "EOF while parsing a value at line 1 column 7"
    assert error('["\\updat"]')[0] == "invalid escape at line 1 column 8"
    # The column counts UTF-8 bytes, the line counts newlines.
    assert error('{\n"é":tru}')[0] == "expected ident at line 2 column 9"
    # A character's column is the bytes before it, plus one, whatever its own length.
    assert error("é x")[0] == "expected value at line 1 column 1"
    assert error('{"a":1,é}')[0] == "key must be a string at line 1 column 8"


def test_the_crate_words_a_line_it_only_checks_as_json_its_own_way() -> None:
    assert syntax_error('{"a":1,') == "EOF while parsing an object at line 1 column 7"
    assert syntax_error('{"a":1,"a":2}') is None
    assert syntax_error("[1e400]") is None
    assert syntax_error('["\\updat"]') == "invalid escape at line 1 column 8"
