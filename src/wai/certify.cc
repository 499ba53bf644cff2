// The bounds pass (wai-ops/1 §8.1-§8.3), the verdicts (§8.5, §9.2) and the certificate's canonical JSON.
#include "wai/certify.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "onemodel/hash.h"
#include "wai/plan.h"

namespace onemodel::wai {
namespace {

Interval hull(const Interval& a, const Interval& b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
Interval point(const Wide& v) {
  return {v, v};
}
bool fits_i32(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX;
}

// The width a class must fit under a profile (§7.1).
int width_bits(Width w, size_t profile) {
  static constexpr int kBits[2][4] = {{64, 64, 128, 128}, {32, 32, 32, 64}};
  return kBits[profile][size_t(w)];
}

bool has_rq(Op op) {
  return op == Op::Conv || op == Op::ConvTranspose || op == Op::Rescale || op == Op::Mul || op == Op::Gram ||
         op == Op::Apply;
}

// The bound rules of one operator (§8.3). Per-channel rules hull into the recorded intervals.
class NodeRules {
 public:
  NodeRules(const Model& m, const Node& n, const std::vector<Interval>& tensors,
            const std::vector<Shape>& shapes, NodeBounds& out)
      : m_(m), n_(n), tensors_(tensors), shapes_(shapes), out_(out) {}

  void run();
  bool saturated() const { return a_.saturated; }

 private:
  const Model& m_;
  const Node& n_;
  const std::vector<Interval>& tensors_;
  const std::vector<Shape>& shapes_;
  NodeBounds& out_;
  SatArith a_;

  const Interval& in(size_t k) const { return tensors_[n_.in[k]]; }
  int64_t in_channels() const { return m_.tensors[n_.in[0]].channels; }

  void record(const char* key, Width w, const Interval& iv) {
    for (RecordedInterval& r : out_.intermediates)
      if (std::strcmp(r.key, key) == 0) {
        r.iv = hull(r.iv, iv);
        return;
      }
    out_.intermediates.push_back({key, w, iv});
  }
  void result(const Interval& iv) {
    if (out_.results.empty()) {
      out_.results.push_back(iv);
    } else {
      out_.results[0] = hull(out_.results[0], iv);
    }
  }

  Interval corner(const Interval& x, const Interval& y) {
    const Wide p[4] = {a_.mul(x.lo, y.lo), a_.mul(x.lo, y.hi), a_.mul(x.hi, y.lo), a_.mul(x.hi, y.hi)};
    return {a_.min(a_.min(p[0], p[1]), a_.min(p[2], p[3])), a_.max(a_.max(p[0], p[1]), a_.max(p[2], p[3]))};
  }
  Interval floor_shift_iv(const Interval& x, int s) { return {a_.shr(x.lo, s), a_.shr(x.hi, s)}; }
  Interval abs_iv(const Interval& x) {
    if (x.lo >= 0) return x;
    if (x.hi <= 0) return {a_.neg(x.hi), a_.neg(x.lo)};
    return {0, a_.max(a_.neg(x.lo), x.hi)};
  }

  // A(K, b) of §8.2 for terms w_k * x over one input interval x, from the sums of the positive and of the
  // negative weights (§8.2's informative form). The pass's fold adds terms of one sign, so it saturates
  // exactly when a term's product does (the corner products of `term_hull` see those) or when its exact total
  // passes 2^255; in both cases its result is the saturated exact total.
  Interval weighted_partial_sum(i128 s_pos, i128 s_neg, const Interval& x, const Wide& b) {
    const Wide l0 = std::min(x.lo, Wide(0)), h0 = std::max(x.hi, Wide(0));
    const Wide sp = Wide::from_i128(s_pos), sn = Wide::from_i128(s_neg);
    return {a_.sat(std::min(b, Wide(0)) + l0 * sp + h0 * sn),
            a_.sat(std::max(b, Wide(0)) + h0 * sp + l0 * sn)};
  }

  // rq.p, rq.q and rq.y for one channel with multiplier m, shift s and post bias b (§8.3); returns rq.y.
  Interval rq_rules(const Interval& t, const Wide& m, int s, Round round, const Wide& post) {
    const Interval P{a_.min(a_.mul(t.lo, m), a_.mul(t.hi, m)), a_.max(a_.mul(t.lo, m), a_.mul(t.hi, m))};
    const Wide addend = round != Round::Floor && s >= 1 ? Wide::pow2(s - 1) : Wide(0);
    record("rq.p", Width::Product, {P.lo, a_.add(P.hi, addend)});
    const Interval q{a_.round(P.lo, s, round), a_.round(P.hi, s, round)};
    record("rq.q", Width::Acc, q);
    const Interval y{a_.add(q.lo, post), a_.add(q.hi, post)};
    record("rq.y", Width::Acc, y);
    return y;
  }
  void rq_channel(size_t c, const Interval& t) {
    record("rq.t", Width::Acc, t);
    const Rq& q = n_.rq;
    result(rq_rules(t, q.mult_at(c), q.shift_at(c), q.round, q.post_at(c)));
  }

  void conv();
  void conv_transpose();
  void chscale();
  void contraction(const char* term_key, const char* acc_key, const Wide& length);
  void leaky();
  void lut16();
  void igdn();
  void layernorm_c();
  void l2norm();
  void exp_rule(const Interval& u);
  void params_and_flags();
};

void NodeRules::conv() {
  const Interval x = in(0);
  const size_t taps = size_t(in_channels() / n_.groups) * n_.kh * n_.kw;
  for (size_t o = 0; o < n_.cout; ++o) {
    const int64_t* w = n_.weights.data() + o * taps;
    i128 s_pos = 0, s_neg = 0;
    for (size_t k = 0; k < taps; ++k) (w[k] > 0 ? s_pos : s_neg) += w[k];
    const auto [w_min, w_max] = std::minmax_element(w, w + taps);
    record("conv.term", Width::Acc, corner({*w_min, *w_max}, x));
    const Interval acc = weighted_partial_sum(s_pos, s_neg, x, n_.rq.pre_at(o));
    record("conv.acc", Width::Acc, acc);
    rq_channel(o, acc);
  }
}

void NodeRules::conv_transpose() {
  const Interval x = in(0);
  const size_t cin = size_t(in_channels()), kh = n_.kh, kw = n_.kw;
  // Only residues below min(stride, kernel) hold taps; an empty residue gives A(∅, b), which every other
  // residue's interval contains, so it never widens the hull.
  const size_t ry = std::min<size_t>(n_.sh, kh), rx = std::min<size_t>(n_.sw, kw);
  std::vector<i128> s_pos(ry * rx), s_neg(ry * rx);
  for (size_t o = 0; o < n_.cout; ++o) {
    std::fill(s_pos.begin(), s_pos.end(), 0);
    std::fill(s_neg.begin(), s_neg.end(), 0);
    int64_t w_min = INT64_MAX, w_max = INT64_MIN;
    for (size_t ci = 0; ci < cin; ++ci)
      for (size_t i = 0; i < kh; ++i)
        for (size_t j = 0; j < kw; ++j) {
          const int64_t w = n_.weights[((ci * n_.cout + o) * kh + i) * kw + j];
          const size_t r = (i % n_.sh) * rx + j % n_.sw;
          (w > 0 ? s_pos[r] : s_neg[r]) += w;
          w_min = std::min(w_min, w), w_max = std::max(w_max, w);
        }
    record("convT.term", Width::Acc, corner({w_min, w_max}, x));
    const Wide b = n_.rq.pre_at(o);
    Interval acc{std::min(b, Wide(0)), std::max(b, Wide(0))};
    for (size_t r = 0; r < ry * rx; ++r) acc = hull(acc, weighted_partial_sum(s_pos[r], s_neg[r], x, b));
    record("convT.acc", Width::Acc, acc);
    rq_channel(o, acc);
  }
}

void NodeRules::chscale() {
  const Interval x = in(0);
  const Scalar& rows = m_.scalars[n_.scalar];
  const size_t C = size_t(in_channels());
  const int s = n_.rq.shift[0];
  const Round round = n_.rq.round;
  record("rq.t", Width::Acc, x);
  for (size_t c = 0; c < C; ++c)
    for (int64_t r = rows.lo; r <= rows.hi; ++r)
      result(rq_rules(x, n_.table_m[size_t(r) * C + c], s, round, 0));
  // chscale has no bias: rq.y is rq.q.
}

void NodeRules::contraction(const char* term_key, const char* acc_key, const Wide& length) {
  const Interval term = corner(in(0), in(1));
  record(term_key, Width::Acc, term);
  out_.term = term;
  const Interval acc{a_.mul(length, a_.min(0, term.lo)), a_.mul(length, a_.max(0, term.hi))};
  record(acc_key, Width::Acc, acc);
  for (size_t c = 0; c < size_t(in_channels()); ++c) rq_channel(c, acc);
}

void NodeRules::leaky() {
  const Interval x = in(0);
  std::optional<Interval> r;
  if (x.lo < 0) {
    const Interval p = corner({x.lo, a_.min(x.hi, -1)}, point(n_.a));
    record("leaky.p", Width::Acc, p);
    r = floor_shift_iv(p, int(n_.f));
  } else {
    record("leaky.p", Width::Acc, point(0));
  }
  if (x.hi >= 0) {
    const Interval nonneg{a_.max(x.lo, 0), x.hi};
    r = r ? hull(*r, nonneg) : nonneg;
  }
  result(*r);
}

void NodeRules::lut16() {
  const Interval x = in(0);
  if (x.lo < -32767 || x.hi > 32767)
    throw LoadFailure{Refusal::ModelMismatch, 8, "lut16's input range is not within [-32767, 32767]"};
  const int64_t lo = x.lo.clamp_i128(), hi = x.hi.clamp_i128();
  int16_t t_min = INT16_MAX, t_max = INT16_MIN;
  for (int64_t u = lo; u <= hi; ++u) {
    const int16_t v = n_.lut[size_t(u + 32768)];
    t_min = std::min(t_min, v), t_max = std::max(t_max, v);
  }
  result({t_min, t_max});
}

void NodeRules::igdn() {
  const Interval x = in(0);
  const size_t C = size_t(in_channels());
  const Wide l2 = a_.mul(x.lo, x.lo), h2 = a_.mul(x.hi, x.hi);
  const Interval x2 =
      x.lo <= 0 && x.hi >= 0 ? Interval{0, a_.max(l2, h2)} : Interval{a_.min(l2, h2), a_.max(l2, h2)};
  record("igdn.x2", Width::Wide, x2);
  std::vector<Interval> terms(C);
  for (size_t i = 0; i < C; ++i) {
    for (size_t j = 0; j < C; ++j) {
      const Interval gx2 = corner(point(n_.gamma[i * C + j]), x2);
      record("igdn.gx2", Width::Product, gx2);
      terms[j] = floor_shift_iv(gx2, int(n_.gf));
      record("igdn.term", Width::Wide, terms[j]);
      out_.term = out_.term ? hull(*out_.term, terms[j]) : terms[j];
    }
    const Wide beta = n_.beta[i];
    Interval N{a_.min(0, beta), a_.max(0, beta)}, Nf{beta, beta};
    for (size_t j = 0; j < C; ++j) {
      N = {a_.add(N.lo, a_.min(0, terms[j].lo)), a_.add(N.hi, a_.max(0, terms[j].hi))};
      Nf = {a_.add(Nf.lo, terms[j].lo), a_.add(Nf.hi, terms[j].hi)};
    }
    record("igdn.N", Width::Wide, N);
    const Interval r{a_.isqrt(a_.max(0, Nf.lo)), a_.isqrt(a_.max(0, Nf.hi))};
    record("igdn.r", Width::Acc, r);
    const Interval xr = corner(x, r);
    record("igdn.xr", Width::Wide, xr);
    result(floor_shift_iv(xr, int(n_.frac)));
  }
}

void NodeRules::layernorm_c() {
  const Interval x = in(0);
  const Wide C = in_channels(), half_c = a_.div(C, 2), eps = Wide::from_u64(n_.eps);
  const uint64_t r0 = uint64_t(isqrt(u128(n_.eps)));
  const Wide d = a_.sub(x.hi, x.lo), two32 = Wide::pow2(32), k_max = a_.div(two32, r0);
  record("ln.S", Width::Wide, {a_.mul(C, a_.min(0, x.lo)), a_.mul(C, a_.max(0, x.hi))});
  record("ln.m", Width::Wide, {a_.sub(a_.mul(C, x.lo), half_c), a_.add(a_.mul(C, x.hi), half_c)});
  record("ln.d", Width::Acc, {a_.sub(x.lo, x.hi), d});
  record("ln.T", Width::Wide, {0, a_.mul(a_.mul(C, d), d)});
  record("ln.v", Width::Wide, {eps, a_.add(a_.mul(d, d), eps)});
  record("rsq.num", Width::Acc, point(two32));
  record("ln.k", Width::Acc, {0, k_max});
  const Wide root_c = a_.isqrt_ceil(C), r0_plus = a_.add(Wide::from_u64(r0), 1);
  const Wide lemma = a_.neg(a_.div(a_.neg(a_.mul(a_.mul(root_c, two32), r0_plus)), r0));
  const Wide D = a_.min(a_.mul(d, k_max), lemma);
  record("ln.dk", Width::Wide, {a_.neg(D), D});
  const Wide n_max = a_.add(a_.div(a_.mul(a_.mul(root_c, Wide::pow2(16)), r0_plus), r0), 1);
  const Wide N = a_.min(a_.add(a_.shr(a_.mul(d, k_max), 16), 1), n_max);
  const Interval n{a_.neg(N), N};
  record("ln.n", Width::Acc, n);
  for (size_t c = 0; c < size_t(in_channels()); ++c) {
    const Interval ng = corner(n, point(n_.gamma[c]));
    record("ln.ng", Width::Wide, ng);
    result({a_.add(a_.shr(ng.lo, 16), n_.beta[c]), a_.add(a_.shr(ng.hi, 16), n_.beta[c])});
  }
}

void NodeRules::l2norm() {
  const Interval x = in(0);
  const Shape& s = shapes_[n_.in[0]];
  const Wide L = a_.mul(s.h, s.w), X = a_.max(a_.abs(x.lo), a_.abs(x.hi)), two32 = Wide::pow2(32);
  record("l2.T", Width::Wide, {0, a_.add(a_.mul(a_.mul(L, X), X), Wide::from_u64(n_.eps))});
  record("rsq.num", Width::Acc, point(two32));
  record("l2.k", Width::Acc, {0, a_.div(two32, uint64_t(isqrt(u128(n_.eps))))});
  record("l2.vk", Width::Wide, {a_.neg(two32), two32});
  result({a_.neg(Wide::pow2(16)), Wide::pow2(16)});
}

void NodeRules::exp_rule(const Interval& u) {
  record("exp.negx", Width::Acc, u);
  record("exp.nl", Width::Acc, {a_.mul(45426, a_.div(u.lo, 45426)), a_.mul(45426, a_.div(u.hi, 45426))});
  const Wide t2_hi = a_.mul(88670, 88670);
  record("exp.t2", Width::Acc, {a_.mul(43245, 43245), t2_hi});
  record("exp.c", Width::Acc, {0, a_.mul(23495, a_.shr(t2_hi, 16))});
}

// The §7.2 parameter conditions the node fails (in that table's order) and its §9.2 flags.
void NodeRules::params_and_flags() {
  auto& params = out_.acc32_params;
  auto& flags = out_.npu_flags;
  const Rq& q = n_.rq;
  if (has_rq(n_.op)) {
    if (std::any_of(q.mult.begin(), q.mult.end(), [](int64_t v) { return !fits_i32(v); }))
      params.push_back("rq.mult");
    if (std::any_of(q.shift.begin(), q.shift.end(), [](uint8_t s) { return s > 63; }))
      params.push_back("rq.shift");
    if (q.bias_place == 2 &&
        std::any_of(q.bias.begin(), q.bias.end(), [](int64_t v) { return !fits_i32(v); }))
      params.push_back("rq.post_bias");
    if (q.bias_place == 2) flags.push_back("rq_post_bias");
  }
  if ((n_.op == Op::Conv || n_.op == Op::ConvTranspose) &&
      std::any_of(n_.weights.begin(), n_.weights.end(), [](int64_t v) { return !fits_i32(v); }))
    params.push_back("weights");
  if (n_.op == Op::Chscale) {
    if (std::any_of(n_.table_m.begin(), n_.table_m.end(), [](int64_t v) { return !fits_i32(v); }))
      params.push_back("chscale.m");
    if (q.shift[0] > 63) params.push_back("chscale.s");
    flags.push_back("chscale");
  }
  if (n_.op == Op::Igdn) {
    if (std::any_of(n_.gamma.begin(), n_.gamma.end(), [](int64_t v) { return !fits_i32(v); }))
      params.push_back("igdn.gamma");
    if (n_.gf > 63 || n_.frac > 63) params.push_back("igdn.shift");
  }
  if (n_.op == Op::Leaky && !fits_i32(n_.a)) params.push_back("leaky.a");
  if (has_rq(n_.op) || n_.op == Op::Chscale) {
    const std::vector<int64_t>& mults = n_.op == Op::Chscale ? n_.table_m : q.mult;
    const bool has_mult = !mults.empty();
    if (q.round == Round::HalfEven) flags.push_back("rq_half_even");
    if (q.round == Round::Floor && has_mult) flags.push_back("rq_floor_mult");
    if (std::any_of(mults.begin(), mults.end(), [](int64_t v) { return v < 0; }))
      flags.push_back("rq_neg_mult");
    if (std::any_of(q.shift.begin(), q.shift.end(), [](uint8_t s) { return s > 31; }))
      flags.push_back("rq_shift_range");
  }
  if (n_.op == Op::Lut16) flags.push_back("lut16");
  if (n_.op == Op::Add || n_.op == Op::ChunkAdd) {
    bool reads_state = false;
    for (uint32_t t : n_.in)
      for (const Input& i : m_.inputs) reads_state |= i.tensor == t && i.kind == InputKind::State;
    if (reads_state) flags.push_back("state_add");
  }
  std::sort(flags.begin(), flags.end(), [](const char* x, const char* y) { return std::strcmp(x, y) < 0; });
}

void NodeRules::run() {
  params_and_flags();
  const Interval x = in(0);
  switch (n_.op) {
    case Op::Conv:
      conv();
      out_.term = out_.find("conv.term")->iv;
      break;
    case Op::ConvTranspose:
      conv_transpose();
      out_.term = out_.find("convT.term")->iv;
      break;
    case Op::Rescale:
      for (size_t c = 0; c < size_t(in_channels()); ++c) {
        const Wide b = n_.rq.pre_at(c);
        rq_channel(c, {a_.add(x.lo, b), a_.add(x.hi, b)});
      }
      break;
    case Op::Chscale:
      chscale();
      break;
    case Op::Mul: {
      const Interval p = corner(x, in(1));
      record("mul.p", Width::Acc, p);
      for (size_t c = 0; c < size_t(in_channels()); ++c) rq_channel(c, p);
      break;
    }
    case Op::Gram: {
      const Shape& sa = shapes_[n_.in[0]];
      const Shape& sb = shapes_[n_.in[1]];
      contraction("gram.term", "gram.acc", std::max(a_.mul(sa.h, sa.w), a_.mul(sb.h, sb.w)));
      break;
    }
    case Op::Apply:
      contraction("apply.term", "apply.acc", in_channels() / n_.groups);
      break;
    case Op::Add:
      result({a_.add(x.lo, in(1).lo), a_.add(x.hi, in(1).hi)});
      break;
    case Op::ChunkAdd:
      result({a_.mul(2, x.lo), a_.mul(2, x.hi)});
      break;
    case Op::Clamp:
      result({a_.min(a_.max(x.lo, n_.lo), n_.hi), a_.min(a_.max(x.hi, n_.lo), n_.hi)});
      break;
    case Op::Relu:
      result({a_.max(x.lo, 0), a_.max(x.hi, 0)});
      break;
    case Op::Abs:
      result(abs_iv(x));
      break;
    case Op::Leaky:
      leaky();
      break;
    case Op::Lut16:
      lut16();
      break;
    case Op::Igdn:
      igdn();
      break;
    case Op::LayernormC:
      layernorm_c();
      break;
    case Op::L2norm:
      l2norm();
      break;
    case Op::Softmax: {
      const Wide w_max = shapes_[n_.in[0]].w, e_max = 65553;
      record("sm.diff", Width::Acc, {a_.sub(x.lo, x.hi), 0});
      exp_rule({0, a_.sub(x.hi, x.lo)});
      record("sm.sum", Width::Acc, {0, a_.mul(w_max, e_max)});
      record("sm.num", Width::Acc,
             {0, a_.add(a_.mul(e_max, Wide::pow2(16)), a_.div(a_.mul(w_max, e_max), 2))});
      result({0, Wide::pow2(16)});
      break;
    }
    case Op::Sigmoid:
      exp_rule(abs_iv(x));
      record("sig.num", Width::Acc, {0, a_.mul(65553, Wide::pow2(16))});
      result({0, Wide::pow2(16)});
      break;
    case Op::Elu: {
      exp_rule({a_.max(0, a_.neg(x.hi)), a_.max(0, a_.neg(x.lo))});
      const Interval p = corner(point(n_.a), {a_.neg(Wide::pow2(16)), 17});
      record("elu.p", Width::Wide, p);
      if (x.hi > 0) result({a_.max(x.lo, 1), x.hi});
      if (x.lo <= 0) result(floor_shift_iv(p, 16));
      break;
    }
    case Op::Concat:
    case Op::SubposMerge:
      for (size_t k = 0; k < n_.in.size(); ++k) result(in(k));
      break;
    case Op::SubposSplit:
      out_.results.assign(4, x);
      break;
    case Op::Fill:
      if (n_.fill.is_scalar) {
        const Scalar& s = m_.scalars[size_t(n_.fill.value)];
        result({s.lo, s.hi});
      } else {
        result(point(n_.fill.value));
      }
      break;
    default:  // split, pixel_shuffle, pixel_unshuffle, pad_rep, crop_to (its first input), crop
      result(x);
      break;
  }
  if (n_.op == Op::Gram || n_.op == Op::Apply || n_.op == Op::Conv || n_.op == Op::ConvTranspose ||
      n_.op == Op::Chscale || n_.op == Op::Mul) {
    out_.has_mac = true;
    for (size_t k = 0; k < n_.in.size(); ++k) out_.a_bits.push_back(in(k).bits());
    const std::vector<int64_t>& w = n_.op == Op::Chscale ? n_.table_m : n_.weights;
    if (!w.empty()) {
      const auto [lo, hi] = std::minmax_element(w.begin(), w.end());
      out_.w_bits = Interval{*lo, *hi}.bits();
    }
  }
}

// The widest intermediate or producer result of a node that fails a profile's width for its class (§8.5, the
// first-failure key), a tie going to the smallest key; nullopt when every one fits.
std::optional<std::pair<std::string, int>> widest_failure(const NodeBounds& b, size_t profile) {
  std::string worst_key;
  int worst_bits = 0;
  auto consider = [&](const std::string& key, const Interval& iv, Width w) {
    const int bits = iv.bits();
    if (bits <= width_bits(w, profile)) return;
    if (bits > worst_bits || (bits == worst_bits && key < worst_key)) worst_key = key, worst_bits = bits;
  };
  for (const RecordedInterval& r : b.intermediates) consider(r.key, r.iv, r.width);
  for (size_t k = 0; k < b.results.size(); ++k)
    consider("out." + std::to_string(k), b.results[k], Width::Tensor);
  if (worst_bits == 0) return std::nullopt;
  return std::pair{worst_key, worst_bits};
}

// Does a node meet a profile (§8.5, "What a node fits")? Fills the failure key when it does not.
bool node_fits(const Model& m, const Node& n, const NodeBounds& b, size_t profile, Failure* failure) {
  if (b.saturated) {
    if (failure) *failure = {"node", 0, "saturated", std::nullopt};
    return false;
  }
  if (const auto worst = widest_failure(b, profile)) {
    if (failure) *failure = {"node", 0, worst->first, worst->second};
    return false;
  }
  if (profile == kAcc32) {
    if (!b.acc32_params.empty()) {
      if (failure) *failure = {"node", 0, b.acc32_params.front(), std::nullopt};
      return false;
    }
    for (uint32_t t : n.out)
      if (m.tensors[t].policy == Policy::Check) {
        if (failure) *failure = {"node", 0, "policy.check", std::nullopt};
        return false;
      }
  }
  return true;
}

const char* policy_name(Policy p) {
  return p == Policy::Derived ? "derived" : p == Policy::Clamp ? "clamp" : "check";
}

// Canonical JSON (§8.5): objects keep their members sorted by key bytes; integers are strings.
class Json {
 public:
  static Json null() { return Json(Kind::Null); }
  static Json boolean(bool b) {
    Json j(Kind::Bool);
    j.flag_ = b;
    return j;
  }
  static Json string(std::string s) {
    Json j(Kind::String);
    j.text_ = std::move(s);
    return j;
  }
  static Json integer(const Wide& v) { return string(v.to_decimal()); }
  static Json array() { return Json(Kind::Array); }
  static Json object() { return Json(Kind::Object); }

  Json& set(const std::string& key, Json v) {
    members_.insert_or_assign(key, std::move(v));
    return *this;
  }
  Json& push(Json v) {
    items_.push_back(std::move(v));
    return *this;
  }
  void write(std::string& out) const {
    switch (kind_) {
      case Kind::Null:
        out += "null";
        return;
      case Kind::Bool:
        out += flag_ ? "true" : "false";
        return;
      case Kind::String:
        write_string(text_, out);
        return;
      case Kind::Array:
        out += '[';
        for (size_t i = 0; i < items_.size(); ++i) {
          if (i) out += ',';
          items_[i].write(out);
        }
        out += ']';
        return;
      case Kind::Object: {
        out += '{';
        bool first = true;
        for (const auto& [k, v] : members_) {
          if (!first) out += ',';
          first = false;
          write_string(k, out);
          out += ':';
          v.write(out);
        }
        out += '}';
        return;
      }
    }
  }

 private:
  enum class Kind { Null, Bool, String, Array, Object };
  explicit Json(Kind k) : kind_(k) {}
  static void write_string(const std::string& s, std::string& out) {
    out += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  Kind kind_;
  bool flag_ = false;
  std::string text_;
  std::vector<Json> items_;
  std::map<std::string, Json> members_;
};

Json interval_json(const Interval& iv) {
  return Json::object()
      .set("bits", Json::integer(iv.bits()))
      .set("hi", Json::integer(iv.hi))
      .set("lo", Json::integer(iv.lo));
}

Json strings_json(const std::vector<const char*>& v) {
  Json a = Json::array();
  for (const char* s : v) a.push(Json::string(s));
  return a;
}

Json optional_string(const std::optional<std::string>& s) {
  return s ? Json::string(*s) : Json::null();
}

Json failure_json(const Failure& f, const std::optional<std::string>& role) {
  Json j = Json::object()
               .set("graph", optional_string(role))
               .set("index", Json::integer(int64_t(f.index)))
               .set("key", Json::string(f.key))
               .set("where", Json::string(f.where));
  if (f.bits) j.set("bits", Json::integer(*f.bits));
  return j;
}

}  // namespace

const RecordedInterval* NodeBounds::find(const char* key) const {
  for (const RecordedInterval& r : intermediates)
    if (std::strcmp(r.key, key) == 0) return &r;
  return nullptr;
}

Bounds bounds_pass(const Model& m) {
  Bounds b;
  const std::vector<Shape> shapes = m.sizes_declared ? plan_declared_shapes(m) : std::vector<Shape>{};
  b.tensors.resize(m.tensors.size());
  for (const Input& in : m.inputs) b.tensors[in.tensor] = {m.tensors[in.tensor].lo, m.tensors[in.tensor].hi};
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    NodeBounds& nb = b.nodes.emplace_back();
    NodeRules rules(m, n, b.tensors, shapes, nb);
    rules.run();
    nb.saturated = rules.saturated();
    for (size_t i = 0; i < n.out.size(); ++i) {
      const TensorRecord& r = m.tensors[n.out[i]];
      const Interval& p = nb.results[i];
      Interval& t = b.tensors[n.out[i]];
      if (r.policy == Policy::Derived) {
        t = p;
      } else if (r.policy == Policy::Clamp) {
        t = {std::clamp(p.lo, Wide(r.lo), Wide(r.hi)), std::clamp(p.hi, Wide(r.lo), Wide(r.hi))};
      } else {
        t = {std::max(p.lo, Wide(r.lo)), std::min(p.hi, Wide(r.hi))};
        if (t.hi < t.lo)
          throw LoadFailure{Refusal::ModelMismatch, 8,
                            std::string(op_name(n.op)) + " #" + std::to_string(k) +
                                ": no value its producer can give lies in the check range of tensor " +
                                std::to_string(n.out[i])};
      }
    }
  }
  // The verdicts and their first failures: inputs, then scalars, then nodes (§8.5).
  for (size_t profile : {kAcc64, kAcc32}) {
    const int bits = width_bits(Width::Tensor, profile);
    std::optional<Failure>& first = b.first_failure[profile];
    for (size_t i = 0; i < m.inputs.size() && !first; ++i) {
      const TensorRecord& r = m.tensors[m.inputs[i].tensor];
      const Interval iv{r.lo, r.hi};
      if (iv.bits() > bits) first = Failure{"input", i, "range", iv.bits()};
    }
    for (size_t i = 0; i < m.scalars.size() && !first; ++i) {
      const Interval iv{m.scalars[i].lo, m.scalars[i].hi};
      if (iv.bits() > bits) first = Failure{"scalar", i, "range", iv.bits()};
    }
    for (size_t k = 0; k < m.nodes.size(); ++k) {
      Failure f;
      b.nodes[k].fits[profile] = node_fits(m, m.nodes[k], b.nodes[k], profile, &f);
      if (!b.nodes[k].fits[profile] && !first) {
        f.index = k;
        first = f;
      }
    }
    b.verdict[profile] = !first;
  }
  // The accelerator subset (§9.2).
  std::vector<std::string> reasons, flags;
  if (!b.verdict[kAcc32]) reasons.push_back("acc32");
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    switch (n.op) {
      case Op::Igdn:
      case Op::LayernormC:
      case Op::L2norm:
      case Op::Softmax:
      case Op::Sigmoid:
      case Op::Elu:
      case Op::Gram:
      case Op::Apply:
        reasons.push_back(std::string("op:") + op_name(n.op));
        break;
      case Op::Conv: {
        const uint32_t cin = m.tensors[n.in[0]].channels;
        if ((n.groups != 1 && n.groups != cin) || (n.groups == cin && cin > 1 && n.cout != cin))
          reasons.push_back("conv_groups");
        break;
      }
      case Op::Crop:
        if (std::any_of(n.crop.begin(), n.crop.end(), [](const Operand& o) { return o.is_scalar; }))
          reasons.push_back("crop_scalar");
        break;
      default:
        break;
    }
    for (const char* f : b.nodes[k].npu_flags) flags.push_back(f);
  }
  for (std::vector<std::string>* v : {&reasons, &flags}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  b.npu_reasons = std::move(reasons);
  b.npu_flags = std::move(flags);
  return b;
}

std::optional<AdmissibleRange> admissible_range(const Model& m, const Bounds& b, uint32_t tensor,
                                                size_t profile) {
  const std::vector<Shape> shapes = m.sizes_declared ? plan_declared_shapes(m) : std::vector<Shape>{};
  std::vector<Interval> seen = b.tensors;
  // C(X): every direct consumer, reading the tensor as [-X, X] and everything else as the pass computed it,
  // forms only values that fit the profile's widths, and none saturates. Parameter conditions and policies
  // do not count.
  auto holds = [&](uint64_t x) {
    seen[tensor] = {-Wide::from_u64(x), Wide::from_u64(x)};
    for (const Node& n : m.nodes) {
      if (std::find(n.in.begin(), n.in.end(), tensor) == n.in.end()) continue;
      NodeBounds nb;
      NodeRules rules(m, n, seen, shapes, nb);
      try {
        rules.run();
      } catch (const LoadFailure&) {  // lut16 cannot read an input past i16 (§5.6)
        return false;
      }
      if (rules.saturated() || widest_failure(nb, profile)) return false;
    }
    return true;
  };
  // The largest X in [0, 2^63] for which C(X) holds; C is monotone (§8.4).
  uint64_t lo = 0, hi = uint64_t(1) << 63;
  if (holds(hi)) {
    lo = hi;
  } else if (!holds(0)) {
    return std::nullopt;
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (holds(mid) ? lo : hi) = mid;
  }
  return AdmissibleRange{int64_t(-i128(lo)), int64_t(std::min<uint64_t>(lo, INT64_MAX))};
}

namespace {

// One member of a certificate's "graphs" (§8.5).
Json graph_json(const CertifiedGraph& g) {
  const Model& m = *g.model;
  const Bounds& b = *g.bounds;
  Json inputs = Json::array();
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const Input& in = m.inputs[i];
    const TensorRecord& r = m.tensors[in.tensor];
    Json j = Json::object()
                 .set("hi", Json::integer(r.hi))
                 .set("kind", Json::string(in.kind == InputKind::State ? "state" : "data"))
                 .set("lo", Json::integer(r.lo))
                 .set("max_h", Json::integer(int64_t(in.max_h)))
                 .set("max_w", Json::integer(int64_t(in.max_w)))
                 .set("policy", Json::string(policy_name(r.policy)))
                 .set("tensor", Json::integer(int64_t(in.tensor)));
    if (in.kind == InputKind::State)
      j.set("init", Json::integer(in.init)).set("src", Json::integer(int64_t(in.src)));
    inputs.push(std::move(j));
  }
  Json scalars = Json::array();
  for (size_t i = 0; i < m.scalars.size(); ++i)
    scalars.push(Json::object()
                     .set("hi", Json::integer(m.scalars[i].hi))
                     .set("index", Json::integer(int64_t(i)))
                     .set("lo", Json::integer(m.scalars[i].lo)));
  Json nodes = Json::array();
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const NodeBounds& nb = b.nodes[k];
    Json fits = Json::array();
    if (nb.fits[kAcc32]) fits.push(Json::string("acc32"));
    if (nb.fits[kAcc64]) fits.push(Json::string("acc64"));
    Json inter = Json::object();
    for (const RecordedInterval& r : nb.intermediates) inter.set(r.key, interval_json(r.iv));
    Json outs = Json::array();
    for (size_t i = 0; i < n.out.size(); ++i) {
      const Interval& t = b.tensors[n.out[i]];
      outs.push(Json::object()
                    .set("bits", Json::integer(t.bits()))
                    .set("hi", Json::integer(t.hi))
                    .set("lo", Json::integer(t.lo))
                    .set("policy", Json::string(policy_name(m.tensors[n.out[i]].policy)))
                    .set("result", interval_json(nb.results[i]))
                    .set("tensor", Json::integer(int64_t(n.out[i]))));
    }
    Json node = Json::object()
                    .set("acc32_params", strings_json(nb.acc32_params))
                    .set("fits", std::move(fits))
                    .set("index", Json::integer(int64_t(k)))
                    .set("intermediates", std::move(inter))
                    .set("npu_flags", strings_json(nb.npu_flags))
                    .set("op", Json::string(op_name(n.op)))
                    .set("out", std::move(outs))
                    .set("saturated", Json::boolean(nb.saturated));
    if (nb.term) {
      // K_c (§6): the longest run of terms whose i32 partial sums cannot overflow.
      const Wide p = std::max(-nb.term->lo, nb.term->hi), limit = INT32_MAX;
      node.set("k_c",
               p.is_zero()
                   ? Json::string("unbounded")
                   : Json::integer(p > limit ? Wide(0) : Wide(int64_t(INT32_MAX) / int64_t(p.clamp_i128()))));
    }
    if (nb.has_mac) {
      Json a_bits = Json::array();
      for (int bits : nb.a_bits) a_bits.push(Json::integer(bits));
      Json mac = Json::object().set("a_bits", std::move(a_bits));
      if (nb.w_bits) mac.set("w_bits", Json::integer(*nb.w_bits));
      node.set("mac", std::move(mac));
    }
    nodes.push(std::move(node));
  }
  return Json::object()
      .set("graph_sha256", Json::string(g.graph_sha256))
      .set("inputs", std::move(inputs))
      .set("name", optional_string(g.role))
      .set("nodes", std::move(nodes))
      .set("scalars", std::move(scalars));
}

// §8.5: strings are printable ASCII; a digest is 64 lowercase hex digits.
void require_printable(const std::optional<std::string>& s, const char* what) {
  if (s && !std::all_of(s->begin(), s->end(), [](char c) { return c >= 0x20 && c <= 0x7E; }))
    throw std::invalid_argument(std::string(what) + " is not printable ASCII");
}

}  // namespace

