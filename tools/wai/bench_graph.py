"""Writes the wai-ops/1 benchmark graph of issue 8 to a WHG1 file: 8 layers of 3x3 conv, 32 channels, on a
declared 128x128 input, i16 weights. Each layer's output tensor clamps to [-128, 127], so every layer reads
the interval the first one does and the whole graph meets acc32.

    /usr/bin/python3 tools/wai/bench_graph.py OUT.whg1 [--layers 8] [--channels 32] [--size 128]
"""

import argparse
import random
import sys

from reference import RQ, Graph, conv_params


def bench_graph(layers, channels, size, seed=8):
    rng = random.Random(seed)
    g = Graph()
    t = g.input(channels, -128, 127, "check", size, size)
    for _ in range(layers):
        w = [rng.randint(-32768, 32767) for _ in range(channels * channels * 9)]
        out = g.tensor(channels, "clamp", -128, 127)
        rq = RQ(round=1, shift=(16,), mult=[3], m_bytes=4)
        g.op("conv", [t], [out], conv_params(channels, 3, 3, 1, 1, 1, 1, 1, 2, rq, w))
        t = out
    g.outputs = [t]
    return g.encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--size", type=int, default=128)
    args = ap.parse_args()
    with open(args.out, "wb") as f:
        f.write(bench_graph(args.layers, args.channels, args.size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
