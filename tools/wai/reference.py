#!/usr/bin/python3
"""Independent big-integer reference for wai-ops/1 graph operators (docs/wai-ops.md).

Written from the text of wai-ops/1 (§2, §4, §5, §10) with Python's unbounded integers, sharing no code with
the C++ interpreter. It builds one-operator WHG1 graphs with its own writer, computes every decode exactly, and
writes per-operator vector files in the JSON Lines form of §14.1 to testdata/wai/<operator>.jsonl. The stage
operators (§5E) are in stage_reference.py; their vectors go to testdata/wai/stage/<operator>.jsonl.

    /usr/bin/python3 tools/wai/reference.py --seed 8 --out testdata/wai

The first line of every file is a header object {"header": ...} that says how it was made; the vectors follow.
"load" and "profiles" come from the independent bounds pass of bounds.py (§8), which also writes each vector
graph's certificate to certificates/vectors.jsonl.
"""

import argparse
import hashlib
import json
import os
import random
import struct
import sys

import bounds
import stage_reference

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

# ---------------------------------------------------------------------------------------------------------------
# §2 integer functions


def r_floor(p, s):
    return p >> s  # Python's >> floors


def r_half_up(p, s):
    return p if s == 0 else (p + (1 << (s - 1))) >> s


def r_half_even(p, s):
    if s == 0:
        return p
    q = p // (1 << s)
    r = p - q * (1 << s)
    h = 1 << (s - 1)
    return q + 1 if (r > h or (r == h and q % 2 == 1)) else q


ROUND = {0: r_floor, 1: r_half_up, 2: r_half_even}


isqrt = bounds.isqrt  # floor square root of a non-negative integer (§2)


def exp_neg_q16(x):
    assert x <= 0
    u = -x
    n = u // 45426
    g = 45426 * n
    r = x + g
    t = r + 88670
    q = (t * t) // (1 << 16)
    c = 23495 * q
    y = c // (1 << 16) + 22544
    return 0 if n >= 63 else y // (1 << n)


def rsqrt_q16(v):
    r = isqrt(v)
    return 0 if r == 0 else (1 << 32) // r


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def sgn(a):
    return (a > 0) - (a < 0)


# ---------------------------------------------------------------------------------------------------------------
# WHG1 writer (§10)

OPCODES = {
    "conv": 0x01, "rescale": 0x02, "chscale": 0x03, "lut16": 0x04, "add": 0x05, "concat": 0x06,
    "chunk_add": 0x07, "split": 0x08, "pixel_shuffle": 0x09, "pixel_unshuffle": 0x0A, "clamp": 0x0B,
    "relu": 0x0C, "leaky": 0x0D, "pad_rep": 0x0E, "crop_to": 0x0F, "mul": 0x10, "conv_transpose": 0x11,
    "igdn": 0x12, "abs": 0x13, "crop": 0x14, "subpos_split": 0x15, "subpos_merge": 0x16, "fill": 0x17,
    "layernorm_c": 0x18, "l2norm": 0x19, "softmax": 0x1A, "sigmoid": 0x1B, "elu": 0x1C, "gram": 0x1D,
    "apply": 0x1E,
}
POLICY = {"derived": 0, "clamp": 1, "check": 2}


def le(v, width, signed=True):
    return int(v).to_bytes(width, "little", signed=signed)


class RQ:
    """The RQ block of §10.4 and the rq epilogue of §5.1."""

    def __init__(self, round=0, shift=(0,), mult=None, m_bytes=8, bias=None, place=0, b_bytes=8,
                 shift_per_channel=False, mult_per_channel=False):
        self.round, self.shift, self.mult, self.m_bytes = round, list(shift), mult, m_bytes
        self.bias, self.place, self.b_bytes = bias, place, b_bytes
        self.spc, self.mpc = shift_per_channel, mult_per_channel

    def encode(self):
        m_kind = 0 if self.mult is None else (2 if self.mpc else 1)
        out = bytes([self.round, self.place, m_kind, 2 if self.spc else 1,
                     0 if self.mult is None else self.m_bytes, 0 if self.place == 0 else self.b_bytes, 0, 0])
        for m in self.mult or []:
            out += le(m, self.m_bytes)
        out += bytes(self.shift)
        for b in (self.bias if self.place else []):
            out += le(b, self.b_bytes)
        return out

    def apply(self, o, v):
        pre = self.bias[o] if self.place == 1 else 0
        post = self.bias[o] if self.place == 2 else 0
        m = 1 if self.mult is None else self.mult[o if self.mpc else 0]
        s = self.shift[o if self.spc else 0]
        t = v + pre
        p = t * m
        return ROUND[self.round](p, s) + post


class Graph:
    def __init__(self, max_elems=1 << 26):
        self.max_elems = max_elems
        self.scalars, self.inputs, self.outputs, self.tensors, self.ops = [], [], [], [], []

    def tensor(self, channels, policy="derived", lo=0, hi=0, exponent=-128):
        self.tensors.append(dict(c=channels, policy=policy, lo=lo, hi=hi, e=exponent))
        return len(self.tensors) - 1

    def input(self, channels, lo, hi, policy="check", max_h=0, max_w=0, state_src=None, init=0):
        t = self.tensor(channels, policy, lo, hi)
        self.inputs.append(dict(t=t, max_h=max_h, max_w=max_w, kind=0 if state_src is None else 1,
                                src=state_src or 0, init=init))
        return t

    def scalar(self, lo, hi):
        self.scalars.append((lo, hi))
        return len(self.scalars) - 1

    def op(self, name, ins, outs, params=b"", **info):
        self.ops.append(dict(name=name, ins=list(ins), outs=list(outs), params=params, info=info))

    def encode(self):
        b = b"WHG1" + bytes([1, 1, 0, 0])
        b += struct.pack("<IIHHHHII", len(self.tensors), len(self.ops), len(self.inputs), len(self.outputs),
                         len(self.scalars), 0, self.max_elems, 0)
        for lo, hi in self.scalars:
            b += le(lo, 8) + le(hi, 8)
        for i in self.inputs:
            b += struct.pack("<IIIB3xII", i["t"], i["max_h"], i["max_w"], i["kind"], i["src"], 0) + le(i["init"], 8)
        for t in self.outputs:
            b += struct.pack("<I", t)
        for t in self.tensors:
            b += struct.pack("<IbBH", t["c"], t["e"], POLICY[t["policy"]], 0) + le(t["lo"], 8) + le(t["hi"], 8)
        for o in self.ops:
            b += bytes([OPCODES[o["name"]], len(o["ins"]), len(o["outs"]), 0])
            b += b"".join(struct.pack("<I", t) for t in o["ins"] + o["outs"])
            b += struct.pack("<I", len(o["params"])) + o["params"]
        return b


# ---------------------------------------------------------------------------------------------------------------
# Operators (§5). A tensor is (shape, data) with shape (C, H, W) and data a flat CHW list.


