#!/usr/bin/env python3
"""Orders RARE_LITERALS (crates/hindsight-core/src/parse/logline.rs) so that
the Teddy searches over them raise as few false candidates as possible on the
routine lines of the benchmark logs (crates/hindsight-core/benches/
log_throughput.rs). It models aho-corasick 1.1's Teddy: a group's literals go
into 16 buckets (fat Teddy, AVX2) or 8 (slim Teddy) (same low-nibble prefix:
same bucket; else bucket BUCKETS - 1 - i % BUCKETS), each bucket fingerprints its literals' first N bytes (N = the shortest, at
most 4) by low and high nibble, and a text position whose bytes fit a
bucket's nibbles is verified. Random swaps are kept when the count does not
grow. Prints the order found; paste it into RARE_LITERALS.

    python3 scripts/teddy-order.py [GROUPS=0] [ROUNDS=500] [BUCKETS=16]

The parser searches all literals in one group with fat Teddy where it can,
else in two groups of 32 with slim Teddy: GROUPS=0 (the default) counts the
sum of both, which is how the current order was found; `1 0` and `2 0 8`
count each with the current order.
"""
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = (ROOT / "crates/hindsight-core/benches/log_throughput.rs").read_text()
CODE = (ROOT / "crates/hindsight-core/src/parse/logline.rs").read_text()
STRING = r'"((?:[^"\\]|\\.)*)"'


def routine_texts():
    engines = re.findall(
        r'name: "([^"]+)",\s*startup: &\[(.*?)\],\s*routine: &\[(.*?)\],\s*\}', BENCH, re.S
    )
    return {
        name: ("\n".join(s.replace('\\"', '"') for s in re.findall(STRING + r",?\s*\n", routine)) + "\n").encode()
        for name, _, routine in engines
    }


def literals():
    block = CODE[CODE.index("const RARE_LITERALS") :]
    return [s.encode() for s in re.findall(STRING, block[: block.index("];")])]


BUCKETS = int(sys.argv[3]) if len(sys.argv) > 3 else 16


def buckets(group, nbuckets=None):
    nbuckets = nbuckets or BUCKETS
    n = min(4, min(len(l) for l in group))
    out, seen = [[] for _ in range(nbuckets)], {}
    for i, literal in enumerate(group):
        key = bytes(c & 15 for c in literal[:n])
        bucket = seen.setdefault(key, nbuckets - 1 - i % nbuckets)
        out[bucket].append(literal)
    return n, [b for b in out if b]


def candidates(order, groups, texts, nbuckets=None):
    if groups == 0:
        return candidates(order, 1, texts, 16) + candidates(order, 2, texts, 8)
    size = -(-len(order) // groups)
    total = 0.0
    for text in texts.values():
        count = 0
        for g in range(groups):
            n, bs = buckets(order[g * size : (g + 1) * size], nbuckets)
            masks = [
                ([{l[k] & 15 for l in b} for k in range(n)], [{l[k] >> 4 for l in b} for k in range(n)], len(b))
                for b in bs
            ]
            for p in range(len(text) - n + 1):
                for lo, hi, size_b in masks:
                    if all(text[p + k] & 15 in lo[k] and text[p + k] >> 4 in hi[k] for k in range(n)):
                        count += 1 + 0.3 * size_b
        total += count / len(text)
    return total


def main():
    groups = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    texts, order = routine_texts(), literals()
    best = candidates(order, groups, texts)
    print(
        f"{len(order)} literals, groups {groups} (0: both), {BUCKETS} buckets: {best:.4f} candidates a byte",
        file=sys.stderr,
    )
    random.seed(1)
    for _ in range(rounds):
        i, j = random.sample(range(len(order)), 2)
        order[i], order[j] = order[j], order[i]
        cost = candidates(order, groups, texts)
        if cost <= best:
            best = cost
        else:
            order[i], order[j] = order[j], order[i]
    print(f"after the search: {best:.4f}", file=sys.stderr)
    for literal in order:
        print(f'    "{literal.decode()}",')


if __name__ == "__main__":
    main()
