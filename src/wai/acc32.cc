#include "wai/acc32.h"

#include <vector>

#include "wai/arith.h"

namespace onemodel::wai {

bool acc32_eligible(const Node& n, const NodeBounds& node, const Interval& input) {
  return n.op == Op::Conv && node.fits[kAcc32] && input.bits() <= 32;
}

void conv_acc32(const KernelTable& kernels, const ThreadContext& threads, const Node& n, const IntTensor& x,
                IntTensor& out) {
  const int64_t cin = x.shape[0], H = x.shape[1], W = x.shape[2];
  const int64_t hp = H + 2 * int64_t(n.ph), wp = W + 2 * int64_t(n.pw);
  // The certified input interval fits i32, and so do the weights and the pre bias (§7.2; the bias lies in
  // conv.acc), so each narrowing below keeps the value.
  std::vector<int32_t> padded(size_t(cin * hp * wp), 0);
  for (int64_t c = 0; c < cin; ++c)
    for (int64_t y = 0; y < H; ++y)
      for (int64_t v = 0; v < W; ++v)
        padded[size_t((c * hp + y + n.ph) * wp + v + n.pw)] = int32_t(x.data[size_t((c * H + y) * W + v)]);
  const std::vector<int32_t> weights(n.weights.begin(), n.weights.end());
  std::vector<int32_t> bias;
  if (n.rq.bias_place == 1) bias.assign(n.rq.bias.begin(), n.rq.bias.end());
  std::vector<int32_t> acc(out.data.size());
  WaiConvAcc32Args a;
  a.cin = cin, a.in_h = hp, a.in_w = wp, a.cout = n.cout, a.groups = n.groups;
  a.kh = n.kh, a.kw = n.kw, a.sh = n.sh, a.sw = n.sw, a.out_h = out.shape[1], a.out_w = out.shape[2];
  a.x = padded.data(), a.w = weights.data(), a.bias = bias.empty() ? nullptr : bias.data(),
  a.acc = acc.data();
  kernels.wai_conv_acc32(a, threads);
  // rq of §5.1 on each sum, which already holds the pre bias: p = t * m fits i64 (the product class of
  // acc32), and the rounding and post bias are the acc64 interpreter's.
  const size_t plane = size_t(out.shape[1] * out.shape[2]);
  for (size_t o = 0; o < size_t(n.cout); ++o) {
    const int64_t m = n.rq.mult_at(o), post = n.rq.post_at(o);
    const int s = n.rq.shift_at(o);
    for (size_t i = o * plane; i < (o + 1) * plane; ++i)
      out.data[i] = int64_t(round_shift(i128(int64_t(acc[i]) * m), s, n.rq.round)) + post;
  }
}

}  // namespace onemodel::wai
