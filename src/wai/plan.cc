// Shape rules of wai-ops/1 §5, and the load plan of §10.5 step 7.
#include "wai/plan.h"

#include <algorithm>

#include "wai/bytes.h"

namespace onemodel::wai {
namespace {

constexpr int64_t kCap = int64_t(1) << 26;

PlanOutcome too_large(const std::string& what) {
  return {Refusal::TooLarge, what + " passes 2^26"};
}
PlanOutcome geometry(const std::string& what) {
  return {Refusal::GeometryMismatch, what};
}

// Output channel counts from input channel counts (§5); empty with `why` set when they do not plan.
std::vector<uint64_t> plan_channels(const Model& m, const Node& n, std::string& why) {
  std::vector<uint64_t> c;
  for (uint32_t t : n.in) c.push_back(m.tensors[t].channels);
  const uint64_t c0 = c[0];
  auto fail = [&](const char* what) {
    why = what;
    return std::vector<uint64_t>{};
  };
  switch (n.op) {
    case Op::Conv:
    case Op::ConvTranspose:
      return {n.cout};
    case Op::Add:
      if (c[1] != c0) return fail("add inputs have different channel counts");
      return {c0};
    case Op::Mul:
      if (c[1] != c0 && c[1] != 1) return fail("mul's b has neither C nor 1 channels");
      return {c0};
    case Op::Concat: {
      uint64_t sum = 0;
      for (uint64_t x : c) sum = size_add(sum, x);
      return {sum};
    }
    case Op::ChunkAdd:
      if (c0 % 2 != 0) return fail("chunk_add input has an odd channel count");
      return {c0 / 2};
    case Op::Split:
      if (uint64_t(n.start) + n.count > c0) return fail("split start + count passes the channel count");
      return {n.count};
    case Op::PixelShuffle: {
      const uint64_t r2 = uint64_t(n.factor) * n.factor;
      if (c0 % r2 != 0) return fail("pixel_shuffle channels are not a multiple of r^2");
      return {c0 / r2};
    }
    case Op::PixelUnshuffle:
      return {size_mul(c0, uint64_t(n.factor) * n.factor)};
    case Op::SubposSplit:
      return {c0, c0, c0, c0};
    case Op::SubposMerge:
      if (c[1] != c0 || c[2] != c0 || c[3] != c0)
        return fail("subpos_merge inputs have different channel counts");
      return {c0};
    case Op::Fill:
      return {m.tensors[n.out[0]].channels};
    case Op::Gram:
    case Op::Apply:
      if (c[1] != c0) return fail("the two inputs have different channel counts");
      if (c0 % n.groups != 0) return fail("groups does not divide the channel count");
      return {c0};
    default:
      return {c0};  // every other operator keeps its first input's channels
  }
}

int64_t operand_value(const Operand& o, std::span<const int64_t> scalars) {
  return o.is_scalar ? scalars[size_t(o.value)] : o.value;
}

// One side of a crop: start and length from the decode's scalars, or at load the smallest start and largest
// length the operands allow (§5.10).
bool crop_side(const Model& m, const Operand& start, const Operand& len, int64_t size,
               std::span<const int64_t> scalars, bool at_load, int64_t& out_len) {
  int64_t s0, l;
  if (at_load) {
    s0 = start.is_scalar ? 0 : start.value;
    l = len.is_scalar ? std::min<int64_t>(m.scalars[size_t(len.value)].hi, size - s0) : len.value;
  } else {
    s0 = operand_value(start, scalars), l = operand_value(len, scalars);
  }
  out_len = l;
  // Both operands lie in [-2^63, 2^63 - 1] and size in [1, 2^26], so s0 <= size - l never overflows.
  return s0 >= 0 && l >= 1 && l <= size && s0 <= size - l;
}

}  // namespace

uint64_t elements(const Shape& s) {
  return size_mul(size_mul(uint64_t(s.c), uint64_t(s.h)), uint64_t(s.w));
}

PlanOutcome plan_node(const Model& m, const Node& n, std::span<const Shape> in,
                      std::span<const int64_t> scalars, bool at_load, std::vector<Shape>& out) {
  const Shape& a = in[0];
  const int64_t C = m.tensors[n.out[0]].channels;
  out.clear();
  switch (n.op) {
    case Op::Conv: {
      const int64_t hp = a.h + 2 * int64_t(n.ph), wp = a.w + 2 * int64_t(n.pw);
      if (hp > kCap || wp > kCap) return too_large("conv padded side");
      if (hp < n.kh || wp < n.kw) return geometry("conv kernel is larger than the padded input");
      out.push_back({C, (hp - n.kh) / n.sh + 1, (wp - n.kw) / n.sw + 1});
      break;
    }
    case Op::ConvTranspose: {
      const int64_t uh = (a.h - 1) * int64_t(n.sh) + n.kh + n.oph,
                    uw = (a.w - 1) * int64_t(n.sw) + n.kw + n.opw;
      if (uh > kCap || uw > kCap) return too_large("conv_transpose uncropped side");
      if (elements({C, uh, uw}) > uint64_t(kCap)) return too_large("conv_transpose uncropped output");
      const int64_t ho = uh - 2 * int64_t(n.ph), wo = uw - 2 * int64_t(n.pw);
      if (ho < 1 || wo < 1) return geometry("conv_transpose output side is below 1");
      out.push_back({C, ho, wo});
      break;
    }
    case Op::Add:
    case Op::Mul:
      if (in[1].h != a.h || in[1].w != a.w) return geometry("the inputs' sizes differ");
      out.push_back({C, a.h, a.w});
      break;
    case Op::Concat:
    case Op::SubposMerge:
      for (const Shape& s : in)
        if (s.h != a.h || s.w != a.w) return geometry("the inputs' sizes differ");
      if (n.op == Op::Concat) {
        out.push_back({C, a.h, a.w});
      } else {
        if (2 * a.h > kCap || 2 * a.w > kCap) return too_large("subpos_merge output side");
        out.push_back({C, 2 * a.h, 2 * a.w});
      }
      break;
    case Op::PixelShuffle: {
      const int64_t h = a.h * int64_t(n.factor), w = a.w * int64_t(n.factor);
      if (h > kCap || w > kCap) return too_large("pixel_shuffle output side");
      out.push_back({C, h, w});
      break;
    }
    case Op::PixelUnshuffle:
      if (a.h % n.factor != 0 || a.w % n.factor != 0)
        return geometry("pixel_unshuffle sides are not multiples of r");
      out.push_back({C, a.h / n.factor, a.w / n.factor});
      break;
    case Op::PadRep: {
      const int64_t m_ = n.factor, h = (a.h + m_ - 1) / m_ * m_, w = (a.w + m_ - 1) / m_ * m_;
      if (h > kCap || w > kCap) return too_large("pad_rep output side");
      out.push_back({C, h, w});
      break;
    }
    case Op::CropTo:
      if (in[1].h > a.h || in[1].w > a.w) return geometry("crop_to reference is larger than the input");
      out.push_back({C, in[1].h, in[1].w});
      break;
    case Op::Crop: {
      int64_t h, w;
      if (!crop_side(m, n.crop[0], n.crop[2], a.h, scalars, at_load, h) ||
          !crop_side(m, n.crop[1], n.crop[3], a.w, scalars, at_load, w))
        return geometry("crop does not fit its input");
      out.push_back({C, h, w});
      break;
    }
    case Op::SubposSplit:
      if (a.h % 2 != 0 || a.w % 2 != 0) return geometry("subpos_split sides are not even");
      out.assign(4, {C, a.h / 2, a.w / 2});
      break;
    case Op::Gram:
      if (in[1] != a) return geometry("gram inputs have different shapes");
      out.push_back({C, 1, C / n.groups});
      break;
    case Op::Apply:
      if (a.h != 1 || a.w != a.c / n.groups) return geometry("apply's A is not [C, 1, C/groups]");
      out.push_back({C, in[1].h, in[1].w});
      break;
    default:  // the same sides as the first input: elementwise, requantisation, normalisation, fill, ...
      out.push_back({C, a.h, a.w});
      break;
  }
  return {};
}

void plan_at_load(const Model& m) {
  auto fail = [](Refusal code, const std::string& why) { throw LoadFailure{code, 7, why}; };
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const std::string where = std::string(op_name(n.op)) + " #" + std::to_string(k) + ": ";
    std::string why;
    const std::vector<uint64_t> channels = plan_channels(m, n, why);
    if (channels.empty()) fail(Refusal::ModelMismatch, where + why);
    for (size_t i = 0; i < n.out.size(); ++i)
      if (channels[i] != m.tensors[n.out[i]].channels)
        fail(Refusal::ModelMismatch, where + "output " + std::to_string(i) + " should have " +
                                         std::to_string(channels[i]) + " channels");
  }
  if (!m.sizes_declared) {
    for (const Node& n : m.nodes)
      if (n.op == Op::Gram || n.op == Op::L2norm || n.op == Op::Softmax)
        fail(Refusal::ModelMismatch, std::string(op_name(n.op)) + " needs inputs that declare their sizes");
    return;
  }
  plan_declared_shapes(m);
}

