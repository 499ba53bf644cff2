"""Independent bounds certifier for wai-ops/1 (§8), for tools/wai/reference.py and the tests.

Written from the text with Python's unbounded integers and shares no code with the C++ certifier
(src/wai/certify.cc): it parses the WHG1 bytes itself, folds every partial sum term by term in index order with
sat() after each step (the C++ pass uses §8.2's closed form instead), and writes the certificate's canonical JSON
(§8.5) for a graph certified on its own (capability, set digest and role null, lowering "whg1") or for a set of
graphs certified together. It also searches the admissible ranges of §8.4.

    certificate(graph_bytes) -> (certificate bytes, verdict dict)   or raises Refused(step 8) for a load refusal
    set_certificate([(role or None, graph_bytes)], capability, lowering, set_sha256) -> (bytes, verdict)
    admissible_ranges(graph_bytes) -> {tensor: {"acc64": (lo, hi) or None, "acc32": ...}}
"""

import hashlib
import json
import struct

I32 = (-(1 << 31), (1 << 31) - 1)
SAT = 1 << 255
NAMES = {
    0x01: "conv", 0x02: "rescale", 0x03: "chscale", 0x04: "lut16", 0x05: "add", 0x06: "concat",
    0x07: "chunk_add", 0x08: "split", 0x09: "pixel_shuffle", 0x0A: "pixel_unshuffle", 0x0B: "clamp",
    0x0C: "relu", 0x0D: "leaky", 0x0E: "pad_rep", 0x0F: "crop_to", 0x10: "mul", 0x11: "conv_transpose",
    0x12: "igdn", 0x13: "abs", 0x14: "crop", 0x15: "subpos_split", 0x16: "subpos_merge", 0x17: "fill",
    0x18: "layernorm_c", 0x19: "l2norm", 0x1A: "softmax", 0x1B: "sigmoid", 0x1C: "elu", 0x1D: "gram",
    0x1E: "apply",
}
POLICIES = ["derived", "clamp", "check"]
# §7.1 width classes: bits under (acc64, acc32).
WIDTH = {"tensor": (64, 32), "acc": (64, 32), "wide": (128, 32), "product": (128, 64)}
CLASS = {
    "conv.term": "acc", "conv.acc": "acc", "convT.term": "acc", "convT.acc": "acc", "rq.t": "acc",
    "rq.p": "product", "rq.q": "acc", "rq.y": "acc", "mul.p": "acc", "gram.term": "acc", "gram.acc": "acc",
    "apply.term": "acc", "apply.acc": "acc", "leaky.p": "acc", "igdn.x2": "wide", "igdn.gx2": "product",
    "igdn.term": "wide", "igdn.N": "wide", "igdn.r": "acc", "igdn.xr": "wide", "ln.S": "wide", "ln.m": "wide",
    "ln.d": "acc", "ln.T": "wide", "ln.v": "wide", "rsq.num": "acc", "ln.k": "acc", "ln.dk": "wide",
    "ln.n": "acc", "ln.ng": "wide", "l2.T": "wide", "l2.k": "acc", "l2.vk": "wide", "sm.diff": "acc",
    "exp.negx": "acc", "exp.nl": "acc", "exp.t2": "acc", "exp.c": "acc", "sm.sum": "acc", "sm.num": "acc",
    "sig.num": "acc", "elu.p": "wide",
}
RQ_OPS = ("conv", "conv_transpose", "rescale", "mul", "gram", "apply")
NOT_NPU = ("igdn", "layernorm_c", "l2norm", "softmax", "sigmoid", "elu", "gram", "apply")


class Refused(Exception):
    """A load refusal of §10.5 step 8 (model_mismatch)."""


def bits(lo, hi):
    """bits([lo, hi]) of §2."""
    def one(v):
        return (v.bit_length() if v >= 0 else (-v - 1).bit_length()) + 1
    return max(one(lo), one(hi))


def fits32(v):
    return I32[0] <= v <= I32[1]