Certificate set_certificate(std::span<const CertifiedGraph> graphs, const SetInfo& info) {
  require_printable(info.capability, "the capability");
  require_printable(info.lowering, "the lowering");
  if (info.set_sha256 && (info.set_sha256->size() != 64 ||
                          !std::all_of(info.set_sha256->begin(), info.set_sha256->end(), [](char c) {
                            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                          })))
    throw std::invalid_argument("the set digest is not 64 lowercase hexadecimal digits");
  Certificate cert;
  Json members = Json::array();
  std::vector<std::string> reasons, flags;
  for (size_t k = 0; k < graphs.size(); ++k) {
    const CertifiedGraph& g = graphs[k];
    require_printable(g.role, "a role");
    members.push(graph_json(g));
    for (size_t profile : {kAcc64, kAcc32}) {
      std::optional<CertificateFailure>& first = profile == kAcc64 ? cert.acc64_failure : cert.acc32_failure;
      if (const std::optional<Failure>& f = g.bounds->first_failure[profile]; f && !first)
        first = CertificateFailure{f->where, f->index, f->key, f->bits.value_or(0), k, g.role};
    }
    reasons.insert(reasons.end(), g.bounds->npu_reasons.begin(), g.bounds->npu_reasons.end());
    flags.insert(flags.end(), g.bounds->npu_flags.begin(), g.bounds->npu_flags.end());
  }
  cert.acc64 = !cert.acc64_failure, cert.acc32 = !cert.acc32_failure;
  // Each graph's reasons name "acc32" when that graph fails it; the set's name it when the set fails it.
  std::erase(reasons, std::string("acc32"));
  if (!cert.acc32) reasons.push_back("acc32");
  for (std::vector<std::string>* v : {&reasons, &flags}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  cert.npu = reasons.empty();
  cert.npu_reasons = reasons, cert.npu_flags = flags;
  Json npu_flags = Json::array(), npu_reasons = Json::array();
  for (const std::string& f : flags) npu_flags.push(Json::string(f));
  for (const std::string& r : reasons) npu_reasons.push(Json::string(r));
  Json verdict = Json::object()
                     .set("acc32", Json::boolean(cert.acc32))
                     .set("acc64", Json::boolean(cert.acc64))
                     .set("npu", Json::boolean(cert.npu))
                     .set("npu_flags", std::move(npu_flags))
                     .set("npu_reasons", std::move(npu_reasons));
  auto failure = [&](const CertificateFailure& f) {
    return failure_json(Failure{f.where == "input"    ? "input"
                                : f.where == "scalar" ? "scalar"
                                                      : "node",
                                f.index, f.key, f.bits ? std::optional<int>(f.bits) : std::nullopt},
                        f.role);
  };
  if (cert.acc32_failure) verdict.set("acc32_first_failure", failure(*cert.acc32_failure));
  if (cert.acc64_failure) verdict.set("acc64_first_failure", failure(*cert.acc64_failure));
  Json::object()
      .set("capability", optional_string(info.capability))
      .set("certificate", Json::string("wai-ops/1 bounds"))
      .set("graphs", std::move(members))
      .set("lowering", Json::string(info.lowering))
      .set("set_sha256", optional_string(info.set_sha256))
      .set("verdict", std::move(verdict))
      .write(cert.bytes);
  return cert;
}

void BoundsChecker::seen(const char* key, i128 value) {
  const RecordedInterval* r = node_.find(key);
  if (!r) throw std::logic_error(where_ + ": the certificate records no interval for " + key);
  if (!r->iv.contains(value))
    throw std::logic_error(where_ + ": " + key + " = " + Wide::from_i128(value).to_decimal() +
                           " is outside [" + r->iv.lo.to_decimal() + ", " + r->iv.hi.to_decimal() + "]");
}

void check_in_interval(const Interval& iv, const IntTensor& t, const std::string& what) {
  for (int64_t v : t.data)
    if (!iv.contains(v))
      throw std::logic_error(what + ": " + std::to_string(v) + " is outside its certified interval [" +
                             iv.lo.to_decimal() + ", " + iv.hi.to_decimal() + "]");
}

detail::Certified certify_model(const Model& m, std::span<const uint8_t> graph_bytes) {
  detail::Certified c{bounds_pass(m),
                      {},
                      sha256_hex(std::span<const std::byte>(
                          reinterpret_cast<const std::byte*>(graph_bytes.data()), graph_bytes.size()))};
  const CertifiedGraph self{&m, &c.bounds, c.graph_sha256, std::nullopt};
  c.certificate = set_certificate({&self, 1}, SetInfo{});
  Certificate& cert = c.certificate;
  auto view = [](std::string key, const Interval& iv) {
    return CertifiedInterval{std::move(key), iv.lo.to_decimal(), iv.hi.to_decimal(), iv.bits()};
  };
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const NodeBounds& nb = c.bounds.nodes[k];
    CertificateNode& node = cert.nodes.emplace_back();
    node.op = op_name(m.nodes[k].op);
    node.saturated = nb.saturated;
    node.fits_acc64 = nb.fits[kAcc64], node.fits_acc32 = nb.fits[kAcc32];
    for (const RecordedInterval& r : nb.intermediates) node.intermediates.push_back(view(r.key, r.iv));
    for (size_t i = 0; i < nb.results.size(); ++i)
      node.results.push_back(view("out." + std::to_string(i), nb.results[i]));
  }
  return c;
}

}  // namespace onemodel::wai
