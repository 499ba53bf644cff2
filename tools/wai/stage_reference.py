"""Independent big-integer reference for the wai-ops/1 stage operators (§5E) and their vector files (§14.1).

Written from the text with Python's unbounded integers, sharing no code with src/wai/stage_*.cc. The operators
the text defines completely are here: E2 dequantize, E3 bucket, E4 coded, E5 scale_index, E6 block_stat,
E7 band_lookup, E8 mans_decode, E9 residual_step and E13 coding_order. tools/wai/reference.py imports this module
and writes the vectors to testdata/wai/stage/<operator>.jsonl.
"""

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class StageRefuse(Exception):
    def __init__(self, code, at):
        super().__init__(code)
        self.code, self.at = code, at


def condition(ok):
    """An operand, mode or table that breaks its operator's conditions: refused before anything is decoded."""
    if not ok:
        raise StageRefuse("model_mismatch", -1)


def r_half_up(p, s):
    return p if s == 0 else (p + 2 ** (s - 1)) // 2 ** s


def clamp(v, lo, hi):
    return min(max(v, lo), hi)


# ---------------------------------------------------------------------------------------------------------------
# E2-E7, E9, E13


def dequantize(sym, f, base):
    if not 0 <= f <= 62:
        raise StageRefuse("field_range", 0)
    value = sym * 2 ** f + base
    if not I64_MIN <= value <= I64_MAX:
        raise StageRefuse("field_range", 0)
    return value


def bucket(sigma, edges, rule):
    if rule == "ceil":
        condition(len(edges) >= 1)
        n = len(edges)
        s = max(sigma, edges[0])
        return (n - 1) - sum(1 for i in range(n - 1) if s <= edges[i])
    condition(len(edges) >= 1 and all(edges[i] <= edges[i + 1] for i in range(len(edges) - 1)))
    return sum(1 for e in edges if e <= sigma)


def scale_index(v, s, n):
    condition(0 <= s <= 127 and n >= 1)
    return clamp(r_half_up(v, s), 0, n - 1)


def block_stat(x, b, s, lo, hi):
    (C, H, W), data = x
    condition(C >= 1 and H >= 1 and W >= 1 and C * H * W <= 2 ** 26 and len(data) == C * H * W)
    condition(b >= 1 and 0 <= s <= 127 and lo <= hi)
    out = [None] * len(data)
    for c in range(C):
        for by in range(0, H, b):
            for bx in range(0, W, b):
                cells = [(c * H + y) * W + xx for y in range(by, min(by + b, H)) for xx in range(bx, min(bx + b, W))]
                v = clamp(r_half_up(sum(data[i] for i in cells), s), lo, hi)
                for i in cells:
                    out[i] = v
    return ((C, H, W), out)


def band_lookup(v, edges, table, row):
    condition(0 <= row < len(table) and all(len(r) == len(edges) + 1 for r in table))
    return table[row][sum(1 for e in edges if v >= e)]


def residual_step(pred, r, q, lo, hi):
    condition(lo < hi and lo <= pred <= hi and 1 <= q <= 65535 and I32_MIN <= r <= I32_MAX)
    return clamp(pred + r * q, lo, hi)


def residual_step_32(pred, r, q, lo, hi):
    """E9's 32-bit form, which the text proves equal to the step; the generator asserts the identity."""
    R = (hi - lo) // q + 1
    return clamp(pred + clamp(r, -R, R) * q, lo, hi)


def coding_order(shape, order, anchor):
    C, H, W = shape
    condition(C >= 1 and H >= 1 and W >= 1 and C * H * W <= 2 ** 26)
    raster = [((c * H + y) * W + x, y, x) for c in range(C) for y in range(H) for x in range(W)]
    if order == "raster":
        return [i for i, _, _ in raster]
    return [i for i, y, x in raster if ((y + x) % 2 == 0) == anchor]


# ---------------------------------------------------------------------------------------------------------------
# E8 mans_decode


def wrap16(a):
    return (a + 2 ** 15) % 2 ** 16 - 2 ** 15


