#!/usr/bin/python3
"""Reference CTC decoding for the tests (docs/ctc.md), written from the definitions alone.

Plain double-precision Python: the greedy best path with run confidences, a dictionary-based prefix beam search,
and, for small sizes, the exact best text found by enumerating every alignment path. It writes seeded random
cases and their expected results as JSON; the C++ and JS tests compare the library with them.

    /usr/bin/python3 tools/ctc_reference.py --out testdata/ctc/cases.json
    /usr/bin/python3 tools/ctc_reference.py --check testdata/ctc/cases.json   # regenerate and compare

Only numpy is needed (for the seeded random numbers and float32 rounding).
"""

import argparse
import itertools
import json
import math
import sys

import numpy as np

NEG_INF = float("-inf")
CASE_COUNT = 40
# Enumerating every path is done when classes ** steps stays small.
EXHAUSTIVE_MAX_STEPS = 6
EXHAUSTIVE_MAX_CLASSES = 4


def log_add(a, b):
    if a < b:
        a, b = b, a
    if b == NEG_INF:
        return a
    return a + math.log1p(math.exp(b - a))


def log_probabilities(row, kind):
    """Per-class natural-log probabilities of one step, in double."""
    if kind == "logProbabilities":
        return [float(v) for v in row]
    m = max(float(v) for v in row)
    total = 0.0
    for v in row:
        total += math.exp(float(v) - m)
    return [(float(v) - m) - math.log(total) for v in row]


def greedy(scores, kind, blank):
    steps = []
    runs = []
    previous = None
    for t, row in enumerate(scores):
        values = [float(v) for v in row]
        best = 0
        for j, v in enumerate(values):
            if v > values[best]:
                best = j
        if kind == "logits":
            p = 1.0 / sum(math.exp(v - values[best]) for v in values)
        else:
            p = min(math.exp(values[best]), 1.0)
        steps.append(p)
        if best != blank:
            if best == previous:
                runs[-1]["lastStep"] = t
                runs[-1]["confidence"] = max(runs[-1]["confidence"], p)
            else:
                runs.append({"label": best, "firstStep": t, "lastStep": t, "confidence": p})
        previous = best
    confidence = sum(r["confidence"] for r in runs) / len(runs) if runs else 0.0
    return {"runs": runs, "confidence": confidence, "stepProbabilities": steps}


def beam_search(scores, kind, blank, beam_width, top_n):
    """Prefix beam search; a prefix is a tuple of labels, and dict order is the order of first contribution."""
    beam = [((), 0.0, NEG_INF)]
    for row in scores:
        lp = log_probabilities(row, kind)
        following = {}

        def add(prefix, index, value):
            if value == NEG_INF:
                return
            entry = following.setdefault(prefix, [NEG_INF, NEG_INF])
            entry[index] = log_add(entry[index], value)

        for prefix, pb, pnb in beam:
            total = log_add(pb, pnb)
            add(prefix, 0, total + lp[blank])
            if prefix:
                add(prefix, 1, pnb + lp[prefix[-1]])
            for j in range(len(lp)):
                if j == blank:
                    continue
                repeat = bool(prefix) and prefix[-1] == j
                add(prefix + (j,), 1, (pb if repeat else total) + lp[j])
        ranked = sorted(following.items(), key=lambda item: -log_add(item[1][0], item[1][1]))
        beam = [(prefix, pb, pnb) for prefix, (pb, pnb) in ranked[:beam_width]]
    out = []
    for prefix, pb, pnb in beam[:top_n]:
        lp = log_add(pb, pnb)
        out.append({
            "labels": list(prefix),
            "logProbability": lp,
            "confidence": math.exp(lp / len(prefix)) if prefix else 0.0,
        })
    return out


def collapse(path, blank):
    labels = []
    previous = None
    for c in path:
        if c != blank and c != previous:
            labels.append(c)
        previous = c
    return tuple(labels)