class Refuse(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def at(t, c, y, x):
    (C, H, W), d = t
    return d[(c * H + y) * W + x]


def conv(info, x):
    (cin, H, W), _ = x
    cout, kh, kw, sh, sw, ph, pw, groups = (info[k] for k in ("cout", "kh", "kw", "sh", "sw", "ph", "pw", "groups"))
    wt, rq = info["w"], info["rq"]
    if H + 2 * ph > 1 << 26 or W + 2 * pw > 1 << 26:
        raise Refuse("too_large")
    if H + 2 * ph < kh or W + 2 * pw < kw:
        raise Refuse("geometry_mismatch")
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (W + 2 * pw - kw) // sw + 1
    cg, og = cin // groups, cout // groups
    out = []
    for o in range(cout):
        for y in range(Ho):
            for xx in range(Wo):
                acc = 0
                for ci in range(cg):
                    for i in range(kh):
                        for j in range(kw):
                            u, v = y * sh + i - ph, xx * sw + j - pw
                            if 0 <= u < H and 0 <= v < W:
                                acc += wt[((o * cg + ci) * kh + i) * kw + j] * at(x, (o // og) * cg + ci, u, v)
                out.append(rq.apply(o, acc))
    return (cout, Ho, Wo), out


def conv_transpose(info, x):
    (cin, H, W), _ = x
    cout, kh, kw, sh, sw, ph, pw, oph, opw = (info[k] for k in
                                              ("cout", "kh", "kw", "sh", "sw", "ph", "pw", "oph", "opw"))
    wt, rq = info["w"], info["rq"]
    uh, uw = (H - 1) * sh + kh + oph, (W - 1) * sw + kw + opw
    if uh > 1 << 26 or uw > 1 << 26 or cout * uh * uw > 1 << 26:
        raise Refuse("too_large")
    Ho, Wo = uh - 2 * ph, uw - 2 * pw
    if Ho < 1 or Wo < 1:
        raise Refuse("geometry_mismatch")
    # The scatter form of §5.3's informative note: the gather form's products, added into the uncropped plane.
    plane = [[[0] * uw for _ in range(uh)] for _ in range(cout)]
    for ci in range(cin):
        for u in range(H):
            for v in range(W):
                xv = at(x, ci, u, v)
                for o in range(cout):
                    for i in range(kh):
                        for j in range(kw):
                            plane[o][u * sh + i][v * sw + j] += wt[((ci * cout + o) * kh + i) * kw + j] * xv
    out = [rq.apply(o, plane[o][y + ph][xx + pw]) for o in range(cout) for y in range(Ho) for xx in range(Wo)]
    return (cout, Ho, Wo), out


def per_element(x, f):
    (C, H, W), d = x
    return (C, H, W), [f(i // (H * W), v) for i, v in enumerate(d)]


def same_hw(*ts):
    if any(t[0][1:] != ts[0][0][1:] for t in ts):
        raise Refuse("geometry_mismatch")


def igdn(info, x):
    (C, H, W), d = x
    g, beta, gf, frac = info["gamma"], info["beta"], info["gf"], info["frac"]
    out = [0] * len(d)
    for p in range(H * W):
        xs = [d[j * H * W + p] for j in range(C)]
        for i in range(C):
            N = beta[i] + sum((g[i * C + j] * xs[j] * xs[j]) // (1 << gf) for j in range(C))
            r = isqrt(max(0, N))
            out[i * H * W + p] = (xs[i] * r) // (1 << frac)
    return (C, H, W), out


def layernorm_c(info, x):
    (C, H, W), d = x
    out = [0] * len(d)
    for p in range(H * W):
        xs = [d[c * H * W + p] for c in range(C)]
        S = sum(xs)
        M = S + (C // 2) * sgn(S)
        m = trunc_div(M, C)
        dc = [v - m for v in xs]
        T = sum(v * v for v in dc)
        V = T // C
        k = rsqrt_q16(V + info["eps"])
        for c in range(C):
            n = (dc[c] * k) // (1 << 16)
            out[c * H * W + p] = (n * info["gamma"][c]) // (1 << 16) + info["beta"][c]
    return (C, H, W), out


def l2norm(info, x):
    (C, H, W), d = x
    out = []
    for c in range(C):
        vs = d[c * H * W:(c + 1) * H * W]
        k = rsqrt_q16(sum(v * v for v in vs) + info["eps"])
        out += [(v * k) // (1 << 16) for v in vs]
    return (C, H, W), out


def softmax(x):
    (C, H, W), d = x
    out = []
    for row in range(C * H):
        vs = d[row * W:(row + 1) * W]
        m = max(vs)
        e = [exp_neg_q16(v - m) for v in vs]
        s = sum(e)
        out += [(ex * (1 << 16) + s // 2) // s for ex in e]
    return (C, H, W), out


def sigmoid(v):
    if v >= 0:
        return (1 << 32) // ((1 << 16) + exp_neg_q16(-v))
    e = exp_neg_q16(v)
    return (e * (1 << 16)) // ((1 << 16) + e)


def elu(alpha, v):
    return v if v > 0 else (alpha * (exp_neg_q16(v) - (1 << 16))) // (1 << 16)


def gram(info, a, b):
    if a[0] != b[0]:
        raise Refuse("geometry_mismatch")
    (C, H, W), _ = a
    d = C // info["groups"]
    out = []
    for g in range(info["groups"]):
        for i in range(d):
            for j in range(d):
                s = sum(at(a, g * d + i, y, x) * at(b, g * d + j, y, x) for y in range(H) for x in range(W))
                out.append(info["rq"].apply(g * d + i, s))
    return (C, 1, d), out


def apply_op(info, a, v):
    (C, H, W), _ = v
    d = C // info["groups"]
    if a[0] != (C, 1, d):
        raise Refuse("geometry_mismatch")
    out = []
    for g in range(info["groups"]):
        for i in range(d):
            for y in range(H):
                for x in range(W):
                    s = sum(at(a, g * d + i, 0, j) * at(v, g * d + j, y, x) for j in range(d))
                    out.append(info["rq"].apply(g * d + i, s))
    return (C, H, W), out


def movement(name, info, ins, scalars, out_channels):
    x = ins[0]
    (C, H, W), d = x
    if name == "concat":
        same_hw(*ins)
        return [((sum(t[0][0] for t in ins), H, W), sum((t[1] for t in ins), []))]
    if name == "split":
        s, n = info["start"], info["count"]
        return [((n, H, W), d[s * H * W:(s + n) * H * W])]
    if name == "pixel_shuffle":
        r = info["r"]
        if H * r > 1 << 26 or W * r > 1 << 26:
            raise Refuse("too_large")
        Co = C // (r * r)
        out = [0] * (C * H * W)
        for c in range(Co):
            for h in range(H):
                for w in range(W):
                    for i in range(r):
                        for j in range(r):
                            out[(c * H * r + h * r + i) * W * r + w * r + j] = at(x, c * r * r + i * r + j, h, w)
        return [((Co, H * r, W * r), out)]
    if name == "pixel_unshuffle":
        r = info["r"]
        if H % r or W % r:
            raise Refuse("geometry_mismatch")
        Ho, Wo = H // r, W // r
        out = [0] * (C * H * W)
        for c in range(C):
            for h in range(Ho):
                for w in range(Wo):
                    for i in range(r):
                        for j in range(r):
                            out[((c * r * r + i * r + j) * Ho + h) * Wo + w] = at(x, c, h * r + i, w * r + j)
        return [((C * r * r, Ho, Wo), out)]
    if name == "pad_rep":
        m = info["m"]
        Ho, Wo = -(-H // m) * m, -(-W // m) * m
        if Ho > 1 << 26 or Wo > 1 << 26:
            raise Refuse("too_large")
        return [((C, Ho, Wo), [at(x, c, min(y, H - 1), min(xx, W - 1))
                               for c in range(C) for y in range(Ho) for xx in range(Wo)])]
    if name == "crop_to":
        (_, Hr, Wr), _ = ins[1]
        if Hr > H or Wr > W:
            raise Refuse("geometry_mismatch")
        return [((C, Hr, Wr), [at(x, c, y, xx) for c in range(C) for y in range(Hr) for xx in range(Wr)])]
    if name == "crop":
        y0, x0, h, w = (scalars[v] if kind else v for kind, v in info["operands"])
        if not (y0 >= 0 and x0 >= 0 and h >= 1 and w >= 1 and y0 + h <= H and x0 + w <= W):
            raise Refuse("geometry_mismatch")
        return [((C, h, w), [at(x, c, y0 + y, x0 + xx) for c in range(C) for y in range(h) for xx in range(w)])]
    if name == "subpos_split":
        if H % 2 or W % 2:
            raise Refuse("geometry_mismatch")
        outs = []
        for k in range(4):
            a, b = divmod(info["order"][k], 2)
            outs.append(((C, H // 2, W // 2), [at(x, c, 2 * y + a, 2 * xx + b)
                                               for c in range(C) for y in range(H // 2) for xx in range(W // 2)]))
        return outs
    if name == "subpos_merge":
        same_hw(*ins)
        if 2 * H > 1 << 26 or 2 * W > 1 << 26:
            raise Refuse("too_large")
        out = [0] * (4 * C * H * W)
        for k in range(4):
            a, b = divmod(info["order"][k], 2)
            for c in range(C):
                for y in range(H):
                    for xx in range(W):
                        out[(c * 2 * H + 2 * y + a) * 2 * W + 2 * xx + b] = at(ins[k], c, y, xx)
        return [((C, 2 * H, 2 * W), out)]
    if name == "fill":
        kind, v = info["value"]
        value = scalars[v] if kind else v
        return [((out_channels, H, W), [value] * (out_channels * H * W))]
    raise KeyError(name)


def run_op(name, info, ins, scalars, out_channels):
    """One operator: its output tensors, or Refuse for its run-time plan (§4 step 3)."""
    x = ins[0]
    if name == "conv":
        return [conv(info, x)]
    if name == "conv_transpose":
        return [conv_transpose(info, x)]
    if name == "rescale":
        return [per_element(x, lambda c, v: info["rq"].apply(c, v))]
    if name == "chscale":
        row, C = scalars[info["scalar"]], x[0][0]
        f = ROUND[info["round"]]
        return [per_element(x, lambda c, v: f(v * info["M"][row * C + c], info["shift"]))]
    if name == "mul":
        b = ins[1]
        same_hw(x, b)
        (C, H, W), d = x
        plane = H * W
        bc = lambda i: 0 if b[0][0] == 1 else i // plane
        return [((C, H, W), [info["rq"].apply(i // plane, v * b[1][bc(i) * plane + i % plane])
                             for i, v in enumerate(d)])]
    if name == "lut16":
        return [per_element(x, lambda c, v: info["T"][v + 32768])]
    if name == "add":
        same_hw(x, ins[1])
        return [(x[0], [a + b for a, b in zip(x[1], ins[1][1])])]
    if name == "chunk_add":
        (C, H, W), d = x
        half = C // 2 * H * W
        return [((C // 2, H, W), [d[i] + d[i + half] for i in range(half)])]
    if name == "clamp":
        return [per_element(x, lambda c, v: min(max(v, info["lo"]), info["hi"]))]
    if name == "relu":
        return [per_element(x, lambda c, v: max(v, 0))]
    if name == "leaky":
        return [per_element(x, lambda c, v: v if v >= 0 else (v * info["a"]) // (1 << info["f"]))]
    if name == "abs":
        return [per_element(x, lambda c, v: abs(v))]
    if name == "igdn":
        return [igdn(info, x)]
    if name == "layernorm_c":
        return [layernorm_c(info, x)]
    if name == "l2norm":
        return [l2norm(info, x)]
    if name == "softmax":
        return [softmax(x)]
    if name == "sigmoid":
        return [per_element(x, lambda c, v: sigmoid(v))]
    if name == "elu":
        return [per_element(x, lambda c, v: elu(info["alpha"], v))]
    if name == "gram":
        return [gram(info, x, ins[1])]
    if name == "apply":
        return [apply_op(info, x, ins[1])]
    return movement(name, info, ins, scalars, out_channels)


def decode(g, inputs, scalars, state):
    """One decode through graph g (§4 run steps 1-4). Returns (outputs, new_state) or raises Refuse."""
    values, data_iter = {}, iter(inputs)
    supplied = []
    for k, inp in enumerate(g.inputs):
        t = g.tensors[inp["t"]]
        if inp["kind"] == 0:
            shape, data = next(data_iter)
        elif state is not None:
            shape, data = state[k]
        else:
            shape = (t["c"], supplied[0][0][1], supplied[0][0][2])
            data = None
        if shape[0] != t["c"] or shape[1] < 1 or shape[2] < 1:
            raise Refuse("model_mismatch")
        if inp["max_h"] and (shape[1] > inp["max_h"] or shape[2] > inp["max_w"]):
            raise Refuse("too_large")
        if shape[0] * shape[1] * shape[2] > g.max_elems:
            raise Refuse("too_large")
        if data is None:
            data = [inp["init"]] * (shape[0] * shape[1] * shape[2])
        supplied.append((shape, data))
    for v, (lo, hi) in zip(scalars, g.scalars):
        if not lo <= v <= hi:
            raise Refuse("field_range")
    # Step 3 (the plan) comes before step 4 (evaluation), and no shape depends on a value: so operators are
    # planned and evaluated together in graph order, a plan refusal is raised at once, and the first policy
    # refusal of evaluation is kept until every operator has been planned.
    pending = None
    for k, inp in enumerate(g.inputs):
        values[inp["t"]], refused = apply_policy(g.tensors[inp["t"]], supplied[k])
        pending = pending or refused
    for o in g.ops:
        outs = run_op(o["name"], o["info"], [values[t] for t in o["ins"]], scalars, g.tensors[o["outs"][0]]["c"])
        for t, out in zip(o["outs"], outs):
            if out[0][0] * out[0][1] * out[0][2] > g.max_elems:
                raise Refuse("too_large")
            values[t], refused = apply_policy(g.tensors[t], out)
            pending = pending or refused
    if pending:
        raise Refuse(pending)
    outputs = [values[t] for t in g.outputs]
    new_state = {k: values[g.outputs[inp["src"]]] for k, inp in enumerate(g.inputs) if inp["kind"] == 1}
    for (shape, data) in outputs:
        assert all(I64_MIN <= v <= I64_MAX for v in data), "the generator left the acc64 tensor width"
    return outputs, new_state


def apply_policy(t, value):
    """The tensor after its policy (§3), and "field_range" when a check fails (the value is kept for planning)."""
    shape, data = value
    if t["policy"] == "clamp":
        return (shape, [min(max(v, t["lo"]), t["hi"]) for v in data]), None
    if t["policy"] == "check" and any(not t["lo"] <= v <= t["hi"] for v in data):
        return value, "field_range"
    return value, None


# ---------------------------------------------------------------------------------------------------------------
# Vector files (§14.1)


def canonical(obj):
    """§8.5's canonical JSON: sorted keys, no whitespace, every integer a decimal string."""
    def conv_ints(o):
        if isinstance(o, bool) or o is None:
            return o
        if isinstance(o, int):
            return str(o)
        if isinstance(o, list):
            return [conv_ints(v) for v in o]
        if isinstance(o, dict):
            return {k: conv_ints(v) for k, v in o.items()}
        return o
    return json.dumps(conv_ints(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def tensor_json(t):
    shape, data = t
    return {"data": list(data), "shape": list(shape)}


def vector(vid, g, decodes):
    """A loadable vector: each decode is (inputs, scalars); the decodes form one sequence (§10.3)."""
    state, out = None, []
    for inputs, scalars in decodes:
        try:
            outputs, new_state = decode(g, inputs, scalars, state)
            expect = {"outputs": [tensor_json(o) for o in outputs]}
            state = new_state
        except Refuse as r:
            expect = {"refuse": r.code}
        out.append({"expect": expect, "inputs": [tensor_json(i) for i in inputs], "scalars": list(scalars)})
    # Load check 8 and the profiles come from the independent bounds pass (bounds.py, §8): a graph that fails
    # acc64 fails acc32 too, so both profiles refuse it.
    try:
        CERTIFICATES[vid], verdict = bounds.certificate(g.encode())
        CERTIFIED_GRAPHS[vid] = g.encode()
    except bounds.Refused:
        return load_refusal(vid, g, "model_mismatch")
    if not verdict["acc64"]:
        return load_refusal(vid, g, "model_mismatch")
    profiles = ["acc32", "acc64"] if verdict["acc32"] else ["acc64"]
    return {"decodes": out, "graph": g.encode().hex(), "id": vid, "load": "ok", "profiles": profiles}


# Vector id -> the certificate bytes of its graph, and the graph's bytes, for every graph that passes the bounds
# pass.
CERTIFICATES = {}
CERTIFIED_GRAPHS = {}

# Sets certified together (§8.5): id -> (capability, lowering, set digest, [(role, vector id)]). The digest is
# the caller's (its listing format is not in the text), here the SHA-256 of the members' bytes in order.
SETS = {
    "set-whg1-files": (None, "whg1", False, [(None, "conv-0"), (None, "conv_transpose-1"), (None, "golden-state")]),
    "set-roles-acc32-fails": ("wai.neural.int_hyper", "whm1/1", True, [("h_s", "conv-3"), ("g_s", "conv-1")]),
    "set-acc64-fails-second": (None, "whg1", True, [("a", "igdn-0"), ("b", "elu-load-min"), ("c", "rescale-s127-r1")]),
    "set-all-acc32": ("wai.test", "whg1", False, [("x", "leaky-0"), ("y", "mul-1"), ("z", "chscale-0")]),
}


def admissible_line(vid):
    """The §8.4 admissible ranges of every tensor of a vector graph, for native-tests/wai/certify_test.cc."""
    ranges = bounds.admissible_ranges(CERTIFIED_GRAPHS[vid])
    return canonical({"id": vid, "ranges": [
        dict({p: None if r[p] is None else {"hi": r[p][1], "lo": r[p][0]} for p in r}, tensor=t)
        for t, r in sorted(ranges.items())]})


def set_line(sid):
    capability, lowering, digest, members = SETS[sid]
    graphs = [CERTIFIED_GRAPHS[vid] for _, vid in members]
    set_sha256 = hashlib.sha256(b"".join(graphs)).hexdigest() if digest else None
    cert, _ = bounds.set_certificate([(role, b) for (role, _), b in zip(members, graphs)], capability, lowering,
                                     set_sha256)
    return canonical({"capability": capability, "certificate": cert, "graphs": [b.hex() for b in graphs],
                      "id": sid, "lowering": lowering, "roles": [role for role, _ in members],
                      "set_sha256": set_sha256})


def load_refusal(vid, g, code):
    return {"decodes": [], "graph": g.encode().hex(), "id": vid, "load": code, "profiles": ["acc32", "acc64"]}


def single(name, params, info, in_specs, out_c, out_policy=("derived", 0, 0), scalars=(), max_hw=(0, 0),
           max_elems=1 << 26, n_out=1):
    """A one-operator graph. in_specs: (channels, lo, hi[, policy]) per input."""
    g = Graph(max_elems)
    for lo, hi in scalars:
        g.scalar(lo, hi)
    ins = [g.input(s[0], s[1], s[2], s[3] if len(s) > 3 else "check", *max_hw) for s in in_specs]
    outs = [g.tensor(out_c, *out_policy) for _ in range(n_out)]
    g.op(name, ins, outs, params, **info)
    g.ops[-1]["info"] = info
    g.outputs = outs
    return g


def rand_t(rng, shape, lo, hi):
    C, H, W = shape
    return (tuple(shape), [rng.randint(lo, hi) for _ in range(C * H * W)])


def conv_params(cout, kh, kw, sh, sw, ph, pw, groups, w_bytes, rq, w):
    return (struct.pack("<8I", cout, kh, kw, sh, sw, ph, pw, groups) + bytes([w_bytes, 0, 0, 0]) + rq.encode()
            + b"".join(le(v, w_bytes) for v in w))


def convt_params(cout, kh, kw, sh, sw, ph, pw, oph, opw, w_bytes, rq, w):
    return (struct.pack("<9I", cout, kh, kw, sh, sw, ph, pw, oph, opw) + bytes([w_bytes, 0, 0, 0]) + rq.encode()
            + b"".join(le(v, w_bytes) for v in w))


def random_rq(rng, C, allow_bias=True, allow_mult=True, one_shift=False):
    round_ = rng.randint(0, 2)
    spc = not one_shift and rng.random() < 0.5
    shift = [rng.randint(0, 12) for _ in range(C if spc else 1)]
    mult, mpc, m_bytes = None, False, 0
    if allow_mult and rng.random() < 0.7:
        mpc = rng.random() < 0.5
        m_bytes = rng.choice([4, 8])
        mult = [rng.randint(-3000, 3000) for _ in range(C if mpc else 1)]
    place, bias, b_bytes = 0, None, 0
    if allow_bias and rng.random() < 0.7:
        place, b_bytes = rng.choice([1, 2]), rng.choice([4, 8])
        bias = [rng.randint(-5000, 5000) for _ in range(C)]
    return RQ(round_, shift, mult, m_bytes or 8, bias, place, b_bytes or 8, spc, mpc)


def gen_conv(rng):
    out = []
    # (cin, cout, kh, kw, sh, sw, ph, pw, groups, H, W): kernel larger than the input (padding makes it fit),
    # stride larger than the kernel, depthwise, grouped, 1x1 planes, odd sizes.
    geoms = [(1, 1, 3, 3, 1, 1, 1, 1, 1, 4, 5), (2, 3, 3, 2, 2, 1, 1, 0, 1, 5, 4), (3, 3, 3, 3, 1, 1, 1, 1, 3, 3, 3),
             (4, 2, 1, 1, 1, 1, 0, 0, 2, 2, 3), (2, 2, 5, 5, 1, 1, 2, 2, 1, 3, 2), (1, 2, 1, 1, 3, 3, 0, 0, 1, 1, 1),
             (2, 1, 2, 3, 3, 2, 0, 1, 1, 7, 5), (1, 1, 4, 4, 1, 1, 0, 0, 1, 4, 4)]
    for k, (cin, cout, kh, kw, sh, sw, ph, pw, groups, H, W) in enumerate(geoms):
        rq = random_rq(rng, cout)
        w_bytes = rng.choice([1, 2, 4, 8])
        lim = {1: 127, 2: 32767, 4: 100000, 8: 100000}[w_bytes]
        w = [rng.randint(-lim, lim) for _ in range(cout * (cin // groups) * kh * kw)]
        g = single("conv", conv_params(cout, kh, kw, sh, sw, ph, pw, groups, w_bytes, rq, w),
                   dict(cout=cout, kh=kh, kw=kw, sh=sh, sw=sw, ph=ph, pw=pw, groups=groups, w=w, rq=rq),
                   [(cin, -1000, 1000)], cout)
        decodes = [([rand_t(rng, (cin, H, W), -1000, 1000)], [])]
        # The ends of the check range, and one past them.
        decodes.append(([((cin, H, W), [1000 if i % 2 else -1000 for i in range(cin * H * W)])], []))
        decodes.append(([((cin, H, W), [1001] + [0] * (cin * H * W - 1))], []))
        decodes.append(([((cin, H, W), [-1001] + [0] * (cin * H * W - 1))], []))
        if H + 2 * ph > kh:
            # A smaller input on which the kernel no longer fits: refused by the run-time plan.
            decodes.append(([rand_t(rng, (cin, max(1, kh - 2 * ph - 1), W), -9, 9)], []))
        out.append(vector(f"conv-{k}", g, decodes))
    # A wrong input channel count is refused at run step 1; an input at max_elems is fine, one past it is not.
    rq = RQ(0, [0])
    g = single("conv", conv_params(1, 1, 1, 1, 1, 0, 0, 1, 1, rq, [3]),
               dict(cout=1, kh=1, kw=1, sh=1, sw=1, ph=0, pw=0, groups=1, w=[3], rq=rq), [(1, -9, 9)], 1,
               max_elems=6)
    out.append(vector("conv-run-step1", g, [([rand_t(rng, (2, 1, 1), -9, 9)], []),
                                            ([rand_t(rng, (1, 2, 3), -9, 9)], []),
                                            ([rand_t(rng, (1, 7, 1), -9, 9)], [])]))
    # Load refusals: groups that do not divide cin, a shift of 128, a parameter length one short.
    bad = conv_params(1, 1, 1, 1, 1, 0, 0, 2, 1, RQ(0, [0]), [1])
    out.append(load_refusal("conv-load-groups", single("conv", bad, {}, [(3, -9, 9)], 1), "model_mismatch"))
    bad = conv_params(1, 1, 1, 1, 1, 0, 0, 1, 1, RQ(0, [128]), [1])
    out.append(load_refusal("conv-load-shift", single("conv", bad, {}, [(1, -9, 9)], 1), "model_mismatch"))
    bad = conv_params(1, 1, 1, 1, 1, 0, 0, 1, 1, RQ(0, [1]), [1])[:-1]
    out.append(load_refusal("conv-load-plen", single("conv", bad, {}, [(1, -9, 9)], 1), "model_mismatch"))
    # Declared sizes on which the kernel does not plan: refused at load; past the cap: too_large at load.
    p = conv_params(1, 5, 5, 1, 1, 0, 0, 1, 1, RQ(0, [0]), [1] * 25)
    out.append(load_refusal("conv-load-plan", single("conv", p, {}, [(1, -9, 9)], 1, max_hw=(4, 8)),
                            "model_mismatch"))
    p = conv_params(1, 1, 1, 1, 1, 1 << 25, 0, 1, 1, RQ(0, [0]), [1])
    out.append(load_refusal("conv-load-cap", single("conv", p, {}, [(1, -9, 9)], 1, max_hw=(4, 4)), "too_large"))
    return out


def gen_conv_transpose(rng):
    out = []
    # (cin, cout, kh, kw, sh, sw, ph, pw, oph, opw, H, W): output padding at least the stride, stride larger
    # than the kernel, a 1x1 plane, the 1-D form.
    geoms = [(1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 2), (1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 1, 2),
             (1, 1, 1, 1, 3, 3, 0, 0, 2, 2, 1, 1), (2, 3, 3, 3, 2, 2, 1, 1, 1, 1, 3, 2),
             (2, 2, 2, 3, 3, 2, 0, 1, 3, 2, 2, 3), (3, 2, 1, 4, 1, 2, 0, 1, 0, 1, 1, 5),
             (1, 2, 3, 3, 1, 1, 1, 1, 0, 0, 4, 4)]
    for k, (cin, cout, kh, kw, sh, sw, ph, pw, oph, opw, H, W) in enumerate(geoms):
        rq = random_rq(rng, cout)
        w_bytes = rng.choice([1, 2, 4, 8])
        lim = {1: 127, 2: 32767, 4: 100000, 8: 100000}[w_bytes]
        w = [rng.randint(-lim, lim) for _ in range(cin * cout * kh * kw)]
        g = single("conv_transpose", convt_params(cout, kh, kw, sh, sw, ph, pw, oph, opw, w_bytes, rq, w),
                   dict(cout=cout, kh=kh, kw=kw, sh=sh, sw=sw, ph=ph, pw=pw, oph=oph, opw=opw, w=w, rq=rq),
                   [(cin, -500, 500)], cout)
        out.append(vector(f"conv_transpose-{k}", g, [([rand_t(rng, (cin, H, W), -500, 500)], []),
                                                     ([rand_t(rng, (cin, 1, 1), -500, 500)], [])]))
    # The digest's example: [[1, 2]], kernel [[1, 2], [3, 4]], stride 2.
    rq = RQ(0, [0])
    g = single("conv_transpose", convt_params(1, 2, 2, 2, 2, 0, 0, 0, 0, 1, rq, [1, 2, 3, 4]),
               dict(cout=1, kh=2, kw=2, sh=2, sw=2, ph=0, pw=0, oph=0, opw=0, w=[1, 2, 3, 4], rq=rq),
               [(1, -9, 9)], 1)
    out.append(vector("conv_transpose-example", g, [([((1, 1, 2), [1, 2])], [])]))
    # Cropping more than the uncropped side leaves no output: geometry_mismatch at run time.
    rq = RQ(0, [0])
    g = single("conv_transpose", convt_params(1, 1, 1, 1, 1, 1, 0, 0, 0, 1, rq, [1]),
               dict(cout=1, kh=1, kw=1, sh=1, sw=1, ph=1, pw=0, oph=0, opw=0, w=[1], rq=rq), [(1, -9, 9)], 1)
    out.append(vector("conv_transpose-crop", g, [([rand_t(rng, (1, 2, 2), -9, 9)], []),
                                                 ([rand_t(rng, (1, 3, 2), -9, 9)], [])]))
    return out


def tie_values(s):
    """Inputs t and a multiplier m such that t*m covers the ties of shift s on both signs, and their neighbours."""
    if s <= 62:
        vals = [k * (1 << s) + (1 << s >> 1) + d for k in (-3, -2, -1, 0, 1, 2) for d in (-1, 0, 1)]
        return 1, sorted({v for v in vals if I64_MIN <= v <= I64_MAX})
    if s == 63:
        return 2, [k * (1 << 62) + (1 << 61) + d for k in (-2, -1, 0, 1) for d in (-1, 0, 1)]
    if s == 64:
        return 1 << 62, list(range(-7, 8))
    return -(1 << 63), [I64_MIN, I64_MIN + 1, -(1 << 62), -1, 0, 1, 1 << 62, I64_MAX]


def gen_rescale(rng):
    out = []
    for s in (0, 1, 31, 32, 62, 63, 64, 127):
        m, vals = tie_values(s)
        for round_ in (0, 1, 2):
            rq = RQ(round_, [s], [m], 8)
            g = single("rescale", rq.encode(), dict(rq=rq), [(1, I64_MIN, I64_MAX)], 1)
            out.append(vector(f"rescale-s{s}-r{round_}", g, [([((1, 1, len(vals)), vals)], [])]))
    # Per-channel parameters, biases pre and post, and an output policy of each kind.
    for k in range(6):
        C = rng.randint(1, 4)
        rq = random_rq(rng, C)
        policy = [("derived", 0, 0), ("clamp", -50, 50), ("check", -200000, 200000)][k % 3]
        g = single("rescale", rq.encode(), dict(rq=rq), [(C, -3000, 3000, "clamp" if k % 2 else "check")], C,
                   out_policy=policy)
        out.append(vector(f"rescale-random-{k}", g, [([rand_t(rng, (C, 2, 3), -3100, 3100)], [])
                                                     for _ in range(2)]))
    return out


def gen_chscale(rng):
    out = []
    C, rows = 3, 4
    for round_ in (0, 1, 2):
        M = [rng.randint(-70000, 70000) for _ in range(rows * C)]
        shift = [0, 5, 16][round_]
        params = struct.pack("<II", 0, rows) + bytes([round_, 8, shift, 0]) + b"".join(le(v, 8) for v in M)
        g = single("chscale", params, dict(scalar=0, M=M, round=round_, shift=shift), [(C, -1000, 1000)], C,
                   scalars=[(0, rows - 1)])
        x = rand_t(rng, (C, 2, 2), -1000, 1000)
        out.append(vector(f"chscale-{round_}", g, [([x], [r]) for r in range(rows)] + [([x], [rows])]))
    params = struct.pack("<II", 0, 2) + bytes([0, 4, 0, 0]) + b"".join(le(1, 4) for _ in range(2))
    out.append(load_refusal("chscale-load-range", single("chscale", params, {}, [(1, -9, 9)], 1,
                                                         scalars=[(0, 2)]), "model_mismatch"))
    return out


def gen_mul(rng):
    out = []
    for k, bc in enumerate((3, 1, 3, 1)):
        rq = random_rq(rng, 3, allow_bias=False)
        g = single("mul", rq.encode(), dict(rq=rq), [(3, -40000, 40000), (bc, -40000, 40000)], 3)
        out.append(vector(f"mul-{k}", g, [([rand_t(rng, (3, 2, 3), -40000, 40000),
                                            rand_t(rng, (bc, 2, 3), -40000, 40000)], []),
                                          ([rand_t(rng, (3, 2, 3), -9, 9), rand_t(rng, (bc, 3, 2), -9, 9)], [])]))
    bad = RQ(0, [0], bias=[1], place=1, b_bytes=4)
    out.append(load_refusal("mul-load-bias", single("mul", bad.encode(), {}, [(1, -9, 9), (1, -9, 9)], 1),
                            "model_mismatch"))
    return out


def gen_lut16(rng):
    T = [0] + [rng.randint(-32768, 32767) for _ in range(65535)]
    params = le(-128, 1) + le(-128, 1) + b"\0\0" + b"".join(le(v, 2) for v in T)
    g = single("lut16", params, dict(T=T), [(2, -32767, 32767)], 2)
    vals = [-32767, -32766, -1, 0, 1, 32766, 32767] + [rng.randint(-32767, 32767) for _ in range(9)]
    return [vector("lut16-0", g, [([((2, 2, 4), vals)], [])])]


def gen_elementwise(rng):
    out = []
    for k in range(3):
        g = single("add", b"", {}, [(2, -10**12, 10**12), (2, -10**12, 10**12)], 2,
                   out_policy=[("derived", 0, 0), ("clamp", -10**11, 10**11), ("check", -10**12, 10**12)][k])
        out.append(vector(f"add-{k}", g, [([rand_t(rng, (2, 2, 2), -10**12, 10**12),
                                            rand_t(rng, (2, 2, 2), -10**12, 10**12)], []),
                                          ([rand_t(rng, (2, 1, 2), -9, 9), rand_t(rng, (2, 2, 1), -9, 9)], [])]))
    g = Graph()
    a = g.input(1, -9, 9)
    b = g.tensor(1, exponent=3)
    g.op("add", [a, a], [b], b"")
    g.outputs = [b]
    out.append(load_refusal("add-load-exponent", g, "model_mismatch"))
    g = single("chunk_add", b"", {}, [(4, -10**15, 10**15)], 2)
    out.append(vector("chunk_add-0", g, [([rand_t(rng, (4, 3, 2), -10**15, 10**15)], [])]))
    out.append(load_refusal("chunk_add-load-odd", single("chunk_add", b"", {}, [(3, -9, 9)], 1), "model_mismatch"))
    for k, (lo, hi) in enumerate([(-5, 5), (I64_MIN, 0), (3, 3)]):
        g = single("clamp", le(lo, 8) + le(hi, 8), dict(lo=lo, hi=hi), [(1, I64_MIN, I64_MAX)], 1)
        vals = [I64_MIN, -6, -5, -1, 0, 1, 3, 5, 6, I64_MAX]
        out.append(vector(f"clamp-{k}", g, [([((1, 1, len(vals)), vals)], [])]))
    out.append(load_refusal("clamp-load-order", single("clamp", le(2, 8) + le(1, 8), {}, [(1, -9, 9)], 1),
                            "model_mismatch"))
    g = single("relu", b"", {}, [(2, I64_MIN, I64_MAX)], 2)
    out.append(vector("relu-0", g, [([((2, 1, 3), [I64_MIN, -1, 0, 1, I64_MAX, 7])], [])]))
    g = single("abs", b"", {}, [(1, I64_MIN + 1, I64_MAX)], 1)
    out.append(vector("abs-0", g, [([((1, 1, 5), [I64_MIN + 1, -7, 0, 7, I64_MAX])], [])]))
    # leaky: negative values floor away from zero (-3 * 1 / 2 = -1.5 -> -2).
    for k, (a, f) in enumerate([(1, 1), (3, 2), (-5, 0), (1 << 40, 63), (12345, 17)]):
        g = single("leaky", le(a, 8) + struct.pack("<I", f), dict(a=a, f=f), [(1, -10**6, 10**6)], 1)
        vals = [-10**6, -3, -2, -1, 0, 1, 10**6] + [rng.randint(-10**6, 10**6) for _ in range(5)]
        out.append(vector(f"leaky-{k}", g, [([((1, 3, 4), vals)], [])]))
    out.append(load_refusal("leaky-load-f", single("leaky", le(1, 8) + struct.pack("<I", 64), {}, [(1, -9, 9)], 1),
                            "model_mismatch"))
    return out


def igdn_params(gf, frac, g_bytes, gamma, beta):
    return (struct.pack("<II", gf, frac) + bytes([g_bytes]) + bytes(7) + b"".join(le(v, g_bytes) for v in gamma)
            + b"".join(le(v, 8) for v in beta))


def gen_normalisations(rng):
    out = []
    # igdn: x = [1, 1], gamma all 1, beta 0, gf 1 floors each term to 0 (flooring the sum would give 1).
    cases = [(2, 1, 0, [1] * 4, [0, 0], ((2, 1, 1), [1, 1]))]
    for _ in range(4):
        C = rng.randint(1, 4)
        cases.append((C, rng.randint(0, 20), rng.randint(0, 12), [rng.randint(-5000, 70000) for _ in range(C * C)],
                      [rng.randint(-10**6, 10**9) for _ in range(C)], rand_t(rng, (C, 2, 3), -30000, 30000)))
    for k, (C, gf, frac, gamma, beta, x) in enumerate(cases):
        g_bytes = 4 if k % 2 == 0 else 8
        g = single("igdn", igdn_params(gf, frac, g_bytes, gamma, beta),
                   dict(gf=gf, frac=frac, gamma=gamma, beta=beta), [(C, -30000, 30000)], C)
        out.append(vector(f"igdn-{k}", g, [([x], [])]))
    # layernorm_c: odd C with a mean that is a half; eps = 2^64 - 1 where V + eps passes 64 bits.
    ln_cases = [(3, 1, [65536] * 3, [0] * 3, ((3, 1, 2), [1, 2, 4, 0, 1, 1])),
                (3, 42949, [65536] * 3, [0] * 3, ((3, 1, 1), [65536, 0, -65536])),
                (2, 1, [65536, -3], [5, -5], ((2, 1, 2), [-1, 0, 0, 1])),
                (5, (1 << 64) - 1, [rng.randint(-10**6, 10**6) for _ in range(5)], [7] * 5,
                 rand_t(rng, (5, 2, 2), -10**9, 10**9)),
                (4, 1000, [rng.randint(-10**6, 10**6) for _ in range(4)], [rng.randint(-99, 99) for _ in range(4)],
                 rand_t(rng, (4, 3, 1), -10**6, 10**6))]
    for k, (C, eps, gamma, beta, x) in enumerate(ln_cases):
        g_bytes = 4 if k % 2 == 0 else 8
        params = le(eps, 8, False) + bytes([g_bytes]) + bytes(7) + b"".join(le(v, g_bytes) for v in gamma) + \
            b"".join(le(v, 8) for v in beta)
        g = single("layernorm_c", params, dict(eps=eps, gamma=gamma, beta=beta), [(C, -10**9, 10**9)], C)
        out.append(vector(f"layernorm_c-{k}", g, [([x], [])]))
    for k, (eps, x) in enumerate([(1, ((1, 1, 2), [3, 4])), (42949, rand_t(rng, (2, 3, 3), -70000, 70000)),
                                  ((1 << 64) - 1, rand_t(rng, (1, 2, 2), -10**9, 10**9))]):
        g = single("l2norm", le(eps, 8, False), dict(eps=eps), [(x[0][0], -10**9, 10**9)], x[0][0],
                   max_hw=(3, 3))
        out.append(vector(f"l2norm-{k}", g, [([x], [])]))
    out.append(load_refusal("l2norm-load-sizes", single("l2norm", le(1, 8, False), {}, [(1, -9, 9)], 1),
                            "model_mismatch"))
    out.append(load_refusal("l2norm-load-eps", single("l2norm", le(0, 8, False), {}, [(1, -9, 9)], 1,
                                                      max_hw=(2, 2)), "model_mismatch"))
    g = single("softmax", b"", {}, [(2, -10**7, 10**7)], 2, max_hw=(2, 7))
    out.append(vector("softmax-0", g, [([((2, 1, 2), [0, 0, 0, 65536])], []),
                                       ([((2, 1, 7), [0] * 14)], []),
                                       ([rand_t(rng, (2, 2, 7), -300000, 300000)], []),
                                       ([((2, 1, 3), [-10**7, 0, 10**7, 5, 5, 5])], [])]))
    return out


def gen_scalar_functions(rng):
    out = []
    # exp_neg_q16 at n = 62 and n = 63 (45426 * 62 and 45426 * 63), octave edges, and i64's ends.
    edges = [0, 1, -1, 45425, -45425, 45426, -45426, 65536, -65536, 45426 * 62, -45426 * 62, -45426 * 63,
             -45426 * 63 - 1, -45426 * 17, I64_MIN + 1, I64_MAX]
    g = single("sigmoid", b"", {}, [(1, I64_MIN + 1, I64_MAX)], 1)
    out.append(vector("sigmoid-0", g, [([((1, 1, len(edges)), edges)], []),
                                       ([rand_t(rng, (1, 2, 5), -300000, 300000)], [])]))
    for k, alpha in enumerate([65536, 1 << 20, -65536, 3, (1 << 40) + 7]):
        g = single("elu", le(alpha, 8), dict(alpha=alpha), [(1, -(1 << 62), 1 << 62)], 1)
        vals = [0, 1, -1, -65536, -45426 * 62, -45426 * 63, -(1 << 62), 1 << 62] + \
            [rng.randint(-300000, 300000) for _ in range(4)]
        out.append(vector(f"elu-{k}", g, [([((1, 3, 4), vals)], [])]))
    return out


def gen_contractions(rng):
    out = []
    for k, (C, groups, H, W, s, round_) in enumerate([(2, 1, 2, 3, 0, 0), (4, 2, 3, 3, 16, 1), (3, 3, 1, 4, 5, 2),
                                                      (4, 1, 2, 2, 7, 1)]):
        rq = RQ(round_, [s])
        g = single("gram", struct.pack("<I", groups) + rq.encode(), dict(groups=groups, rq=rq),
                   [(C, -70000, 70000), (C, -70000, 70000)], C, max_hw=(H, W))
        out.append(vector(f"gram-{k}", g, [([rand_t(rng, (C, H, W), -70000, 70000),
                                             rand_t(rng, (C, H, W), -70000, 70000)], []),
                                           ([rand_t(rng, (C, H, W), -5, 5), rand_t(rng, (C, 1, W), -5, 5)], [])]))
        d = C // groups
        g = single("apply", struct.pack("<I", groups) + rq.encode(), dict(groups=groups, rq=rq),
                   [(C, -70000, 70000), (C, -70000, 70000)], C)
        out.append(vector(f"apply-{k}", g, [([rand_t(rng, (C, 1, d), -70000, 70000),
                                              rand_t(rng, (C, H, W), -70000, 70000)], []),
                                            ([rand_t(rng, (C, 1, d + 1), -5, 5), rand_t(rng, (C, H, W), -5, 5)],
                                             [])]))
    bad = RQ(0, [0], mult=[2], m_bytes=4)
    out.append(load_refusal("gram-load-mult", single("gram", struct.pack("<I", 1) + bad.encode(), {},
                                                     [(1, -9, 9), (1, -9, 9)], 1, max_hw=(2, 2)), "model_mismatch"))
    return out


def gen_movement(rng):
    out = []
    g = Graph()
    ins = [g.input(c, -99, 99) for c in (1, 2, 1)]
    o = g.tensor(4)
    g.op("concat", ins, [o], b"")
    g.ops[-1]["info"] = {}
    g.outputs = [o]
    out.append(vector("concat-0", g, [([rand_t(rng, (c, 2, 3), -99, 99) for c in (1, 2, 1)], []),
                                      ([rand_t(rng, (1, 2, 3), -9, 9), rand_t(rng, (2, 2, 3), -9, 9),
                                        rand_t(rng, (1, 3, 2), -9, 9)], [])]))
    g = single("split", struct.pack("<II", 1, 2), dict(start=1, count=2), [(4, -99, 99)], 2)
    out.append(vector("split-0", g, [([rand_t(rng, (4, 2, 2), -99, 99)], [])]))
    out.append(load_refusal("split-load-range", single("split", struct.pack("<II", 3, 2), {}, [(4, -9, 9)], 2),
                            "model_mismatch"))
    g = single("pixel_shuffle", struct.pack("<I", 2), dict(r=2), [(8, -99, 99)], 2)
    out.append(vector("pixel_shuffle-0", g, [([rand_t(rng, (8, 2, 3), -99, 99)], [])]))
    g = single("pixel_unshuffle", struct.pack("<I", 2), dict(r=2), [(2, -99, 99)], 8)
    out.append(vector("pixel_unshuffle-0", g, [([rand_t(rng, (2, 4, 2), -99, 99)], []),
                                               ([rand_t(rng, (2, 3, 2), -99, 99)], [])]))
    g = single("pad_rep", struct.pack("<I", 4), dict(m=4), [(2, -99, 99)], 2)
    out.append(vector("pad_rep-0", g, [([rand_t(rng, (2, 3, 5), -99, 99)], []), ([rand_t(rng, (2, 4, 4), -9, 9)], [])]))
    g = single("crop_to", b"", {}, [(2, -99, 99), (5, -99, 99)], 2)
    out.append(vector("crop_to-0", g, [([rand_t(rng, (2, 3, 4), -99, 99), rand_t(rng, (5, 2, 3), -9, 9)], []),
                                       ([rand_t(rng, (2, 3, 4), -99, 99), rand_t(rng, (5, 4, 1), -9, 9)], [])]))
    # crop: constants, and scalars at their ends, one that does not fit, and a negative start.
    operands = [(0, 1), (1, 0), (0, 2), (1, 1)]
    params = b"".join(bytes([k, 0, 0, 0]) + struct.pack("<I", v) for k, v in operands)
    g = single("crop", params, dict(operands=operands), [(2, -99, 99)], 2, scalars=[(-2, 4), (1, 5)])
    x = rand_t(rng, (2, 4, 5), -99, 99)
    out.append(vector("crop-0", g, [([x], [0, 1]), ([x], [4, 1]), ([x], [3, 2]), ([x], [-1, 1]), ([x], [2, 0]),
                                    ([x], [5, 1])]))
    # subpos_split / subpos_merge in the order (0,0), (1,1), (0,1), (1,0).
    order = [0, 3, 1, 2]
    g = single("subpos_split", bytes(order), dict(order=order), [(2, -99, 99)], 2, n_out=4)
    out.append(vector("subpos_split-0", g, [([rand_t(rng, (2, 4, 2), -99, 99)], []),
                                            ([rand_t(rng, (2, 3, 2), -99, 99)], [])]))
    g = Graph()
    ins = [g.input(2, -99, 99) for _ in range(4)]
    o = g.tensor(2)
    g.op("subpos_merge", ins, [o], bytes(order))
    g.ops[-1]["info"] = dict(order=order)
    g.outputs = [o]
    out.append(vector("subpos_merge-0", g, [([rand_t(rng, (2, 2, 3), -99, 99) for _ in range(4)], []),
                                            ([rand_t(rng, (2, 2, 3), -9, 9) for _ in range(3)] +
                                             [rand_t(rng, (2, 3, 3), -9, 9)], [])]))
    out.append(load_refusal("subpos_split-load-order", single("subpos_split", bytes([0, 1, 1, 2]), {}, [(1, -9, 9)], 1,
                                                        n_out=4), "model_mismatch"))
    for k, (kind, v) in enumerate([(0, -(1 << 62)), (1, 0)]):
        params = bytes([kind]) + bytes(7) + le(v, 8)
        g = single("fill", params, dict(value=(kind, v)), [(2, -99, 99)], 3, scalars=[(-50, 50)])
        out.append(vector(f"fill-{k}", g, [([rand_t(rng, (2, 2, 3), -99, 99)], [-50]),
                                           ([rand_t(rng, (2, 1, 1), -99, 99)], [50]),
                                           ([rand_t(rng, (2, 1, 1), -99, 99)], [51])]))
    return out


def gen_graphs(rng):
    """Multi-operator graphs: a state input carried across decodes, and a refused decode that changes no state."""
    out = []
    g = Graph()
    x = g.input(2, -100, 100)
    s = g.input(2, -10**6, 10**6, policy="clamp", state_src=1, init=5)
    t_sum = g.tensor(2, "check", -1000, 1000)
    g.op("add", [x, s], [t_sum], b"")
    g.ops[-1]["info"] = {}
    t_relu = g.tensor(2)
    g.op("relu", [t_sum], [t_relu], b"")
    g.ops[-1]["info"] = {}
    g.outputs = [t_relu, t_sum]
    shape = (2, 1, 3)
    decodes = [([rand_t(rng, shape, -100, 100)], []) for _ in range(3)]
    decodes.insert(2, ([(shape, [101, 0, 0, 0, 0, 0])], []))  # refused: the state must not change
    decodes += [([rand_t(rng, shape, 90, 100)], []) for _ in range(12)]  # the sum reaches its check range
    out.append(vector("graph-state", g, decodes))
    return out


def gen_golden(rng):
    """The golden-row graphs (tools/golden.sh hashes their outputs on every target): a few multi-operator graphs
    of realistic size, one decode each (a sequence of four for the state graph)."""
    out = []
    # A small conv net: conv, leaky, grouped strided conv, igdn, conv_transpose, softmax and gram.
    g = Graph()
    x = g.input(3, -128, 127, max_h=20, max_w=24)
    w1 = [rng.randint(-127, 127) for _ in range(8 * 3 * 9)]
    rq1 = RQ(0, [14], mult=[rng.randint(1000, 3000) for _ in range(8)], m_bytes=4, mult_per_channel=True,
             bias=[rng.randint(-99, 99) for _ in range(8)], place=2, b_bytes=4)
    t1 = g.tensor(8, "clamp", -128, 127)
    g.op("conv", [x], [t1], conv_params(8, 3, 3, 1, 1, 1, 1, 1, 1, rq1, w1),
         cout=8, kh=3, kw=3, sh=1, sw=1, ph=1, pw=1, groups=1, w=w1, rq=rq1)
    t2 = g.tensor(8)
    g.op("leaky", [t1], [t2], le(13, 8) + struct.pack("<I", 5), a=13, f=5)
    w3 = [rng.randint(-30000, 30000) for _ in range(16 * 4 * 9)]
    rq3 = RQ(2, [12], bias=[rng.randint(-10**5, 10**5) for _ in range(16)], place=1, b_bytes=8)
    t3 = g.tensor(16, "clamp", -32768, 32767)
    g.op("conv", [t2], [t3], conv_params(16, 3, 3, 2, 2, 1, 1, 2, 2, rq3, w3),
         cout=16, kh=3, kw=3, sh=2, sw=2, ph=1, pw=1, groups=2, w=w3, rq=rq3)
    gamma = [rng.randint(0, 5000) for _ in range(256)]
    beta = [rng.randint(1, 10**6) for _ in range(16)]
    t4 = g.tensor(16)
    g.op("igdn", [t3], [t4], igdn_params(10, 8, 4, gamma, beta), gf=10, frac=8, gamma=gamma, beta=beta)
    w5 = [rng.randint(-2000, 2000) for _ in range(16 * 4 * 16)]
    rq5 = RQ(1, [16])
    t5 = g.tensor(4, "clamp", -32767, 32767)
    g.op("conv_transpose", [t4], [t5], convt_params(4, 4, 4, 2, 2, 1, 1, 0, 0, 2, rq5, w5),
         cout=4, kh=4, kw=4, sh=2, sw=2, ph=1, pw=1, oph=0, opw=0, w=w5, rq=rq5)
    t6 = g.tensor(4)
    g.op("softmax", [t5], [t6], b"")
    rq7 = RQ(1, [20])
    t7 = g.tensor(4)
    g.op("gram", [t5, t5], [t7], struct.pack("<I", 2) + rq7.encode(), groups=2, rq=rq7)
    g.outputs = [t6, t7]
    out.append(vector("golden-convnet", g, [([rand_t(rng, (3, 20, 24), -128, 127)], [])]))

    # Normalisations and scalar functions, with movement around them.
    g = Graph()
    x = g.input(6, -(1 << 20), 1 << 20, max_h=8, max_w=16)
    gamma = [rng.randint(30000, 100000) for _ in range(6)]
    beta = [rng.randint(-5000, 5000) for _ in range(6)]
    t1 = g.tensor(6)
    g.op("layernorm_c", [x], [t1], le(1000, 8, False) + bytes([8]) + bytes(7) +
         b"".join(le(v, 8) for v in gamma) + b"".join(le(v, 8) for v in beta), eps=1000, gamma=gamma, beta=beta)
    t2 = g.tensor(6)
    g.op("sigmoid", [t1], [t2], b"")
    t3 = g.tensor(6)
    g.op("l2norm", [x], [t3], le(7, 8, False), eps=7)
    t4 = g.tensor(6)
    g.op("elu", [t3], [t4], le(65536, 8), alpha=65536)
    t5 = g.tensor(24)
    g.op("pixel_unshuffle", [x], [t5], struct.pack("<I", 2), r=2)
    t6 = g.tensor(12)
    g.op("chunk_add", [t5], [t6], b"")
    g.outputs = [t2, t4, t6]
    out.append(vector("golden-norms", g, [([rand_t(rng, (6, 8, 16), -(1 << 20), 1 << 20)], [])]))

    # A recurrent graph: the state is the last output, carried over four decodes.
    g = Graph()
    x = g.input(2, -1000, 1000)
    s = g.input(2, -5000, 5000, policy="clamp", state_src=0, init=17)
    t1 = g.tensor(4)
    g.op("concat", [x, s], [t1], b"")
    w = [rng.randint(-127, 127) for _ in range(2 * 4 * 9)]
    rq = RQ(0, [8], mult=[3], m_bytes=8)
    t2 = g.tensor(2, "clamp", -1000, 1000)
    g.op("conv", [t1], [t2], conv_params(2, 3, 3, 1, 1, 1, 1, 1, 1, rq, w),
         cout=2, kh=3, kw=3, sh=1, sw=1, ph=1, pw=1, groups=1, w=w, rq=rq)
    t3 = g.tensor(2, "check", -5000, 5000)
    g.op("add", [t2, x], [t3], b"")
    g.outputs = [t3]
    out.append(vector("golden-state", g, [([rand_t(rng, (2, 6, 6), -1000, 1000)], []) for _ in range(4)]))
    return out


def gen_bounds(rng):
    """Vectors whose load or profiles the bounds pass (§8) decides (§14.1 items 4 and 6): `vector` turns a graph
    that fails acc64 or is refused at step 8 into a model_mismatch load refusal."""
    out = []
    # acc32 at exactly [-2^31, 2^31 - 1], and one past it (acc64 only).
    for k, hi_b in enumerate([1 << 30, (1 << 30) + 1]):
        g = single("add", b"", {}, [(1, -(1 << 30), (1 << 30) - 1), (1, -(1 << 30), hi_b)], 1)
        out.append(vector(f"add-acc32-edge-{k}", g, [([((1, 1, 2), [-(1 << 30), (1 << 30) - 1]),
                                                       ((1, 1, 2), [-(1 << 30), hi_b])], [])]))
    assert out[0]["profiles"] == ["acc32", "acc64"] and out[1]["profiles"] == ["acc64"]
    # sigmoid and elu on an input range that reaches -2^63: exp.negx needs 65 bits, refused at load.
    out.append(vector("sigmoid-load-min", single("sigmoid", b"", {}, [(1, I64_MIN, 0)], 1), []))
    out.append(vector("elu-load-min", single("elu", le(1, 8), dict(alpha=1), [(1, I64_MIN, 0)], 1), []))
    # An rq whose q passes 64 bits (7 * 2^61) while y = q - 2^63 fits: refused at load under acc64.
    rq = RQ(0, [0], mult=[7], m_bytes=8, bias=[I64_MIN], place=2, b_bytes=8)
    out.append(vector("rescale-load-q65", single("rescale", rq.encode(), dict(rq=rq), [(1, 1 << 61, 1 << 61)], 1), []))
    # A check range that no value of its producer can meet. (lut16's range refusal is in certify_test.cc: a
    # second 128 KiB table would double lut16.jsonl.)
    out.append(vector("relu-load-empty-check", single("relu", b"", {}, [(1, -9, 9)], 1,
                                                      out_policy=("check", -9, -1)), []))
    assert all(v["load"] == "model_mismatch" for v in out[2:])
    return out


GENERATORS = {
    "conv": gen_conv, "conv_transpose": gen_conv_transpose, "rescale": gen_rescale, "chscale": gen_chscale,
    "mul": gen_mul, "lut16": gen_lut16, "elementwise": gen_elementwise, "normalisation": gen_normalisations,
    "scalar_functions": gen_scalar_functions, "contraction": gen_contractions, "movement": gen_movement,
    "graphs": gen_graphs, "golden": gen_golden, "bounds": gen_bounds,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--out", default="testdata/wai")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = {}
    for name, gen in GENERATORS.items():
        for v in gen(random.Random(f"{args.seed}:{name}")):
            op = v["id"].split("-")[0]
            files.setdefault("graphs" if op == "graph" else op, []).append(v)
    header = canonical({"header": f"wai-ops/1 vectors written by tools/wai/reference.py --seed {args.seed}; the "
                                  "lines after this one are vectors in the form of wai-ops/1 section 14.1"})
    for op, vectors in sorted(files.items()):
        with open(os.path.join(args.out, f"{op}.jsonl"), "w", newline="\n") as f:
            f.write("\n".join([header] + [canonical(v) for v in vectors]) + "\n")
    # The certificates of the vector graphs (§8.5), which native-tests/wai/certify_test.cc compares byte for byte.
    os.makedirs(os.path.join(args.out, "certificates"), exist_ok=True)
    with open(os.path.join(args.out, "certificates", "vectors.jsonl"), "w", newline="\n") as f:
        f.write("\n".join(canonical({"certificate": c, "id": vid}) for vid, c in sorted(CERTIFICATES.items())) + "\n")
    # The admissible ranges (§8.4) of every tensor of those graphs, and the certificates of a few sets of them.
    with open(os.path.join(args.out, "certificates", "admissible.jsonl"), "w", newline="\n") as f:
        f.write("\n".join(admissible_line(vid) for vid in sorted(CERTIFIED_GRAPHS)) + "\n")
    with open(os.path.join(args.out, "certificates", "sets.jsonl"), "w", newline="\n") as f:
        f.write("\n".join(set_line(sid) for sid in sorted(SETS)) + "\n")
    # Stage-operator vectors (§14.1), one file per operator under stage/.
    stage_dir = os.path.join(args.out, "stage")
    os.makedirs(stage_dir, exist_ok=True)
    stage_header = canonical({"header": f"wai-ops/1 stage vectors written by tools/wai/reference.py --seed {args.seed}; "
                                        "the lines after this one are stage vectors in the form of wai-ops/1 section "
                                        "14.1"})
    stage_files = stage_reference.generate(lambda name: random.Random(f"{args.seed}:stage:{name}"))
    for op, vectors in sorted(stage_files.items()):
        with open(os.path.join(stage_dir, f"{op}.jsonl"), "w", newline="\n") as f:
            f.write("\n".join([stage_header] + [canonical(v) for v in vectors]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