def isqrt(n):
    if n < 2:
        return n
    x = 1 << ((n.bit_length() + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y


# ---------------------------------------------------------------------------------------------------------------
# WHG1 parsing (§10): the graph is assumed to have passed load checks 1-7.


class Reader:
    def __init__(self, b):
        self.b, self.p = b, 0

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.b, self.p)
        self.p += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    def ints(self, n, width):
        fmt = {1: "b", 2: "h", 4: "i", 8: "q"}[width]
        return [self.take(fmt) for _ in range(n)]


def parse_rq(r, C):
    rnd, place, m_kind, s_kind, m_bytes, b_bytes, _ = r.take("BBBBBBH")
    mult = r.ints({0: 0, 1: 1, 2: C}[m_kind], m_bytes) if m_kind else []
    shift = [r.take("B") for _ in range(1 if s_kind == 1 else C)]
    bias = r.ints(C, b_bytes) if place else []
    return dict(round=rnd, place=place, mult=mult, shift=shift, bias=bias)


def rq_channel(rq, c):
    m = rq["mult"][c if len(rq["mult"]) > 1 else 0] if rq["mult"] else 1
    s = rq["shift"][c if len(rq["shift"]) > 1 else 0]
    pre = rq["bias"][c] if rq["place"] == 1 else 0
    post = rq["bias"][c] if rq["place"] == 2 else 0
    return m, s, pre, post


def parse(b):
    r = Reader(b)
    r.take("4sBBH")
    n_t, n_o, n_i, n_out, n_s, _, max_elems, _ = r.take("IIHHHHII")
    g = dict(scalars=[r.take("qq") for _ in range(n_s)], inputs=[], tensors=[], ops=[])
    for _ in range(n_i):
        t, mh, mw, kind, src, _, init = r.take("IIIB3xIIq")
        g["inputs"].append(dict(t=t, max_h=mh, max_w=mw, kind=kind, src=src, init=init))
    g["outputs"] = [r.take("I") for _ in range(n_out)]
    for _ in range(n_t):
        c, e, pol, _, lo, hi = r.take("IbBHqq")
        g["tensors"].append(dict(c=c, policy=POLICIES[pol], lo=lo, hi=hi))
    for _ in range(n_o):
        code, nin, nout, _ = r.take("BBBB")
        ins = [r.take("I") for _ in range(nin)]
        outs = [r.take("I") for _ in range(nout)]
        plen = r.take("I")
        end = r.p + plen
        name = NAMES[code]
        cin = g["tensors"][ins[0]]["c"]
        o = dict(name=name, ins=ins, outs=outs)
        if name in ("conv", "conv_transpose"):
            keys = ["cout", "kh", "kw", "sh", "sw", "ph", "pw"] + (["groups"] if name == "conv" else ["oph", "opw"])
            o.update(zip(keys, r.take("I" * len(keys))))
            wb = r.take("B3x")
            o["rq"] = parse_rq(r, o["cout"])
            n = o["cout"] * (cin // o["groups"]) * o["kh"] * o["kw"] if name == "conv" else \
                cin * o["cout"] * o["kh"] * o["kw"]
            o["w"] = r.ints(n, wb)
        elif name in ("rescale", "mul"):
            o["rq"] = parse_rq(r, cin)
        elif name == "chscale":
            o["scalar"], o["rows"] = r.take("II")
            o["round"], mb, o["shift"], _ = r.take("BBBB")
            o["M"] = r.ints(o["rows"] * cin, mb)
        elif name == "lut16":
            r.take("bbH")
            o["T"] = r.ints(65536, 2)
        elif name == "clamp":
            o["lo"], o["hi"] = r.take("qq")
        elif name == "leaky":
            o["a"], o["f"] = r.take("qI")
        elif name == "crop":
            o["operands"] = [r.take("B3xI") for _ in range(4)]
        elif name == "fill":
            o["kind"], o["value"] = r.take("B7xq")
        elif name == "igdn":
            o["gf"], o["frac"], gb = r.take("IIB7x")
            o["gamma"], o["beta"] = r.ints(cin * cin, gb), r.ints(cin, 8)
        elif name == "layernorm_c":
            o["eps"], gb = r.take("QB7x")
            o["gamma"], o["beta"] = r.ints(cin, gb), r.ints(cin, 8)
        elif name == "l2norm":
            o["eps"] = r.take("Q")
        elif name == "elu":
            o["alpha"] = r.take("q")
        elif name in ("gram", "apply"):
            o["groups"] = r.take("I")
            o["rq"] = parse_rq(r, cin)
        elif name in ("split", "pixel_shuffle", "pixel_unshuffle", "pad_rep"):
            o["p"] = r.take("I" * (2 if name == "split" else 1))
        r.p = end
        g["ops"].append(o)
    return g


def declared_shapes(g):
    """Every tensor's [C, H, W] planned on the declared input sizes (§8.1, Sizes); None when undeclared."""
    if not g["inputs"][0]["max_h"]:
        return None
    T = g["tensors"]
    sh = {i["t"]: (T[i["t"]]["c"], i["max_h"], i["max_w"]) for i in g["inputs"]}
    for o in g["ops"]:
        C, H, W = sh[o["ins"][0]]
        Co = T[o["outs"][0]]["c"]
        n = o["name"]
        if n == "conv":
            H, W = (H + 2 * o["ph"] - o["kh"]) // o["sh"] + 1, (W + 2 * o["pw"] - o["kw"]) // o["sw"] + 1
        elif n == "conv_transpose":
            H, W = (H - 1) * o["sh"] + o["kh"] + o["oph"] - 2 * o["ph"], (W - 1) * o["sw"] + o["kw"] + o["opw"] - 2 * o["pw"]
        elif n == "pixel_shuffle":
            H, W = H * o["p"], W * o["p"]
        elif n == "pixel_unshuffle":
            H, W = H // o["p"], W // o["p"]
        elif n == "pad_rep":
            H, W = -(-H // o["p"]) * o["p"], -(-W // o["p"]) * o["p"]
        elif n == "crop_to":
            H, W = sh[o["ins"][1]][1:]
        elif n == "crop":
            sides = []
            for (ks, s0), (kl, ln), S in ((o["operands"][0], o["operands"][2], H), (o["operands"][1], o["operands"][3], W)):
                s0 = 0 if ks else s0
                sides.append(min(g["scalars"][ln][1], S - s0) if kl else ln)
            H, W = sides
        elif n == "subpos_split":
            H, W = H // 2, W // 2
        elif n == "subpos_merge":
            H, W = 2 * H, 2 * W
        elif n == "gram":
            H, W = 1, C // o["groups"]
        elif n == "apply":
            H, W = sh[o["ins"][1]][1:]
        for t in o["outs"]:
            sh[t] = (Co, H, W)
    return sh


# ---------------------------------------------------------------------------------------------------------------
# The bounds pass (§8.1-§8.3)


class Node:
    """One operator's rules; every primitive result goes through sat(), which marks the node saturated."""

    def __init__(self):
        self.saturated = False
        self.inter = {}
        self.results = []

    def sat(self, v):
        if v > SAT or v < -SAT:
            self.saturated = True
            return SAT if v > 0 else -SAT
        return v

    def add(self, a, b):
        return self.sat(a + b)

    def mul(self, a, b):
        return self.sat(a * b)

    def fdiv(self, a, b):
        return self.sat(a // b)

    def mn(self, a, b):
        return self.sat(min(a, b))

    def mx(self, a, b):
        return self.sat(max(a, b))

    def neg(self, a):
        return self.sat(-a)

    def rnd(self, p, s, mode):
        if s == 0:
            return p
        if mode == 0:
            return self.fdiv(p, 1 << s)
        if mode == 1:
            return self.fdiv(self.add(p, 1 << (s - 1)), 1 << s)
        q = self.fdiv(p, 1 << s)
        r = self.sat(p - self.mul(q, 1 << s))
        h = 1 << (s - 1)
        return self.add(q, 1) if r > h or (r == h and q % 2 == 1) else q

    def record(self, key, iv):
        old = self.inter.get(key)
        self.inter[key] = iv if old is None else (min(old[0], iv[0]), max(old[1], iv[1]))

    def result(self, iv, k=0):
        while len(self.results) <= k:
            self.results.append(None)
        old = self.results[k]
        self.results[k] = iv if old is None else (min(old[0], iv[0]), max(old[1], iv[1]))

    def corner(self, x, y):
        c = [self.mul(a, b) for a in x for b in y]
        return (min(c), max(c))

    def term(self, w, x):
        a, b = self.mul(w, x[0]), self.mul(w, x[1])
        return (min(a, b), max(a, b))

    def partial(self, terms, b):
        """A(K, b) of §8.2, folded left from the bias with sat after each addition."""
        lo, hi = self.mn(0, b), self.mx(0, b)
        for t in terms:
            lo = self.add(lo, self.mn(0, t[0]))
            hi = self.add(hi, self.mx(0, t[1]))
        return (lo, hi)

    def rq(self, t, m, s, mode, post):
        P = (self.mn(self.mul(t[0], m), self.mul(t[1], m)), self.mx(self.mul(t[0], m), self.mul(t[1], m)))
        a = (1 << (s - 1)) if mode != 0 and s >= 1 else 0
        self.record("rq.p", (P[0], self.add(P[1], a)))
        q = (self.rnd(P[0], s, mode), self.rnd(P[1], s, mode))
        self.record("rq.q", q)
        y = (self.add(q[0], post), self.add(q[1], post))
        self.record("rq.y", y)
        return y

    def exp(self, u):
        self.record("exp.negx", u)
        self.record("exp.nl", (self.mul(45426, self.fdiv(u[0], 45426)), self.mul(45426, self.fdiv(u[1], 45426))))
        self.record("exp.t2", (self.mul(43245, 43245), self.mul(88670, 88670)))
        self.record("exp.c", (0, self.mul(23495, self.fdiv(self.mul(88670, 88670), 1 << 16))))


def rules(g, o, iv, shapes):
    """The producer results and intermediates of one operator (§8.3)."""
    nd = Node()
    name = o["name"]
    x = iv[o["ins"][0]]
    l, h = x
    C = g["tensors"][o["ins"][0]]["c"]

    def rq_rules(c, t):
        nd.record("rq.t", t)
        m, s, _, post = rq_channel(o["rq"], c)
        nd.result(nd.rq(t, m, s, o["rq"]["round"], post))

    if name == "conv":
        cg = C // o["groups"]
        taps = cg * o["kh"] * o["kw"]
        for oc in range(o["cout"]):
            terms = [nd.term(w, x) for w in o["w"][oc * taps:(oc + 1) * taps]]
            for t in terms:
                nd.record("conv.term", t)
            acc = nd.partial(terms, rq_channel(o["rq"], oc)[2])
            nd.record("conv.acc", acc)
            rq_rules(oc, acc)
    elif name == "conv_transpose":
        co, kh, kw, sh, sw = o["cout"], o["kh"], o["kw"], o["sh"], o["sw"]
        for oc in range(co):
            b = rq_channel(o["rq"], oc)[2]
            by_residue = {}
            for ci in range(C):
                for i in range(kh):
                    for j in range(kw):
                        t = nd.term(o["w"][((ci * co + oc) * kh + i) * kw + j], x)
                        nd.record("convT.term", t)
                        by_residue.setdefault((i % sh, j % sw), []).append(t)
            accs = [nd.partial(ts, b) for ts in by_residue.values()]
            if len(by_residue) < sh * sw:
                accs.append(nd.partial([], b))
            acc = (min(a[0] for a in accs), max(a[1] for a in accs))
            nd.record("convT.acc", acc)
            rq_rules(oc, acc)
    elif name == "rescale":
        for c in range(C):
            b = rq_channel(o["rq"], c)[2]
            rq_rules(c, (nd.add(l, b), nd.add(h, b)))
    elif name == "chscale":
        nd.record("rq.t", x)
        lo, hi = g["scalars"][o["scalar"]]
        for c in range(C):
            for row in range(lo, hi + 1):
                nd.result(nd.rq(x, o["M"][row * C + c], o["shift"], o["round"], 0))
    elif name == "mul":
        p = nd.corner(x, iv[o["ins"][1]])
        nd.record("mul.p", p)
        for c in range(C):
            rq_rules(c, p)
    elif name in ("gram", "apply"):
        term = nd.corner(x, iv[o["ins"][1]])
        nd.record(name + ".term", term)
        if name == "gram":
            L = max(shapes[t][1] * shapes[t][2] for t in o["ins"])
        else:
            L = C // o["groups"]
        acc = (nd.mul(L, nd.mn(0, term[0])), nd.mul(L, nd.mx(0, term[1])))
        nd.record(name + ".acc", acc)
        for c in range(C):
            rq_rules(c, acc)
    elif name == "add":
        y = iv[o["ins"][1]]
        nd.result((nd.add(l, y[0]), nd.add(h, y[1])))
    elif name == "chunk_add":
        nd.result((nd.mul(2, l), nd.mul(2, h)))
    elif name == "clamp":
        nd.result((nd.mn(nd.mx(l, o["lo"]), o["hi"]), nd.mn(nd.mx(h, o["lo"]), o["hi"])))
    elif name == "relu":
        nd.result((nd.mx(l, 0), nd.mx(h, 0)))
    elif name == "abs":
        nd.result(abs_iv(nd, x))
    elif name == "leaky":
        if l < 0:
            p = nd.corner((l, nd.mn(h, -1)), (o["a"], o["a"]))
            nd.record("leaky.p", p)
            nd.result((nd.fdiv(p[0], 1 << o["f"]), nd.fdiv(p[1], 1 << o["f"])))
        else:
            nd.record("leaky.p", (0, 0))
        if h >= 0:
            nd.result((nd.mx(l, 0), h))
    elif name == "lut16":
        if l < -32767 or h > 32767:
            raise Refused("lut16 input range")
        vals = o["T"][l + 32768:h + 32769]
        nd.result((min(vals), max(vals)))
    elif name == "igdn":
        l2, h2 = nd.mul(l, l), nd.mul(h, h)
        x2 = (0, nd.mx(l2, h2)) if l <= 0 <= h else (nd.mn(l2, h2), nd.mx(l2, h2))
        nd.record("igdn.x2", x2)
        kc_terms = []
        for i in range(C):
            terms = []
            for j in range(C):
                gx2 = nd.corner((o["gamma"][i * C + j],) * 2, x2)
                nd.record("igdn.gx2", gx2)
                t = (nd.fdiv(gx2[0], 1 << o["gf"]), nd.fdiv(gx2[1], 1 << o["gf"]))
                nd.record("igdn.term", t)
                terms.append(t)
            kc_terms += terms
            beta = o["beta"][i]
            nd.record("igdn.N", nd.partial(terms, beta))
            nf_lo = nf_hi = beta
            for t in terms:
                nf_lo, nf_hi = nd.add(nf_lo, t[0]), nd.add(nf_hi, t[1])
            r = (nd.sat(isqrt(nd.mx(0, nf_lo))), nd.sat(isqrt(nd.mx(0, nf_hi))))
            nd.record("igdn.r", r)
            xr = nd.corner(x, r)
            nd.record("igdn.xr", xr)
            nd.result((nd.fdiv(xr[0], 1 << o["frac"]), nd.fdiv(xr[1], 1 << o["frac"])))
    elif name == "layernorm_c":
        eps = o["eps"]
        r0 = isqrt(eps)
        d = nd.sat(h - l)
        half = nd.fdiv(C, 2)
        nd.record("ln.S", (nd.mul(C, nd.mn(0, l)), nd.mul(C, nd.mx(0, h))))
        nd.record("ln.m", (nd.sat(nd.mul(C, l) - half), nd.add(nd.mul(C, h), half)))
        nd.record("ln.d", (nd.sat(l - h), d))
        nd.record("ln.T", (0, nd.mul(nd.mul(C, d), d)))
        nd.record("ln.v", (eps, nd.add(nd.mul(d, d), eps)))
        nd.record("rsq.num", (1 << 32, 1 << 32))
        kmax = nd.fdiv(1 << 32, r0)
        nd.record("ln.k", (0, kmax))
        rc = isqrt(C)
        rc = nd.sat(rc if rc * rc == C else rc + 1)
        lemma = nd.neg(nd.fdiv(nd.neg(nd.mul(nd.mul(rc, 1 << 32), nd.add(r0, 1))), r0))
        D = nd.mn(nd.mul(d, kmax), lemma)
        nd.record("ln.dk", (nd.neg(D), D))
        n_max = nd.add(nd.fdiv(nd.mul(nd.mul(rc, 1 << 16), nd.add(r0, 1)), r0), 1)
        N = nd.mn(nd.add(nd.fdiv(nd.mul(d, kmax), 1 << 16), 1), n_max)
        nd.record("ln.n", (nd.neg(N), N))
        for c in range(C):
            ng = nd.corner((nd.neg(N), N), (o["gamma"][c],) * 2)
            nd.record("ln.ng", ng)
            nd.result((nd.add(nd.fdiv(ng[0], 1 << 16), o["beta"][c]), nd.add(nd.fdiv(ng[1], 1 << 16), o["beta"][c])))
    elif name == "l2norm":
        _, H, W = shapes[o["ins"][0]]
        L = nd.mul(H, W)
        X = nd.mx(abs_iv(nd, (l, l))[1], abs_iv(nd, (h, h))[1])
        nd.record("l2.T", (0, nd.add(nd.mul(nd.mul(L, X), X), o["eps"])))
        nd.record("rsq.num", (1 << 32, 1 << 32))
        nd.record("l2.k", (0, nd.fdiv(1 << 32, isqrt(o["eps"]))))
        nd.record("l2.vk", (-(1 << 32), 1 << 32))
        nd.result((-(1 << 16), 1 << 16))
    elif name == "softmax":
        w_max = shapes[o["ins"][0]][2]
        nd.record("sm.diff", (nd.sat(l - h), 0))
        nd.exp((0, nd.sat(h - l)))
        nd.record("sm.sum", (0, nd.mul(w_max, 65553)))
        nd.record("sm.num", (0, nd.add(nd.mul(65553, 1 << 16), nd.fdiv(nd.mul(w_max, 65553), 2))))
        nd.result((0, 1 << 16))
    elif name == "sigmoid":
        nd.exp(abs_iv(nd, x))
        nd.record("sig.num", (0, nd.mul(65553, 1 << 16)))
        nd.result((0, 1 << 16))
    elif name == "elu":
        nd.exp((nd.mx(0, nd.neg(h)), nd.mx(0, nd.neg(l))))
        p = nd.corner((o["alpha"],) * 2, (-(1 << 16), 17))
        nd.record("elu.p", p)
        if h > 0:
            nd.result((nd.mx(l, 1), h))
        if l <= 0:
            nd.result((nd.fdiv(p[0], 1 << 16), nd.fdiv(p[1], 1 << 16)))
    elif name in ("concat", "subpos_merge"):
        for t in o["ins"]:
            nd.result(iv[t])
    elif name == "subpos_split":
        for k in range(4):
            nd.result(x, k)
    elif name == "fill":
        v = o["value"]
        nd.result(g["scalars"][v] if o["kind"] else (v, v))
    else:
        nd.result(x)
    return nd


def abs_iv(nd, x):
    l, h = x
    if l >= 0:
        return x
    if h <= 0:
        return (nd.neg(h), nd.neg(l))
    return (0, nd.mx(nd.neg(l), h))


def acc32_params(g, o):
    out = []
    n = o["name"]
    if n in RQ_OPS:
        rq = o["rq"]
        if not all(fits32(m) for m in rq["mult"]):
            out.append("rq.mult")
        if any(s > 63 for s in rq["shift"]):
            out.append("rq.shift")
        if rq["place"] == 2 and not all(fits32(b) for b in rq["bias"]):
            out.append("rq.post_bias")
    if n in ("conv", "conv_transpose") and not all(fits32(w) for w in o["w"]):
        out.append("weights")
    if n == "chscale":
        if not all(fits32(m) for m in o["M"]):
            out.append("chscale.m")
        if o["shift"] > 63:
            out.append("chscale.s")
    if n == "igdn":
        if not all(fits32(v) for v in o["gamma"]):
            out.append("igdn.gamma")
        if o["gf"] > 63 or o["frac"] > 63:
            out.append("igdn.shift")
    if n == "leaky" and not fits32(o["a"]):
        out.append("leaky.a")
    return out


def npu_flags(g, o):
    n, f = o["name"], set()
    if n in ("lut16", "chscale"):
        f.add(n)
    if n in ("add", "chunk_add") and any(i["t"] in o["ins"] and i["kind"] == 1 for i in g["inputs"]):
        f.add("state_add")
    if n in RQ_OPS or n == "chscale":
        if n == "chscale":
            mode, mults, shifts, post = o["round"], o["M"], [o["shift"]], False
        else:
            rq = o["rq"]
            mode, mults, shifts, post = rq["round"], rq["mult"], rq["shift"], rq["place"] == 2
        if mode == 2:
            f.add("rq_half_even")
        if mode == 0 and mults:
            f.add("rq_floor_mult")
        if post:
            f.add("rq_post_bias")
        if any(m < 0 for m in mults):
            f.add("rq_neg_mult")
        if any(s > 31 for s in shifts):
            f.add("rq_shift_range")
    return sorted(f)


def iv_json(iv):
    return {"bits": bits(*iv), "hi": iv[1], "lo": iv[0]}


def canonical(obj):
    """§8.5: sorted keys, no whitespace, integers as decimal strings, no trailing newline."""
    def ints(o):
        if isinstance(o, bool) or o is None or isinstance(o, str):
            return o
        if isinstance(o, int):
            return str(o)
        if isinstance(o, list):
            return [ints(v) for v in o]
        return {k: ints(v) for k, v in o.items()}
    return json.dumps(ints(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def bounds_pass(g, shapes):
    """Every tensor's interval after its policy, and each operator's (rules, out members); Refused for step 8."""
    T = g["tensors"]
    iv = {i["t"]: (T[i["t"]]["lo"], T[i["t"]]["hi"]) for i in g["inputs"]}
    done = []
    for o in g["ops"]:
        nd = rules(g, o, iv, shapes)
        outs = []
        for i, t in enumerate(o["outs"]):
            a, b_ = nd.results[i]
            rec = T[t]
            if rec["policy"] == "clamp":
                tv = (min(max(a, rec["lo"]), rec["hi"]), min(max(b_, rec["lo"]), rec["hi"]))
            elif rec["policy"] == "check":
                tv = (max(a, rec["lo"]), min(b_, rec["hi"]))
                if tv[0] > tv[1]:
                    raise Refused("empty check interval")
            else:
                tv = (a, b_)
            iv[t] = tv
            outs.append(dict(iv_json(tv), policy=rec["policy"], result=iv_json((a, b_)), tensor=t))
        done.append((nd, outs))
    return iv, done


def printable(s):
    """§8.5: a role or capability outside printable ASCII cannot be certified."""
    if s is not None and not all(0x20 <= ord(c) <= 0x7E for c in s):
        raise ValueError(f"{s!r} is not printable ASCII")
    return s


def graph_member(b, name):
    """One graph of a certificate: its "graphs" member, its first failure per profile, NPU reasons and flags."""
    g = parse(b)
    T = g["tensors"]
    iv, done = bounds_pass(g, declared_shapes(g))
    nodes = []
    for k, (o, (nd, outs)) in enumerate(zip(g["ops"], done)):
        node = {"acc32_params": acc32_params(g, o), "index": k, "npu_flags": npu_flags(g, o), "op": o["name"],
                "intermediates": {key: iv_json(v) for key, v in nd.inter.items()}, "out": outs,
                "saturated": nd.saturated}
        term_key = {"conv": "conv.term", "conv_transpose": "convT.term", "igdn": "igdn.term",
                    "gram": "gram.term", "apply": "apply.term"}.get(o["name"])
        if term_key:
            lo, hi = nd.inter[term_key]
            P = max(-lo, hi)
            node["k_c"] = "unbounded" if P == 0 else ((1 << 31) - 1) // P
        if o["name"] in ("conv", "conv_transpose", "chscale", "mul", "gram", "apply"):
            node["mac"] = {"a_bits": [bits(*iv[t]) for t in o["ins"]]}
            w = o.get("w") or o.get("M")
            if o["name"] in ("conv", "conv_transpose", "chscale"):
                node["mac"]["w_bits"] = bits(min(w), max(w))
        fails = {}
        for p, prof in enumerate(("acc64", "acc32")):
            fails[prof] = node_failure(nd, node, T, o, p)
        node["fits"] = [p for p in ("acc32", "acc64") if fails[p] is None]
        nodes.append((node, fails))
    firsts = {}
    for p, prof in enumerate(("acc64", "acc32")):
        first = None
        for i, inp in enumerate(g["inputs"]):
            r = (T[inp["t"]]["lo"], T[inp["t"]]["hi"])
            if first is None and bits(*r) > WIDTH["tensor"][p]:
                first = {"bits": bits(*r), "graph": name, "index": i, "key": "range", "where": "input"}
        for i, (lo, hi) in enumerate(g["scalars"]):
            if first is None and bits(lo, hi) > WIDTH["tensor"][p]:
                first = {"bits": bits(lo, hi), "graph": name, "index": i, "key": "range", "where": "scalar"}
        for k, (node, fails) in enumerate(nodes):
            if first is None and fails[prof] is not None:
                key, b_ = fails[prof]
                first = {"graph": name, "index": k, "key": key, "where": "node"}
                if b_ is not None:
                    first["bits"] = b_
        firsts[prof] = first
    reasons = set()
    for o in g["ops"]:
        if o["name"] in NOT_NPU:
            reasons.add("op:" + o["name"])
        if o["name"] == "conv":
            cin = T[o["ins"][0]]["c"]
            if o["groups"] not in (1, cin) or (o["groups"] == cin > 1 and o["cout"] != cin):
                reasons.add("conv_groups")
        if o["name"] == "crop" and any(kind for kind, _ in o["operands"]):
            reasons.add("crop_scalar")
    flags = {f for node, _ in nodes for f in node["npu_flags"]}
    inputs = []
    for inp in g["inputs"]:
        t = T[inp["t"]]
        j = {"hi": t["hi"], "kind": "state" if inp["kind"] else "data", "lo": t["lo"], "max_h": inp["max_h"],
             "max_w": inp["max_w"], "policy": t["policy"], "tensor": inp["t"]}
        if inp["kind"]:
            j.update(init=inp["init"], src=inp["src"])
        inputs.append(j)
    graph = {"graph_sha256": hashlib.sha256(b).hexdigest(), "inputs": inputs, "name": name,
             "nodes": [n for n, _ in nodes],
             "scalars": [{"hi": hi, "index": i, "lo": lo} for i, (lo, hi) in enumerate(g["scalars"])]}
    return graph, firsts, reasons, flags


def set_certificate(members, capability=None, lowering="whg1", set_sha256=None):
    """The certificate bytes (str) and verdict of a set of graphs, [(role or None, WHG1 bytes)] in the order
    §8.5 gives (the lowering's roles, or file order for "whg1"); Refused when any graph is refused at step 8."""
    parts = [graph_member(b, printable(name)) for name, b in members]
    verdict = {}
    for prof in ("acc64", "acc32"):
        first = next((p[1][prof] for p in parts if p[1][prof] is not None), None)
        verdict[prof] = first is None
        if first is not None:
            verdict[prof + "_first_failure"] = first
    reasons = set().union(*(p[2] for p in parts)) | (set() if verdict["acc32"] else {"acc32"})
    verdict["npu_reasons"] = sorted(reasons)
    verdict["npu"] = not reasons
    verdict["npu_flags"] = sorted(set().union(*(p[3] for p in parts)))
    cert = {"capability": printable(capability), "certificate": "wai-ops/1 bounds", "graphs": [p[0] for p in parts],
            "lowering": printable(lowering), "set_sha256": set_sha256, "verdict": verdict}
    return canonical(cert), verdict


def certificate(b):
    """The certificate bytes (str) and verdict of one WHG1 graph certified on its own; Refused for step 8."""
    return set_certificate([(None, b)])


# ---------------------------------------------------------------------------------------------------------------
# Admissible ranges (§8.4)


def consumers_fit(g, shapes, iv, tensor, X, p):
    """C(X) of §8.4: with the tensor read as [-X, X] by its direct consumers, every value they class fits
    profile p's widths (0 acc64, 1 acc32) and none saturates. Parameter conditions and policies do not count."""
    seen = dict(iv)
    seen[tensor] = (-X, X)
    for o in g["ops"]:
        if tensor not in o["ins"]:
            continue
        try:
            nd = rules(g, o, seen, shapes)
        except Refused:  # lut16 cannot read an input past i16 (§5.6)
            return False
        if nd.saturated:
            return False
        if any(bits(*v) > WIDTH[CLASS[k]][p] for k, v in nd.inter.items()):
            return False
        if any(bits(*r) > WIDTH["tensor"][p] for r in nd.results):
            return False
    return True


def admissible_ranges(b):
    """{tensor: {"acc64": (lo, hi) or None, "acc32": ...}} for every tensor of a graph (§8.4): the largest X in
    [0, 2^63] with C(X), by binary search, as [-X, min(X, 2^63 - 1)]; None when C(0) fails."""
    g = parse(b)
    shapes = declared_shapes(g)
    iv, _ = bounds_pass(g, shapes)
    out = {}
    for t in range(len(g["tensors"])):
        out[t] = {}
        for p, prof in enumerate(("acc64", "acc32")):
            lo, hi = 0, 1 << 63
            if consumers_fit(g, shapes, iv, t, hi, p):
                lo = hi
            elif not consumers_fit(g, shapes, iv, t, 0, p):
                out[t][prof] = None
                continue
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if consumers_fit(g, shapes, iv, t, mid, p):
                    lo = mid
                else:
                    hi = mid
            out[t][prof] = (-lo, min(lo, (1 << 63) - 1))
    return out


def node_failure(nd, node, T, o, p):
    """(key, bits or None) of the node's failure under profile p (0 acc64, 1 acc32), or None if it fits."""
    if nd.saturated:
        return ("saturated", None)
    bad = [(bits(*v), k) for k, v in nd.inter.items() if bits(*v) > WIDTH[CLASS[k]][p]]
    bad += [(bits(*r), f"out.{i}") for i, r in enumerate(nd.results) if bits(*r) > WIDTH["tensor"][p]]
    if bad:
        b_, key = min(bad, key=lambda e: (-e[0], e[1]))
        return (key, b_)
    if p == 1:
        if node["acc32_params"]:
            return (node["acc32_params"][0], None)
        if any(T[t]["policy"] == "check" for t in o["outs"]):
            return ("policy.check", None)
    return None
