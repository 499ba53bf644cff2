// The exact arithmetic of every graph operator of wai-ops/1 §5, as direct loops over 128-bit values. This is
// the acc64 reference path: correct for every graph, not fast (an acc32 fast path comes later).
#include "wai/eval.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "wai/arith.h"

namespace onemodel::wai {

IntermediateObserver::~IntermediateObserver() = default;

namespace {

// The debug observer of the eval_node call running on this thread (null outside debug mode).
thread_local IntermediateObserver* t_observer = nullptr;

void seen(const char* key, i128 value) {
  note(t_observer, key, value);
}

// Element (c, y, x) of a CHW tensor.
struct View {
  const IntTensor& t;
  int64_t H() const { return t.shape[1]; }
  int64_t W() const { return t.shape[2]; }
  int64_t operator()(int64_t c, int64_t y, int64_t x) const {
    return t.data[size_t((c * H() + y) * W() + x)];
  }
};
struct MutView {
  IntTensor& t;
  int64_t& operator()(int64_t c, int64_t y, int64_t x) {
    return t.data[size_t((c * t.shape[1] + y) * t.shape[2] + x)];
  }
};

// rq_o(v) of §5.1.
int64_t rq(const Rq& q, size_t o, i128 v) {
  const i128 t = add(v, q.pre_at(o));
  seen("rq.t", t);
  const i128 p = mul(t, q.mult_at(o));
  seen("rq.p", p);
  const int s = q.shift_at(o);
  if (t_observer && q.round != Round::Floor && s >= 1) seen("rq.p", add(p, i128(1) << (s - 1)));
  const i128 r = round_shift(p, s, q.round);
  seen("rq.q", r);
  const i128 y = add(r, q.post_at(o));
  seen("rq.y", y);
  return to_tensor(y);
}

void conv(const Node& n, const IntTensor& x, IntTensor& y) {
  const View in{x};
  MutView out{y};
  const int64_t cin = x.shape[0], cg = cin / n.groups, og = n.cout / n.groups;
  for (int64_t o = 0; o < n.cout; ++o) {
    const int64_t g = o / og;
    for (int64_t oy = 0; oy < y.shape[1]; ++oy)
      for (int64_t ox = 0; ox < y.shape[2]; ++ox) {
        i128 acc = 0;
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t i = 0; i < n.kh; ++i) {
            const int64_t iy = oy * n.sh + i - n.ph;
            if (iy < 0 || iy >= in.H()) continue;
            for (int64_t j = 0; j < n.kw; ++j) {
              const int64_t ix = ox * n.sw + j - n.pw;
              if (ix < 0 || ix >= in.W()) continue;
              const int64_t w = n.weights[size_t(((o * cg + ci) * n.kh + i) * n.kw + j)];
              seen("conv.term", i128(w) * in(g * cg + ci, iy, ix));
              acc = add(acc, i128(w) * in(g * cg + ci, iy, ix));
              seen("conv.acc", acc);
            }
          }
        out(o, oy, ox) = rq(n.rq, size_t(o), acc);
      }
  }
}

// The taps of conv_transpose that reach output coordinate p along one axis (§5.3): each kernel index k with
// t = p + pad - k >= 0, t mod stride = 0 and t / stride < size, as (k, t / stride).
std::vector<std::pair<int64_t, int64_t>> transposed_taps(int64_t p, int64_t pad, int64_t kernel,
                                                         int64_t stride, int64_t size) {
  std::vector<std::pair<int64_t, int64_t>> taps;
  for (int64_t k = 0; k < kernel; ++k) {
    const int64_t t = p + pad - k;
    if (t >= 0 && t % stride == 0 && t / stride < size) taps.push_back({k, t / stride});
  }
  return taps;
}

void conv_transpose(const Node& n, const IntTensor& x, IntTensor& y) {
  const View in{x};
  MutView out{y};
  const int64_t cin = x.shape[0];
  // The taps of every output column, found once; a row or column no tap reaches costs nothing per channel
  // (large output paddings make many).
  std::vector<std::vector<std::pair<int64_t, int64_t>>> col_taps(size_t(y.shape[2]));
  for (int64_t ox = 0; ox < y.shape[2]; ++ox)
    col_taps[size_t(ox)] = transposed_taps(ox, n.pw, n.kw, n.sw, in.W());
  for (int64_t oy = 0; oy < y.shape[1]; ++oy) {
    const auto row_taps = transposed_taps(oy, n.ph, n.kh, n.sh, in.H());
    for (int64_t o = 0; o < n.cout; ++o)
      for (int64_t ox = 0; ox < y.shape[2]; ++ox) {
        i128 acc = 0;
        for (int64_t ci = 0; ci < cin; ++ci)
          for (const auto& [i, iy] : row_taps)
            for (const auto& [j, ix] : col_taps[size_t(ox)]) {
              const int64_t w = n.weights[size_t(((ci * n.cout + o) * n.kh + i) * n.kw + j)];
              seen("convT.term", i128(w) * in(ci, iy, ix));
              acc = add(acc, i128(w) * in(ci, iy, ix));
              seen("convT.acc", acc);
            }
        out(o, oy, ox) = rq(n.rq, size_t(o), acc);
      }
  }
}

// Applies f(c, v) to every element, channel by channel.
template <typename F>
void map(const IntTensor& x, IntTensor& y, F f) {
  const size_t plane = size_t(x.shape[1] * x.shape[2]);
  for (size_t i = 0; i < x.data.size(); ++i) y.data[i] = f(i / plane, x.data[i]);
}

void igdn(const Node& n, const IntTensor& x, IntTensor& y) {
  const size_t C = size_t(x.shape[0]), plane = size_t(x.shape[1] * x.shape[2]);
  std::vector<i128> sq(C);
  for (size_t p = 0; p < plane; ++p) {
    for (size_t j = 0; j < C; ++j) {
      sq[j] = i128(x.data[j * plane + p]) * x.data[j * plane + p];
      seen("igdn.x2", sq[j]);
    }
    for (size_t i = 0; i < C; ++i) {
      i128 N = n.beta[i];
      seen("igdn.N", N);
      for (size_t j = 0; j < C; ++j) {
        const i128 gx2 = mul(n.gamma[i * C + j], sq[j]);
        seen("igdn.gx2", gx2);
        seen("igdn.term", floor_shift(gx2, int(n.gf)));
        N = add(N, floor_shift(gx2, int(n.gf)));
        seen("igdn.N", N);
      }
      const i128 r = i128(isqrt(u128(std::max<i128>(N, 0))));
      seen("igdn.r", r);
      seen("igdn.xr", mul(x.data[i * plane + p], r));
      y.data[i * plane + p] = to_tensor(floor_shift(mul(x.data[i * plane + p], r), int(n.frac)));
    }
  }
}

void layernorm_c(const Node& n, const IntTensor& x, IntTensor& y) {
  const int64_t C = x.shape[0];
  const size_t plane = size_t(x.shape[1] * x.shape[2]);
  std::vector<i128> d(static_cast<size_t>(C));
  for (size_t p = 0; p < plane; ++p) {
    i128 S = 0;
    for (int64_t c = 0; c < C; ++c) {
      S = add(S, x.data[size_t(c) * plane + p]);
      seen("ln.S", S);
    }
    const i128 M = add(S, i128(C / 2) * (S > 0 ? 1 : S < 0 ? -1 : 0));
    seen("ln.m", M);
    const i128 mean = M / C;  // C++ division truncates, as trunc(M / C) asks
    i128 T = 0;
    for (int64_t c = 0; c < C; ++c) {
      d[size_t(c)] = sub(x.data[size_t(c) * plane + p], mean);
      seen("ln.d", d[size_t(c)]);
      T = add(T, mul(d[size_t(c)], d[size_t(c)]));
      seen("ln.T", T);
    }
    const i128 U = add(T / C, i128(n.eps));
    seen("ln.v", U);
    seen("rsq.num", i128(1) << 32);
    const i128 k = rsqrt_q16(u128(U));
    seen("ln.k", k);
    for (int64_t c = 0; c < C; ++c) {
      seen("ln.dk", mul(d[size_t(c)], k));
      const i128 nc = floor_shift(mul(d[size_t(c)], k), 16);
      seen("ln.n", nc);
      seen("ln.ng", mul(nc, n.gamma[size_t(c)]));
      y.data[size_t(c) * plane + p] =
          to_tensor(add(floor_shift(mul(nc, n.gamma[size_t(c)]), 16), n.beta[size_t(c)]));
    }
  }
}

void l2norm(const Node& n, const IntTensor& x, IntTensor& y) {
  const size_t plane = size_t(x.shape[1] * x.shape[2]);
  for (size_t c = 0; c < size_t(x.shape[0]); ++c) {
    const int64_t* v = x.data.data() + c * plane;
    i128 T = n.eps;
    for (size_t p = 0; p < plane; ++p) {
      T = add(T, i128(v[p]) * v[p]);
      seen("l2.T", T);
    }
    seen("rsq.num", i128(1) << 32);
    const i128 k = rsqrt_q16(u128(T));
    seen("l2.k", k);
    for (size_t p = 0; p < plane; ++p) {
      seen("l2.vk", mul(v[p], k));
      y.data[c * plane + p] = to_tensor(floor_shift(mul(v[p], k), 16));
    }
  }
}

void softmax(const IntTensor& x, IntTensor& y) {
  const size_t W = size_t(x.shape[2]);
  std::vector<i128> e(W);
  for (size_t row = 0; row < x.data.size() / W; ++row) {
    const int64_t* v = x.data.data() + row * W;
    const int64_t m = *std::max_element(v, v + W);
    i128 sum = 0;
    for (size_t i = 0; i < W; ++i) {
      seen("sm.diff", i128(v[i]) - m);
      sum = add(sum, e[i] = exp_neg_q16(i128(v[i]) - m, t_observer));
      seen("sm.sum", sum);
    }
    for (size_t i = 0; i < W; ++i) {
      seen("sm.num", e[i] * 65536 + sum / 2);
      y.data[row * W + i] = to_tensor((e[i] * 65536 + sum / 2) / sum);
    }
  }
}

int64_t sigmoid(int64_t v) {
  if (v >= 0) {
    seen("sig.num", i128(1) << 32);
    return int64_t((i128(1) << 32) / (65536 + exp_neg_q16(-i128(v), t_observer)));
  }
  const i128 e = exp_neg_q16(v, t_observer);
  seen("sig.num", e * 65536);
  return int64_t(e * 65536 / (65536 + e));
}

int64_t elu(int64_t alpha, int64_t v) {
  if (v > 0) return v;
  const i128 p = mul(alpha, exp_neg_q16(v, t_observer) - 65536);
  seen("elu.p", p);
  return to_tensor(floor_shift(p, 16));
}

// gram and apply share one loop shape: out = R(sum over `len` of a(i, k) * b(j, k), s).
void gram(const Node& n, const IntTensor& a, const IntTensor& b, IntTensor& y) {
  const int64_t C = a.shape[0], d = C / n.groups, plane = a.shape[1] * a.shape[2];
  for (int64_t g = 0; g < n.groups; ++g)
    for (int64_t i = 0; i < d; ++i)
      for (int64_t j = 0; j < d; ++j) {
        const int64_t* pa = a.data.data() + (g * d + i) * plane;
        const int64_t* pb = b.data.data() + (g * d + j) * plane;
        i128 acc = 0;
        for (int64_t p = 0; p < plane; ++p) {
          seen("gram.term", i128(pa[p]) * pb[p]);
          acc = add(acc, i128(pa[p]) * pb[p]);
          seen("gram.acc", acc);
        }
        y.data[size_t((g * d + i) * d + j)] = rq(n.rq, size_t(g * d + i), acc);
      }
}

void apply(const Node& n, const IntTensor& a, const IntTensor& v, IntTensor& y) {
  const int64_t C = a.shape[0], d = C / n.groups, plane = v.shape[1] * v.shape[2];
  for (int64_t g = 0; g < n.groups; ++g)
    for (int64_t i = 0; i < d; ++i)
      for (int64_t p = 0; p < plane; ++p) {
        i128 acc = 0;
        for (int64_t j = 0; j < d; ++j) {
          const i128 term =
              i128(a.data[size_t((g * d + i) * d + j)]) * v.data[size_t((g * d + j) * plane + p)];
          seen("apply.term", term);
          acc = add(acc, term);
          seen("apply.acc", acc);
        }
        y.data[size_t((g * d + i) * plane + p)] = rq(n.rq, size_t(g * d + i), acc);
      }
}

int64_t operand(const Operand& o, std::span<const int64_t> scalars) {
  return o.is_scalar ? scalars[size_t(o.value)] : o.value;
}

}  // namespace