class Window:
    """The backward 64-bit bit window; every refusal is stream_exhausted at self.at."""

    def __init__(self, stream):
        self.M = bytes(8) + bytes(stream)
        self.at = 0
        self.p = len(stream)
        self.h = self.le64(self.p)
        if self.h == 0:
            raise StageRefuse("stream_exhausted", 0)
        self.b = self.h.bit_length() - 1
        self.h -= 2 ** self.b
        self.s = [self.read(8), self.read(8)]
        self.flush()

    def le64(self, i):
        return int.from_bytes(self.M[i:i + 8], "little")

    def read(self, k):
        if k > self.b:
            raise StageRefuse("stream_exhausted", self.at)
        self.b -= k
        r = self.h // 2 ** self.b
        self.h -= r * 2 ** self.b
        return r

    def flush(self):
        d = 7 ^ (self.b // 8)
        if d > self.p:
            raise StageRefuse("stream_exhausted", self.at)
        self.p -= d
        self.h = self.le64(self.p) % 2 ** (56 + self.b % 8)
        self.b = 56 + self.b % 8

    def take(self, which, t):
        """The state update of an `in` step from table entry t."""
        self.s[which] = ((t // 2 ** 16) | self.read(t // 2 ** 24)) % 2 ** 8


def table_entry(nxt, sym):
    nb = 0
    while nxt * 2 ** nb < 256:
        nb += 1
    base = (nxt * 2 ** nb) ^ 256
    return nb * 2 ** 24 + base * 2 ** 16 + sym % 2 ** 16


def latent_table(P):
    C = [0]
    for p in P:
        C.append(C[-1] + p)
    F = [c - c // 2 for c in C]
    G = [c // 2 + 128 for c in C]
    T = [None] * 256
    k = 0
    while C[k] < 256:
        sym = k // 2 if k % 2 == 0 else -(k + 1) // 2
        for u in range(F[k], F[k + 1]):
            T[u] = table_entry(P[k] + (u - F[k]), sym)
        for u in range(G[k], G[k + 1]):
            T[u] = table_entry(P[k] + (F[k + 1] - F[k]) + (u - G[k]), sym)
        k += 1
    assert None not in T
    return T


def mans_sgm(memory, pmf, bounds, spans):
    w = len(pmf[0]) if pmf else 1
    condition(all(len(P) == w and w >= 1 and all(p >= 0 for p in P) and sum(P) == 256 for P in pmf))
    condition(all(0 <= b <= 255 for b in bounds))
    condition(all(len(s["mask"]) == len(s["sigma"]) and all(0 <= g < len(pmf) and g < len(bounds)
                                                               for g in s["sigma"]) for s in spans))
    T = [latent_table(P) for P in pmf]
    win = Window(memory)
    result, first = [], 0
    for span in spans:
        mask, sigma = span["mask"], span["sigma"]
        n = len(mask)
        sym = [0] * n

        def do_in(i, which):
            win.at = first + i
            if mask[i]:
                t = T[sigma[i]][win.s[which]]
                win.take(which, t)
                sym[i] = wrap16(t % 2 ** 16)

        def do_out(i):
            win.at = first + i
            if mask[i]:
                beta = bounds[sigma[i]]
                if sym[i] + beta == 0:
                    f = win.read(1)
                    v = win.read(3 if f == 1 else 16)
                    sym[i] = wrap16(v // 2 + beta) if v % 2 == 0 else wrap16(-(v // 2) - beta)
                    win.flush()

        i = 0
        while n - i >= 4:
            for j in range(4):
                do_in(i + j, j % 2)
            win.at = first + i + 3
            win.flush()
            for j in range(4):
                do_out(i + j)
            i += 4
        if n - i >= 2:
            do_in(i, 0)
            do_out(i)
            do_in(i + 1, 1)
            do_out(i + 1)
            win.at = first + i + 1
            win.flush()
            i += 2
        if n - i == 1:
            do_in(i, 0)
            do_out(i)
            win.at = first + i
            win.flush()
        result.append(sym)
        first += n
    return result


def zp_table():
    Zp = [None] * 512
    nb = 0
    for i in range(511, 0, -1):
        if i * 2 ** nb < 256:
            nb += 1
        Zp[i] = ((i * 2 ** nb) ^ 256) + 256 * nb
    return Zp


def mans_fac(memory, rows, lengths):
    condition(len(rows) == len(lengths) and all(n >= 0 for n in lengths))
    condition(all(len(c) == 63 and 0 <= c[0] and all(c[a] <= c[a + 1] for a in range(62)) and c[62] <= 255
                  for c in rows))
    Zp = zp_table()
    Tz = [0] * 256
    win = Window(memory)
    result, first = [], 0
    for counts, n in zip(rows, lengths):
        prev = 0
        for a in range(63):
            k = counts[a] - prev
            for j in range(prev, counts[a]):
                Tz[j] = Zp[k + j - prev] * 2 ** 16 + a
            prev = counts[a]
        Tz[255] = Zp[1] * 2 ** 16 + 63
        sym = [0] * n

        def do_in(i, which):
            win.at = first + i
            t = Tz[win.s[which]]
            win.take(which, t)
            sym[i] = t % 2 ** 8

        def do_out(i):
            win.at = first + i
            if sym[i] == 63:
                sym[i] = win.read(6)

        i = 0
        while n - i >= 4:
            for j in range(4):
                do_in(i + j, j % 2)
            for j in range(4):
                do_out(i + j)
            win.at = first + i + 3
            win.flush()
            i += 4
        if n - i >= 2:
            do_in(i, 0)
            do_out(i)
            do_in(i + 1, 1)
            do_out(i + 1)
            i += 2
        if n - i == 1:
            do_in(i, 0)
            do_out(i)
        if n:
            win.at = first + n - 1
        win.flush()
        result.append(sym)
        first += n
    return result


def mans_decode(inp):
    if inp["mode"] == "sgm":
        return mans_sgm(bytes.fromhex(inp["memory"]), inp["pmf"], inp["bounds"], inp["spans"])
    condition(inp["mode"] == "fac")
    return mans_fac(bytes.fromhex(inp["memory"]), inp["rows"], inp["lengths"])


# ---------------------------------------------------------------------------------------------------------------
# Vectors


def evaluate(op, inp, modes):
    """The `expect` member of a stage vector."""
    try:
        if op == "dequantize":
            return {"value": dequantize(inp["sym"], inp["f"], inp["base"])}
        if op == "bucket":
            return {"index": bucket(inp["sigma"], inp["edges"], modes["bucket"])}
        if op == "coded":
            return {"coded": inp["v"] > inp["thr"]}
        if op == "scale_index":
            return {"index": scale_index(inp["v"], inp["s"], inp["n"])}
        if op == "block_stat":
            shape, data = block_stat((tuple(inp["x"]["shape"]), inp["x"]["data"]), inp["b"], inp["s"], inp["lo"],
                                     inp["hi"])
            return {"out": {"data": data, "shape": list(shape)}}
        if op == "band_lookup":
            return {"value": band_lookup(inp["v"], inp["edges"], inp["table"], inp["row"])}
        if op == "mans_decode":
            return {"symbols": mans_decode(inp)}
        if op == "residual_step":
            value = residual_step(inp["pred"], inp["r"], inp["q"], inp["lo"], inp["hi"])
            assert value == residual_step_32(inp["pred"], inp["r"], inp["q"], inp["lo"], inp["hi"])
            return {"value": value}
        if op == "coding_order":
            return {"indices": coding_order(inp["shape"], inp["order"], inp["anchor"])}
    except StageRefuse as r:
        return {"at": r.at, "refuse": r.code}
    raise ValueError(op)


def stage_vector(vid, op, inp, modes=None):
    modes = modes or {}
    return {"expect": evaluate(op, inp, modes), "id": vid, "in": inp, "modes": modes, "op": op}


def gen_small(rng):
    out = []
    v = stage_vector
    # E2: shifts at the ends, a value at each end of i64 and one past.
    for k, (sym, f, base) in enumerate([(3, 0, -7), (-5, 62, 0), (1, 62, 2 ** 62 - 1), (1, 62, 2 ** 62),
                                        (-2, 62, 0), (-2, 62, -1), (7, 63, 0), (0, -1, 0), (0, 62, I64_MAX),
                                        (rng.randint(-1000, 1000), rng.randint(0, 40), rng.randint(-10 ** 9, 10 ** 9))]):
        out.append(v(f"dequantize-{k}", "dequantize", {"base": base, "f": f, "sym": sym}))
    # E3: exactly at an edge, between, below, above, and the conditions of floor.
    edges = [-10, 0, 0, 25, 100]
    for rule in ("ceil", "floor"):
        for sigma in (-11, -10, -9, 0, 1, 25, 26, 100, 101):
            out.append(v(f"bucket-{rule}-{sigma}", "bucket", {"edges": edges, "sigma": sigma}, {"bucket": rule}))
        out.append(v(f"bucket-{rule}-one-edge", "bucket", {"edges": [5], "sigma": 5}, {"bucket": rule}))
        out.append(v(f"bucket-{rule}-no-edges", "bucket", {"edges": [], "sigma": 5}, {"bucket": rule}))
    out.append(v("bucket-ceil-unsorted", "bucket", {"edges": [9, 3, 7, 1], "sigma": 4}, {"bucket": "ceil"}))
    out.append(v("bucket-floor-unsorted", "bucket", {"edges": [9, 3, 7, 1], "sigma": 4}, {"bucket": "floor"}))
    # E4
    for a, b in ((383, 382), (382, 382), (-5, -6), (I64_MIN, I64_MAX)):
        out.append(v(f"coded-{a}-{b}", "coded", {"thr": b, "v": a}))
    # E5: ties of both signs, the clamp at both ends, every shift class, the conditions.
    for k, (x, s, n) in enumerate([(64, 7, 32), (63, 7, 32), (-64, 7, 32), (-65, 7, 32), (4095, 7, 32),
                                   (3 * 128 + 64, 7, 32), (5, 0, 32), (I64_MAX, 127, 5), (I64_MIN, 127, 5),
                                   (I64_MAX, 63, 5), (2 ** 62, 63, 5), (9, 1, 1), (0, 128, 4), (0, 3, 0)]):
        out.append(v(f"scale_index-{k}", "scale_index", {"n": n, "s": s, "v": x}))
    # E6: partial blocks, the clamp at both ends, one-element planes, the conditions.
    for k, (shape, b, s, lo, hi) in enumerate([((2, 5, 7), 2, 2, -100, 100), ((1, 9, 9), 8, 6, 0, 4351),
                                                ((3, 1, 1), 4, 0, -5, 5), ((1, 4, 4), 4, 4, -2, 2),
                                                ((2, 3, 3), 1, 1, -1000, 1000), ((1, 2, 2), 0, 0, 0, 1),
                                                ((1, 2, 2), 1, 0, 1, 0)]):
        n = shape[0] * shape[1] * shape[2]
        x = {"data": [rng.randint(-300, 300) for _ in range(n)], "shape": list(shape)}
        out.append(v(f"block_stat-{k}", "block_stat", {"b": b, "hi": hi, "lo": lo, "s": s, "x": x}))
    out.append(v("block_stat-i64-sum", "block_stat",
                 {"b": 2, "hi": I64_MAX, "lo": I64_MIN, "s": 2, "x": {"data": [I64_MAX] * 4, "shape": [1, 2, 2]}}))
    # E7: at each edge of the jpegai table, and the conditions.
    table = [[-31, 20, 122, 181], [-80, -31, 71, 130]]
    for row in (0, 1):
        for x in (1002, 1003, 1351, 1352, 1937, 5000, -5):
            out.append(v(f"band_lookup-{row}-{x}", "band_lookup",
                         {"edges": [1003, 1352, 1937], "row": row, "table": table, "v": x}))
    out.append(v("band_lookup-row-past", "band_lookup", {"edges": [1], "row": 2, "table": [[1, 2], [3, 4]], "v": 0}))
    out.append(v("band_lookup-short-row", "band_lookup", {"edges": [1], "row": 0, "table": [[1, 2], [3]], "v": 0}))
    # E9: r at +-R and +-(R + 1), the i32 limits, the conditions.
    cases = []
    for lo, hi, q in ((0, 255, 7), (-32768, 32767, 65535), (-32768, 32767, 1), (2 ** 31 - 65536, 2 ** 31 - 1, 65535)):
        R = (hi - lo) // q + 1
        for r in (R, -R, R + 1, -(R + 1), 0, 2, I32_MAX, I32_MIN):
            cases.append((rng.randint(lo, hi), r, q, lo, hi))
        cases.append((hi, 2, q, lo, hi))
    cases += [(0, 1, 1, 5, 5), (6, 1, 1, 0, 5), (0, 1, 0, 0, 5), (0, 1, 65536, 0, 5), (0, I32_MAX + 1, 1, 0, 5)]
    for k, (pred, r, q, lo, hi) in enumerate(cases):
        out.append(v(f"residual_step-{k}", "residual_step", {"hi": hi, "lo": lo, "pred": pred, "q": q, "r": r}))
    # E13
    for shape in ((1, 1, 1), (2, 3, 5), (1, 4, 4), (3, 2, 1)):
        tag = "x".join(map(str, shape))
        out.append(v(f"coding_order-raster-{tag}", "coding_order", {"anchor": False, "order": "raster", "shape": list(shape)}))
        for anchor in (True, False):
            out.append(v(f"coding_order-checkerboard-{anchor}-{tag}", "coding_order",
                         {"anchor": anchor, "order": "checkerboard", "shape": list(shape)}))
    out.append(v("coding_order-empty", "coding_order", {"anchor": True, "order": "raster", "shape": [1, 0, 3]}))
    return out


def random_pmf(rng, width, heavy=()):
    """A row of `width` non-negative entries summing to 256; `heavy` columns get most of the mass."""
    P = [0] * width
    for _ in range(256):
        k = rng.choice(heavy) if heavy and rng.random() < 0.6 else rng.randrange(width)
        P[k] += 1
    return P


def random_counts(rng):
    return sorted(rng.randint(0, 255) for _ in range(63))


def gen_mans(rng):
    out = []
    v = stage_vector
    # sgm: a small alphabet, bound 0 (every zero escapes), and bounds 128 and 255 with their escape columns.
    # Column 2b - 1 holds symbol -b, which escapes under bound b.
    pmf = [random_pmf(rng, 510, heavy=(0,)), random_pmf(rng, 510, heavy=(255,)), random_pmf(rng, 510, heavy=(509,))]
    bounds = [0, 128, 255]
    # Most vectors use narrow rows (bounds 0, 1 and 2 escape at columns 0, 1 and 3), to keep the file small.
    narrow = [random_pmf(rng, 8, heavy=(0,)), random_pmf(rng, 8, heavy=(1,)), random_pmf(rng, 8, heavy=(3,))]
    for k in range(20):
        long = k >= 14  # longer spans over short memory: the window runs out partway
        spans = []
        for _ in range(rng.randint(1, 3)):
            n = rng.randint(8, 40) if long else rng.randint(0, 11)
            spans.append({"mask": [rng.random() < 0.8 for _ in range(n)], "sigma": [rng.randrange(3) for _ in range(n)]})
        memory = bytes(rng.randrange(256) for _ in range(rng.choice((12, 24, 40) if long else (16, 40, 96, 200))))
        wide = k % 3 == 0
        out.append(v(f"mans_decode-sgm-{k}", "mans_decode",
                     {"bounds": bounds if wide else [0, 1, 2], "memory": memory.hex(), "mode": "sgm",
                      "pmf": pmf if wide else narrow, "spans": spans}))
    small = [[64, 64, 64, 64], [256, 0, 0, 0]]
    one = [{"mask": [True] * 6, "sigma": [0, 1, 0, 1, 0, 0]}]
    out.append(v("mans_decode-sgm-zero-tail", "mans_decode",
                 {"bounds": [5, 5], "memory": "ff" + "00" * 8, "mode": "sgm", "pmf": small, "spans": one}))
    out.append(v("mans_decode-sgm-short", "mans_decode",
                 {"bounds": [5, 5], "memory": "80", "mode": "sgm", "pmf": small, "spans": one}))
    out.append(v("mans_decode-sgm-empty", "mans_decode",
                 {"bounds": [5, 5], "memory": "", "mode": "sgm", "pmf": small, "spans": one}))
    for k, (p, b, s) in enumerate([([[64, 64, 64, 63]], [1], one), ([[256, 0, 0]], [256], one),
                                   ([[256, 0], [128, 128, 0]], [1, 1], one), (small, [1], one),
                                   (small, [1, 1], [{"mask": [True], "sigma": [2]}]),
                                   (small, [1, 1], [{"mask": [True, False], "sigma": [0]}])]):
        out.append(v(f"mans_decode-sgm-condition-{k}", "mans_decode",
                     {"bounds": b, "memory": "ffffffffffffffff", "mode": "sgm", "pmf": p, "spans": s}))
    # fac: rows whose table leaves slot 255 (the escape) and others reachable, carried across rows.
    for k in range(20):
        long = k >= 14
        n_rows = rng.randint(1, 3)
        rows = [random_counts(rng) for _ in range(n_rows)]
        lengths = [rng.randint(8, 40) if long else rng.randint(0, 13) for _ in range(n_rows)]
        memory = bytes(rng.randrange(256) for _ in range(rng.choice((12, 24, 40) if long else (16, 40, 96, 200))))
        out.append(v(f"mans_decode-fac-{k}", "mans_decode",
                     {"lengths": lengths, "memory": memory.hex(), "mode": "fac", "rows": rows}))
    good = random_counts(rng)
    out.append(v("mans_decode-fac-zero-tail", "mans_decode",
                 {"lengths": [4], "memory": "01" + "00" * 8, "mode": "fac", "rows": [good]}))
    out.append(v("mans_decode-fac-short", "mans_decode",
                 {"lengths": [9], "memory": "ffff", "mode": "fac", "rows": [good]}))
    bad = list(good)
    bad[10], bad[11] = 200, 100
    for k, (rows, lengths) in enumerate([([good[:62]], [1]), ([bad], [1]), ([good[:62] + [256]], [1]),
                                         ([good], [1, 2]), ([good], [-1])]):
        out.append(v(f"mans_decode-fac-condition-{k}", "mans_decode",
                     {"lengths": lengths, "memory": "ffffffffffffffff", "mode": "fac", "rows": rows}))
    return out


def generate(rng_for):
    """Every stage vector, grouped by operator: {op: [vector, ...]}."""
    files = {}
    for name, gen in (("small", gen_small), ("mans", gen_mans)):
        for vec in gen(rng_for(name)):
            files.setdefault(vec["op"], []).append(vec)
    return files
