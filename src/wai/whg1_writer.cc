// The canonical WHG1 bytes of a model (wai-ops/1 §10): every reserved field zero, every parameter in the
// width and kind (one value or per channel) the model records.
#include "wai/bytes.h"
#include "wai/model.h"

namespace onemodel::wai {
namespace {

void write_rq(ByteWriter& w, const Rq& rq) {
  w.u(uint8_t(rq.round), 1);
  w.u(rq.bias_place, 1);
  w.u(rq.mult.empty() ? 0 : rq.mult_per_channel ? 2 : 1, 1);
  w.u(rq.shift_per_channel ? 2 : 1, 1);
  w.u(rq.m_bytes, 1);
  w.u(rq.b_bytes, 1);
  w.zeros(2);
  for (int64_t v : rq.mult) w.i(v, rq.m_bytes);
  for (uint8_t s : rq.shift) w.u(s, 1);
  for (int64_t v : rq.bias) w.i(v, rq.b_bytes);
}

void write_params(ByteWriter& w, const Node& n) {
  switch (n.op) {
    case Op::Conv:
    case Op::ConvTranspose:
      for (uint32_t v : {n.cout, n.kh, n.kw, n.sh, n.sw, n.ph, n.pw}) w.u(v, 4);
      if (n.op == Op::Conv) {
        w.u(n.groups, 4);
      } else {
        w.u(n.oph, 4), w.u(n.opw, 4);
      }
      w.u(n.w_bytes, 1);
      w.zeros(3);
      write_rq(w, n.rq);
      for (int64_t v : n.weights) w.i(v, n.w_bytes);
      break;
    case Op::Rescale:
    case Op::Mul:
      write_rq(w, n.rq);
      break;
    case Op::Gram:
    case Op::Apply:
      w.u(n.groups, 4);
      write_rq(w, n.rq);
      break;
    case Op::Chscale:
      w.u(n.scalar, 4), w.u(n.n_rows, 4);
      w.u(uint8_t(n.rq.round), 1), w.u(n.rq.m_bytes, 1), w.u(n.rq.shift[0], 1);
      w.zeros(1);
      for (int64_t v : n.table_m) w.i(v, n.rq.m_bytes);
      break;
    case Op::Lut16:
      w.i(n.e_in, 1), w.i(n.e_out, 1);
      w.zeros(2);
      for (int16_t v : n.lut) w.i(v, 2);
      break;
    case Op::Split:
      w.u(n.start, 4), w.u(n.count, 4);
      break;
    case Op::PixelShuffle:
    case Op::PixelUnshuffle:
    case Op::PadRep:
      w.u(n.factor, 4);
      break;
    case Op::Clamp:
      w.i(n.lo, 8), w.i(n.hi, 8);
      break;
    case Op::Leaky:
      w.i(n.a, 8), w.u(n.f, 4);
      break;
    case Op::Crop:
      for (const Operand& o : n.crop) {
        w.u(o.is_scalar ? 1 : 0, 1);
        w.zeros(3);
        w.u(uint64_t(o.value), 4);
      }
      break;
    case Op::SubposSplit:
    case Op::SubposMerge:
      for (uint8_t o : n.order) w.u(o, 1);
      break;
    case Op::Fill:
      w.u(n.fill.is_scalar ? 1 : 0, 1);
      w.zeros(7);
      w.i(n.fill.value, 8);
      break;
    case Op::Igdn:
    case Op::LayernormC:
      if (n.op == Op::Igdn) {
        w.u(n.gf, 4), w.u(n.frac, 4);
      } else {
        w.u(n.eps, 8);
      }
      w.u(n.g_bytes, 1);
      w.zeros(7);
      for (int64_t v : n.gamma) w.i(v, n.g_bytes);
      for (int64_t v : n.beta) w.i(v, 8);
      break;
    case Op::L2norm:
      w.u(n.eps, 8);
      break;
    case Op::Elu:
      w.i(n.a, 8);
      break;
    case Op::Add:
    case Op::Concat:
    case Op::ChunkAdd:
    case Op::Relu:
    case Op::Abs:
    case Op::CropTo:
    case Op::Softmax:
    case Op::Sigmoid:
      break;
  }
}

}  // namespace

std::vector<uint8_t> write_whg1(const Model& m) {
  ByteWriter w;
  w.u('W', 1), w.u('H', 1), w.u('G', 1), w.u('1', 1);
  w.u(1, 1), w.u(1, 1), w.zeros(2);
  w.u(m.tensors.size(), 4), w.u(m.nodes.size(), 4);
  w.u(m.inputs.size(), 2), w.u(m.outputs.size(), 2), w.u(m.scalars.size(), 2);
  w.zeros(2);
  w.u(m.max_elems, 4);
  w.zeros(4);
  for (const Scalar& s : m.scalars) w.i(s.lo, 8), w.i(s.hi, 8);
  for (const Input& in : m.inputs) {
    w.u(in.tensor, 4), w.u(in.max_h, 4), w.u(in.max_w, 4);
    w.u(uint8_t(in.kind), 1);
    w.zeros(3);
    w.u(in.src, 4);
    w.zeros(4);
    w.i(in.init, 8);
  }
  for (uint32_t t : m.outputs) w.u(t, 4);
  for (const TensorRecord& t : m.tensors) {
    w.u(t.channels, 4);
    w.i(t.exponent, 1);
    w.u(uint8_t(t.policy), 1);
    w.zeros(2);
    w.i(t.lo, 8), w.i(t.hi, 8);
  }
  for (const Node& n : m.nodes) {
    w.u(uint8_t(n.op), 1), w.u(n.in.size(), 1), w.u(n.out.size(), 1);
    w.zeros(1);
    for (uint32_t t : n.in) w.u(t, 4);
    for (uint32_t t : n.out) w.u(t, 4);
    const size_t plen_at = w.size();
    w.zeros(4);
    write_params(w, n);
    const uint64_t plen = w.size() - plen_at - 4;
    for (int i = 0; i < 4; ++i) w.bytes()[plen_at + i] = uint8_t(plen >> (8 * i));
  }
  return std::move(w.bytes());
}

}  // namespace onemodel::wai