void eval_node(const Node& n, std::span<const IntTensor* const> in, std::span<IntTensor* const> out,
               std::span<const int64_t> scalars, IntermediateObserver* observer) {
  struct Scope {
    explicit Scope(IntermediateObserver* o) { t_observer = o; }
    ~Scope() { t_observer = nullptr; }
  } scope(observer);
  const IntTensor& x = *in[0];
  IntTensor& y = *out[0];
  const View vx{x};
  MutView vy{y};
  const int64_t C = y.shape[0], H = y.shape[1], W = y.shape[2];
  switch (n.op) {
    case Op::Conv:
      return conv(n, x, y);
    case Op::ConvTranspose:
      return conv_transpose(n, x, y);
    case Op::Rescale:
      return map(x, y, [&](size_t c, int64_t v) { return rq(n.rq, c, v); });
    case Op::Chscale: {
      const size_t row = size_t(scalars[n.scalar]), cin = size_t(x.shape[0]);
      return map(x, y, [&](size_t c, int64_t v) {
        const i128 p = i128(v) * n.table_m[row * cin + c];
        const int s = n.rq.shift[0];
        seen("rq.t", v);
        seen("rq.p", p);
        if (t_observer && n.rq.round != Round::Floor && s >= 1) seen("rq.p", add(p, i128(1) << (s - 1)));
        const i128 q = round_shift(p, s, n.rq.round);
        seen("rq.q", q);
        seen("rq.y", q);
        return to_tensor(q);
      });
    }
    case Op::Mul: {
      const IntTensor& b = *in[1];
      const size_t plane = size_t(H * W);
      for (size_t i = 0; i < y.data.size(); ++i) {
        const size_t c = i / plane, cb = b.shape[0] == 1 ? 0 : c;
        seen("mul.p", i128(x.data[i]) * b.data[cb * plane + i % plane]);
        y.data[i] = rq(n.rq, c, i128(x.data[i]) * b.data[cb * plane + i % plane]);
      }
      return;
    }
    case Op::Lut16:
      return map(x, y, [&](size_t, int64_t v) {
        if (v < -32768 || v > 32767) throw WidthOverflow{};
        return int64_t(n.lut[size_t(v + 32768)]);
      });
    case Op::Add:
      for (size_t i = 0; i < y.data.size(); ++i) y.data[i] = to_tensor(i128(x.data[i]) + in[1]->data[i]);
      return;
    case Op::ChunkAdd: {
      const size_t half = y.data.size();
      for (size_t i = 0; i < half; ++i) y.data[i] = to_tensor(i128(x.data[i]) + x.data[i + half]);
      return;
    }
    case Op::Clamp:
      return map(x, y, [&](size_t, int64_t v) { return std::clamp(v, n.lo, n.hi); });
    case Op::Relu:
      return map(x, y, [](size_t, int64_t v) { return std::max<int64_t>(v, 0); });
    case Op::Leaky:
      return map(x, y, [&](size_t, int64_t v) {
        if (v >= 0) return v;
        seen("leaky.p", i128(v) * n.a);
        return to_tensor(floor_shift(i128(v) * n.a, int(n.f)));
      });
    case Op::Abs:
      return map(x, y, [](size_t, int64_t v) { return to_tensor(v < 0 ? -i128(v) : i128(v)); });
    case Op::Igdn:
      return igdn(n, x, y);
    case Op::LayernormC:
      return layernorm_c(n, x, y);
    case Op::L2norm:
      return l2norm(n, x, y);
    case Op::Softmax:
      return softmax(x, y);
    case Op::Sigmoid:
      return map(x, y, [](size_t, int64_t v) { return sigmoid(v); });
    case Op::Elu:
      return map(x, y, [&](size_t, int64_t v) { return elu(n.a, v); });
    case Op::Gram:
      return gram(n, x, *in[1], y);
    case Op::Apply:
      return apply(n, x, *in[1], y);
    case Op::Concat: {
      size_t at = 0;
      for (const IntTensor* t : in) {
        std::copy(t->data.begin(), t->data.end(), y.data.begin() + ptrdiff_t(at));
        at += t->data.size();
      }
      return;
    }
    case Op::Split: {
      const size_t plane = size_t(H * W);
      std::copy_n(x.data.begin() + ptrdiff_t(n.start * plane), y.data.size(), y.data.begin());
      return;
    }
    case Op::PixelShuffle: {
      const int64_t r = n.factor;
      for (int64_t c = 0; c < C; ++c)
        for (int64_t h = 0; h < x.shape[1]; ++h)
          for (int64_t w = 0; w < x.shape[2]; ++w)
            for (int64_t i = 0; i < r; ++i)
              for (int64_t j = 0; j < r; ++j) vy(c, h * r + i, w * r + j) = vx(c * r * r + i * r + j, h, w);
      return;
    }
    case Op::PixelUnshuffle: {
      const int64_t r = n.factor;
      for (int64_t c = 0; c < x.shape[0]; ++c)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w)
            for (int64_t i = 0; i < r; ++i)
              for (int64_t j = 0; j < r; ++j) vy(c * r * r + i * r + j, h, w) = vx(c, h * r + i, w * r + j);
      return;
    }
    case Op::PadRep:
    case Op::CropTo:
    case Op::Crop: {
      const int64_t y0 = n.op == Op::Crop ? operand(n.crop[0], scalars) : 0;
      const int64_t x0 = n.op == Op::Crop ? operand(n.crop[1], scalars) : 0;
      for (int64_t c = 0; c < C; ++c)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w)
            vy(c, h, w) = vx(c, std::min(y0 + h, vx.H() - 1), std::min(x0 + w, vx.W() - 1));
      return;
    }
    case Op::SubposSplit:
      for (size_t k = 0; k < 4; ++k) {
        MutView o{*out[k]};
        const int a = n.order[k] / 2, b = n.order[k] % 2;
        for (int64_t c = 0; c < C; ++c)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w) o(c, h, w) = vx(c, 2 * h + a, 2 * w + b);
      }
      return;
    case Op::SubposMerge:
      for (size_t k = 0; k < 4; ++k) {
        const View i{*in[k]};
        const int a = n.order[k] / 2, b = n.order[k] % 2;
        for (int64_t c = 0; c < C; ++c)
          for (int64_t h = 0; h < i.H(); ++h)
            for (int64_t w = 0; w < i.W(); ++w) vy(c, 2 * h + a, 2 * w + b) = i(c, h, w);
      }
      return;
    case Op::Fill:
      std::fill(y.data.begin(), y.data.end(), operand(n.fill, scalars));
      return;
  }
}

}  // namespace onemodel::wai
