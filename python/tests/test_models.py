"""The generated models against the project's corpus, and as a type checker sees them.

The corpus (``tests/corpus/``) holds, per case, a definition, an input, and
what the Rust crate does with it: decodes it and writes back ``expect`` (or
the input unchanged), or refuses it (``reject``). msgspec reads a model's
JSON directly; where it reads a case and writes back exactly the text it
read, the crate must have done the same: msgspec never accepts as is what
the crate refuses or changes. A text msgspec does not give back unchanged
(an unknown member, a lenient rule at work, an unknown arm) is the careful
decoder's (``acp_bindings.codec``, ``tests/test_codec.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_bindings import UNSET, v1, v2
from acp_bindings.unstable import v1 as unstable_v1, v2 as unstable_v2

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus"
MODULES = {"v1": unstable_v1, "v2": unstable_v2}


def compact(value: Any) -> bytes:
    """JSON as the crate and ``JSON.stringify`` write it: no spaces, non-ASCII as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def cases(version: str) -> list[tuple[str, dict[str, Any]]]:
    files = sorted((CORPUS / version).glob("*.json"))
    return [(f.name, json.loads(f.read_text())) for f in files]


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_msgspec_never_accepts_as_is_what_the_crate_refuses_or_changes(version: str) -> None:
    module = MODULES[version]
    exact = accepted = 0
    for name, case in cases(version):
        model = getattr(module, case["type"])
        text = compact(case["input"])
        try:
            same = msgspec.json.encode(msgspec.json.decode(text, type=model)) == text
        except msgspec.ValidationError:
            same = False
        if "reject" in case:
            assert not same, f"{name}: msgspec reads as is what the crate refuses ({case['reject']})"
            continue
        accepted += 1
        if same:
            exact += 1
            expect = compact(case.get("expect", case["input"]))
            assert expect == text, f"{name}: msgspec keeps what the crate changes ({case['note']})"
    # How many msgspec reads exactly today (a floor: fewer is a regression of
    # the models). The rest are the careful reader's: members out of the
    # schema's order, unknown members and arms, lenient rules at work, the
    # properties of a union an object extends.
    assert accepted >= 50 and exact >= FLOOR[version], f"{version}: msgspec read {exact} of {accepted} cases exactly"


FLOOR = {"v1": 31, "v2": 33}


def test_the_unstable_modules_take_what_both_builds_have_alike_from_the_stable_ones() -> None:
    assert unstable_v2.TextContent is v2.TextContent
    assert unstable_v2.ContentBlockText is v2.ContentBlockText
    # A union the unstable schema extends is its own, and so is what holds it.
    assert unstable_v2.SessionUpdate is not v2.SessionUpdate
    assert unstable_v2.UpdateSessionNotification.__module__ == "acp_bindings.unstable.v2"


@pytest.mark.parametrize("module", [v1, v2, unstable_v1, unstable_v2], ids=lambda m: m.__name__)
def test_msgspec_reads_every_type(module: Any) -> None:
    # The dispatch classes hold a message the codec decoded (`Codec.dispatch`): not read from JSON.
    dispatch = ("RequestTo", "NotificationTo", "ResponseFrom")
    names = [n for n in dir(module) if n[:1].isupper() and n not in TYPING_NAMES and not n.startswith(dispatch)]
    assert len(names) > 150
    for name in names:
        msgspec.json.Decoder(getattr(module, name))


TYPING_NAMES = {"TYPE_CHECKING", "UNSET", "UnsetType", "Struct", "Meta", "Any", "Literal", "TypeAlias", "Union"}
TYPING_NAMES |= {"Annotated", "UnknownArm", "DISPATCH"}


def test_an_object_a_union_extends_is_read_as_its_arms() -> None:
    # msgspec writes the discriminator, the object's properties, then the arm's.
    text = b'{"operation":"move","fileType":"text","oldPath":"/a","path":"/b"}'
    change = msgspec.json.decode(text, type=v2.DiffChange)
    assert isinstance(change, v2.DiffChangeMove) and isinstance(change, v2.DiffChangeBase)
    assert (change.old_path, change.path, change.file_type) == ("/a", "/b", "text")
    assert msgspec.json.encode(change) == text


def test_a_patch_field_has_three_states() -> None:
    def update(text: bytes) -> v2.SessionUpdateToolCallUpdate:
        u = msgspec.json.decode(text, type=v2.SessionUpdate)
        assert isinstance(u, v2.SessionUpdateToolCallUpdate)
        return u

    kept = update(b'{"sessionUpdate":"tool_call_update","toolCallId":"c"}')
    cleared = update(b'{"sessionUpdate":"tool_call_update","toolCallId":"c","title":null}')
    replaced = update(b'{"sessionUpdate":"tool_call_update","toolCallId":"c","title":"Read"}')
    assert (kept.title, cleared.title, replaced.title) == (UNSET, None, "Read")
    assert msgspec.json.encode(cleared) == b'{"sessionUpdate":"tool_call_update","toolCallId":"c","title":null}'
    assert msgspec.json.encode(kept) == b'{"sessionUpdate":"tool_call_update","toolCallId":"c"}'


def test_an_open_enum_takes_any_string_and_a_closed_one_its_values() -> None:
    call = msgspec.json.decode(b'{"toolCallId":"c","kind":"_deploy"}', type=v2.ToolCallUpdate)
    assert call.kind == "_deploy"
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'"_x"', type=unstable_v1.StopReason)


@pytest.mark.parametrize("readme", ["python/README.md", "README.md"])
def test_the_readme_examples_run(readme: str) -> None:
    text = (Path(__file__).resolve().parents[2] / readme).read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    assert blocks, f"{readme} has no Python example"
    for code in blocks:
        exec(compile(code, readme, "exec"), {})


def mypy(code: str, tmp_path: Path) -> tuple[int, str]:
    """Runs mypy (strict) on `code` as a module of its own."""
    path = tmp_path / "case.py"
    path.write_text(code)
    args = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--no-incremental",
        "--cache-dir",
        str(tmp_path / "cache"),
        str(path),
    ]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout


def test_a_type_checker_refuses_a_misspelled_field(tmp_path: Path) -> None:
    code, out = mypy(
        "from acp_bindings import v2\n"
        "c = v2.TextContent(text='hi', annotatons=None)\n"
        "u = v2.ToolCallUpdate(tool_call_id='c')\n"
        "print(u.titel)\n",
        tmp_path,
    )
    assert code == 1, out
    assert 'Unexpected keyword argument "annotatons"' in out, out
    assert '"ToolCallUpdate" has no attribute "titel"' in out, out


@pytest.mark.parametrize("readme", ["python/README.md", "README.md"])
def test_the_readme_examples_pass_mypy_strict(readme: str, tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[2] / readme).read_text()
    for code in [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]:
        status, out = mypy(code, tmp_path)
        assert status == 0, f"{readme}:\n{code}\n{out}"


def test_a_type_checker_accepts_correct_code(tmp_path: Path) -> None:
    code, out = mypy(
        "from acp_bindings import UNSET, v2\n"
        "c = v2.ContentBlockText(text='hi')\n"
        "u = v2.ToolCallUpdate(tool_call_id='c', title=None, kind='read')\n"
        "t: str | None = u.title if u.title is not UNSET else 'kept'\n"
        "print(c.text, t)\n",
        tmp_path,
    )
    assert code == 0, out
