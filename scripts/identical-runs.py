#!/usr/bin/env python3
"""Runs of identical lines two generated files share.

    python3 scripts/identical-runs.py generated/src/v1/mod.rs generated/src/v2/mod.rs [--min 30] [--list]

Prints how many maximal runs of at least `--min` consecutive lines of the
first file also stand, in the same order, in the second, and how many lines
they cover; `--list` names each run (its first line in each file, its length
and its first and last line). The measure issue 51 set for the version
modules: what the versions have word for word should be written once.
"""

import argparse
from collections import defaultdict


def runs(a, b, width):
    index = defaultdict(list)
    for j in range(len(b) - width + 1):
        index[tuple(b[j : j + width])].append(j)
    out, i = [], 0
    while i <= len(a) - width:
        best, at = 0, None
        for j in index.get(tuple(a[i : i + width]), []):
            k = width
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            if k > best:
                best, at = k, j
        if best:
            out.append((i, at, best))
            i += best
        else:
            i += 1
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--min", type=int, default=30, help="the shortest run counted (30)")
    p.add_argument("--list", action="store_true", help="name each run")
    args = p.parse_args()
    with open(args.first, encoding="utf-8") as f:
        a = f.read().split("\n")
    with open(args.second, encoding="utf-8") as f:
        b = f.read().split("\n")
    found = runs(a, b, args.min)
    print(f"{len(found)} runs of {args.min}+ identical lines, {sum(n for _, _, n in found)} lines")
    if args.list:
        for i, j, n in found:
            print(f"  {args.first}:{i + 1} = {args.second}:{j + 1}, {n} lines: {a[i].strip()[:50]!r} .. {a[i + n - 1].strip()[:40]!r}")


if __name__ == "__main__":
    main()
