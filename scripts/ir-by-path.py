#!/usr/bin/env python3
"""Where a crate's LLVM IR goes: its functions' lines grouped by the path they serve.

    CARGO_TARGET_DIR=target/llvm-ir cargo rustc -p acp-bindings --lib -- \\
        --emit=llvm-ir -C symbol-mangling-version=v0
    python3 scripts/ir-by-path.py target/llvm-ir/debug/deps/acp_bindings-*.ll [--top N]

Counts the lines of each function defined in the `.ll` file (what LLVM has
to compile, and what the build's code generation time follows), demangles
the names (v0 mangling keeps the generic arguments, so a visitor instantiated
for serde_json's reader says so) with `c++filt`, and sums them by the first
group whose pattern the name matches:

- serde_json's reader: anything instantiated for `serde_json::de`'s
  deserializer and its map, sequence and key access (the decoders' fallback
  to `serde_json::from_str`, which gives serde_json's errors);
- `serde_json::Value`: reading from and writing to `Value` and `Map`;
- the crate's reader: `json::de::Reader`, the serde path of `json::from_str`;
- the direct decoders: `FromJson` and `json::fast`;
- the direct encoders: `json::encode`;
- the rest.

`--top N` also lists the N largest functions of the rest, generic arguments
left out.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter

GROUPS: list[tuple[str, str]] = [
    (
        "serde_json's reader (the fallback to serde_json::from_str)",
        r"serde_json::de::(Deserializer|MapAccess|SeqAccess|MapKey|VariantAccess|from_)",
    ),
    ("serde_json::Value (read and written)", r"serde_json::value::|serde_json::map::Map<"),
    ("the crate's reader (json::de::Reader, serde's path)", r"json::de::(Reader|access)"),
    ("the direct decoders (FromJson)", r"FromJson|json::fast"),
    ("the direct encoders (json::encode)", r"json::encode"),
]

DEFINE = re.compile(r'^define [^@]*@"?([^"(\s]+)"?\(')


def function_lines(path: str) -> dict[str, int]:
    """Each defined function's mangled name and the lines of its body."""
    out: dict[str, int] = {}
    current: str | None = None
    n = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if current is None:
                m = DEFINE.match(line)
                if m:
                    current, n = m.group(1), 0
            else:
                n += 1
                if line.startswith("}"):
                    out[current] = out.get(current, 0) + n
                    current = None
    return out


def demangle(names: list[str]) -> list[str]:
    done = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    out = done.stdout.splitlines()
    if len(out) != len(names):
        sys.exit("ir-by-path: c++filt gave back a different number of names")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ll", help="the .ll file rustc wrote (--emit=llvm-ir)")
    parser.add_argument("--top", type=int, default=0, help="list the N largest functions of the rest")
    args = parser.parse_args()
    try:
        lines = function_lines(args.ll)
    except OSError as e:
        sys.exit(f"ir-by-path: {args.ll}: {e.strerror}")
    if not lines:
        sys.exit(f"ir-by-path: {args.ll}: no function definitions (not LLVM IR?)")
    names = list(lines)
    groups: Counter[str] = Counter()
    rest: Counter[str] = Counter()
    for name, demangled in zip(names, demangle(names)):
        # v0 names carry each crate's hash: `serde_json[1a2b...]::de::...`.
        readable = re.sub(r"\[[0-9a-f]+\]", "", demangled)
        group = next((g for g, pattern in GROUPS if re.search(pattern, readable)), "the rest")
        groups[group] += lines[name]
        if group == "the rest":
            rest[re.sub(r"::<.*$", "", readable)[:140]] += lines[name]
    total = sum(groups.values())
    print(f"{total} lines of IR in {len(names)} functions")
    for group, n in groups.most_common():
        print(f"{n:>9} {100 * n / total:5.1f}%  {group}")
    for name, n in rest.most_common(args.top):
        print(f"{n:>9}         {name}")


if __name__ == "__main__":
    main()