std::vector<Shape> plan_declared_shapes(const Model& m) {
  auto fail = [](Refusal code, const std::string& why) { throw LoadFailure{code, 7, why}; };
  std::vector<Shape> shapes(m.tensors.size());
  for (const Input& in : m.inputs) {
    shapes[in.tensor] = {m.tensors[in.tensor].channels, in.max_h, in.max_w};
    if (in.max_h > uint32_t(kCap) || in.max_w > uint32_t(kCap) || elements(shapes[in.tensor]) > m.max_elems)
      fail(Refusal::TooLarge,
           "input tensor " + std::to_string(in.tensor) + " at its declared size passes the cap");
  }
  std::vector<Shape> in_shapes, out_shapes;
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const std::string where = std::string(op_name(n.op)) + " #" + std::to_string(k) + ": ";
    in_shapes.clear();
    for (uint32_t t : n.in) in_shapes.push_back(shapes[t]);
    const PlanOutcome o = plan_node(m, n, in_shapes, {}, true, out_shapes);
    if (o.code != Refusal::None)
      fail(o.code == Refusal::TooLarge ? Refusal::TooLarge : Refusal::ModelMismatch, where + o.message);
    for (size_t i = 0; i < n.out.size(); ++i) {
      if (elements(out_shapes[i]) > m.max_elems) fail(Refusal::TooLarge, where + "output passes max_elems");
      shapes[n.out[i]] = out_shapes[i];
    }
  }
  return shapes;
}

}  // namespace onemodel::wai