def exhaustive_best(scores, kind, blank):
    """The text with the largest total probability over all alignment paths, or None when it is not clear-cut."""
    probabilities = [[math.exp(v) for v in log_probabilities(row, kind)] for row in scores]
    classes = len(scores[0]) if len(scores) else 1
    totals = {}
    for path in itertools.product(range(classes), repeat=len(scores)):
        p = 1.0
        for t, c in enumerate(path):
            p *= probabilities[t][c]
        text = collapse(path, blank)
        totals[text] = totals.get(text, 0.0) + p
    ranked = sorted(totals.items(), key=lambda item: -item[1])
    if len(ranked) > 1 and ranked[0][1] <= ranked[1][1] * (1 + 1e-6):
        return None
    text, total = ranked[0]
    return {"labels": list(text), "logProbability": math.log(total), "distinctTexts": len(totals)}


def distinct_prefixes(steps, classes):
    """How many label sequences of length <= steps exist: a beam this wide never drops one."""
    return sum((classes - 1) ** k for k in range(steps + 1))


def make_scores(rng, steps, classes, kind, style):
    if style == "ties":
        values = rng.integers(0, 3, size=(steps, classes)).astype(np.float64)
    else:
        scale = {"flat": 1.0, "peaky": 4.0, "sharp": 8.0}[style]
        values = rng.normal(0.0, scale, size=(steps, classes))
    if kind == "logProbabilities":
        shifted = values - values.max(axis=1, keepdims=True) if steps else values
        values = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)) if steps else values
        if style == "sharp" and steps and classes > 2:
            # A few classes of probability zero, which the beam search must never extend with.
            zero = rng.random(size=values.shape) < 0.15
            values = np.where(zero, -np.inf, values)
    return values.astype(np.float32)


def make_case(index):
    rng = np.random.default_rng(20261130 + index)
    kinds = ["logits", "logProbabilities"]
    styles = ["flat", "peaky", "sharp", "ties"]
    for attempt in itertools.count():
        small = index % 4 in (0, 3)  # small enough to enumerate, for both kinds of scores
        steps = 0 if index == 0 else int(rng.integers(1, 7 if small else 40))
        classes = int(rng.integers(1 if index < 2 else 2, 5 if small else 12))
        kind = kinds[index % 2]
        style = styles[(index // 2) % 4]
        blank = [0, classes - 1, classes // 2][index % 3]
        beam_width = [1, 2, 3, 5, 8, 16][index % 6]
        top_n = min(beam_width, 1 + index % 3)
        scores = make_scores(rng, steps, classes, kind, style)
        case = {
            "name": f"case{index:02d}-{kind}-{style}-t{steps}-c{classes}-b{blank}",
            "scores": kind,
            "steps": steps,
            "classes": classes,
            "blank": blank,
            "beamWidth": beam_width,
            "topN": top_n,
            # JSON has no infinities: minus infinity (a zero probability) is written as the string "-inf".
            "values": [float(v) if v != -np.inf else "-inf" for v in scores.reshape(-1)],
        }
        rows = scores.tolist()
        case["greedy"] = greedy(rows, kind, blank)
        case["beam"] = beam_search(rows, kind, blank, beam_width, top_n)
        if steps <= EXHAUSTIVE_MAX_STEPS and classes <= EXHAUSTIVE_MAX_CLASSES:
            best = exhaustive_best(rows, kind, blank)
            if best is None:
                continue  # two texts too close to call: draw another case
            wide = min(distinct_prefixes(steps, classes), 4096)
            found = beam_search(rows, kind, blank, wide, 1)[0]
            if found["labels"] != best["labels"] or abs(found["logProbability"] - best["logProbability"]) > 1e-9:
                raise AssertionError(f"{case['name']}: the wide beam misses the exhaustive best text")
            case["exhaustive"] = {"beamWidth": wide, "best": best}
        return case


def generate():
    return {
        "generator": "tools/ctc_reference.py",
        "tolerances": {"probability": 2e-6, "logProbability": 1e-9},
        "cases": [make_case(i) for i in range(CASE_COUNT)],
    }


def dump(data):
    return json.dumps(data, indent=None, separators=(",", ":"), allow_nan=False) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", help="write the cases to this JSON file")
    group.add_argument("--check", help="regenerate and compare with this JSON file")
    args = parser.parse_args()
    text = dump(generate())
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        return 0
    with open(args.check) as f:
        same = f.read() == text
    print("ctc_reference: " + ("up to date" if same else "differs from a fresh generation"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
