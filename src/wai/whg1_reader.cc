// WHG1 parsing: the load checks of wai-ops/1 §10.5 steps 1-6, in order. Every length is checked against the
// bytes before anything is read or allocated, so an array never outgrows the file that holds it.
#include <algorithm>
#include <string>

#include "wai/bytes.h"
#include "wai/model.h"

namespace onemodel::wai {
namespace {

constexpr size_t kHeaderBytes = 32, kScalarBytes = 16, kInputBytes = 32, kOutputBytes = 4, kTensorBytes = 24;
constexpr uint32_t kCap = uint32_t(1) << 26;

[[noreturn]] void fail(int step, const std::string& message) {
  throw LoadFailure{Refusal::ModelMismatch, step, message};
}

struct Arity {
  int n_in, n_out;  // n_in = -2 means "2 or more"
};

Arity arity(Op op) {
  switch (op) {
    case Op::Add:
    case Op::CropTo:
    case Op::Mul:
    case Op::Gram:
    case Op::Apply:
      return {2, 1};
    case Op::Concat:
      return {-2, 1};
    case Op::SubposSplit:
      return {1, 4};
    case Op::SubposMerge:
      return {4, 1};
    default:
      return {1, 1};
  }
}

// Where one operator record's bytes lie; found while checking the counts against the file (step 3).
struct RecordSpan {
  size_t offset;  // of the opcode byte
  uint8_t n_in, n_out;
  uint32_t plen;
};

// The parameters of one operator (§10.4). Reading past the end, or leaving bytes unread, is a length error.
class Params {
 public:
  Params(std::span<const uint8_t> bytes, const std::string& where) : r_(bytes), where_(where) {}
  void need(uint64_t n) {
    if (n > r_.remaining()) fail(5, where_ + ": parameter length is short");
  }
  void end() {
    if (r_.remaining() != 0) fail(5, where_ + ": parameter length is long");
  }
  uint32_t u32() { return need(4), r_.u32(); }
  uint64_t u64() { return need(8), r_.u64(); }
  uint8_t u8() { return need(1), r_.u8(); }
  int64_t i(int width) { return need(width), r_.i(width); }
  void reserved(int n) {
    need(n);
    for (int k = 0; k < n; ++k)
      if (r_.u8() != 0) fail(5, where_ + ": reserved parameter byte is not zero");
  }
  std::vector<int64_t> array(uint64_t count, int width) {
    need(size_mul(count, uint64_t(width)));
    std::vector<int64_t> v(count);
    for (auto& x : v) x = r_.i(width);
    return v;
  }
  [[noreturn]] void bad(const std::string& what) { fail(5, where_ + ": " + what); }
  void require(bool ok, const char* what) {
    if (!ok) bad(what);
  }

 private:
  ByteReader r_;
  std::string where_;
};

bool is_width(uint8_t w, bool allow_small) {
  return w == 4 || w == 8 || (allow_small && (w == 1 || w == 2));
}

// The RQ block over C channels, with the restrictions some operators place on it.
struct RqRules {
  bool bias = true, mult = true, per_channel_shift = true;
};

Rq read_rq(Params& p, uint64_t channels, RqRules rules) {
  Rq rq;
  const uint8_t round = p.u8(), bias = p.u8(), m_kind = p.u8(), s_kind = p.u8();
  rq.m_bytes = p.u8();
  rq.b_bytes = p.u8();
  p.reserved(2);
  p.require(round <= 2, "RQ round is not 0, 1 or 2");
  p.require(bias <= 2, "RQ bias is not 0, 1 or 2");
  p.require(m_kind <= 2, "RQ m_kind is not 0, 1 or 2");
  p.require(s_kind == 1 || s_kind == 2, "RQ s_kind is not 1 or 2");
  p.require(m_kind == 0 ? rq.m_bytes == 0 : is_width(rq.m_bytes, false), "RQ m_bytes does not match m_kind");
  p.require(bias == 0 ? rq.b_bytes == 0 : is_width(rq.b_bytes, false), "RQ b_bytes does not match bias");
  p.require(rules.bias || bias == 0, "this operator's RQ has no bias");
  p.require(rules.mult || m_kind == 0, "this operator's RQ has no multiplier");
  p.require(rules.per_channel_shift || s_kind == 1, "this operator's RQ has one shift");
  rq.round = Round(round);
  rq.bias_place = bias;
  rq.mult_per_channel = m_kind == 2;
  rq.shift_per_channel = s_kind == 2;
  if (m_kind != 0) rq.mult = p.array(m_kind == 2 ? channels : 1, rq.m_bytes);
  for (int64_t s : p.array(s_kind == 2 ? channels : 1, 1)) {
    p.require(uint8_t(s) <= 127, "RQ shift is above 127");
    rq.shift.push_back(uint8_t(s));
  }
  if (bias != 0) rq.bias = p.array(channels, rq.b_bytes);
  return rq;
}

Operand read_crop_operand(Params& p, size_t n_scalars) {
  Operand o;
  const uint8_t kind = p.u8();
  p.reserved(3);
  p.require(kind <= 1, "crop operand kind is not 0 or 1");
  o.is_scalar = kind == 1;
  o.value = p.u32();
  p.require(!o.is_scalar || uint64_t(o.value) < n_scalars, "crop operand names a scalar that does not exist");
  return o;
}

void read_params(Node& n, Params& p, const Model& m) {
  const uint64_t cin = m.tensors[n.in[0]].channels;
  switch (n.op) {
    case Op::Conv:
    case Op::ConvTranspose: {
      const bool conv = n.op == Op::Conv;
      n.cout = p.u32(), n.kh = p.u32(), n.kw = p.u32(), n.sh = p.u32(), n.sw = p.u32();
      n.ph = p.u32(), n.pw = p.u32();
      if (conv) {
        n.groups = p.u32();
      } else {
        n.oph = p.u32(), n.opw = p.u32();
      }
      n.w_bytes = p.u8();
      p.reserved(3);
      p.require(n.cout >= 1 && n.kh >= 1 && n.kw >= 1 && n.sh >= 1 && n.sw >= 1,
                "cout, kernel and stride must be at least 1");
      p.require(n.groups >= 1, "groups must be at least 1");
      // The weight layout is defined only when groups divides both channel counts.
      p.require(cin % n.groups == 0 && n.cout % n.groups == 0, "groups does not divide cin and cout");
      p.require(is_width(n.w_bytes, true), "w_bytes is not 1, 2, 4 or 8");
      n.rq = read_rq(p, n.cout, {});
      const uint64_t per_out = conv ? cin / n.groups : cin;
      n.weights = p.array(size_mul(size_mul(size_mul(per_out, n.cout), n.kh), n.kw), n.w_bytes);
      break;
    }
    case Op::Rescale:
      n.rq = read_rq(p, cin, {});
      break;
    case Op::Mul:
      n.rq = read_rq(p, cin, {.bias = false});
      break;
    case Op::Gram:
    case Op::Apply:
      n.groups = p.u32();
      p.require(n.groups >= 1, "groups must be at least 1");
      n.rq = read_rq(p, cin, {.bias = false, .mult = false, .per_channel_shift = false});
      break;
    case Op::Chscale: {
      n.scalar = p.u32(), n.n_rows = p.u32();
      const uint8_t round = p.u8();
      n.rq.m_bytes = p.u8();
      const uint8_t shift = p.u8();
      p.reserved(1);
      p.require(n.scalar < m.scalars.size(), "chscale names a scalar that does not exist");
      p.require(n.n_rows >= 1, "chscale has no rows");
      p.require(round <= 2, "chscale round is not 0, 1 or 2");
      p.require(is_width(n.rq.m_bytes, false), "chscale m_bytes is not 4 or 8");
      p.require(shift <= 127, "chscale shift is above 127");
      const Scalar& s = m.scalars[n.scalar];
      p.require(s.lo >= 0 && s.hi <= int64_t(n.n_rows) - 1, "chscale's scalar range is not within its rows");
      n.rq.round = Round(round);
      n.rq.shift = {shift};
      n.table_m = p.array(size_mul(n.n_rows, cin), n.rq.m_bytes);
      break;
    }
    case Op::Lut16: {
      n.e_in = int8_t(p.i(1)), n.e_out = int8_t(p.i(1));
      p.reserved(2);
      const auto t = p.array(65536, 2);
      n.lut.assign(t.begin(), t.end());
      p.require(n.lut[0] == 0, "lut16 table entry 0 is not 0");
      break;
    }
    case Op::Split:
      n.start = p.u32(), n.count = p.u32();
      p.require(n.count >= 1, "split count must be at least 1");
      break;
    case Op::PixelShuffle:
    case Op::PixelUnshuffle:
    case Op::PadRep:
      n.factor = p.u32();
      p.require(n.factor >= 1, "the factor must be at least 1");
      break;
    case Op::Clamp:
      n.lo = p.i(8), n.hi = p.i(8);
      p.require(n.lo <= n.hi, "clamp lo is above hi");
      break;
    case Op::Leaky:
      n.a = p.i(8), n.f = p.u32();
      p.require(n.f <= 63, "leaky f is above 63");
      break;
    case Op::Crop:
      for (auto& o : n.crop) o = read_crop_operand(p, m.scalars.size());
      // A constant length of 0 can never plan; it is a parameter out of range.
      p.require(
          (n.crop[2].is_scalar || n.crop[2].value >= 1) && (n.crop[3].is_scalar || n.crop[3].value >= 1),
          "crop constant h and w must be at least 1");
      break;
    case Op::SubposSplit:
    case Op::SubposMerge: {
      unsigned seen = 0;
      for (auto& o : n.order) {
        o = p.u8();
        if (o <= 3) seen |= 1u << o;
      }
      p.require(seen == 0xF, "order is not a permutation of 0..3");
      break;
    }
    case Op::Fill: {
      const uint8_t kind = p.u8();
      p.reserved(7);
      n.fill.value = p.i(8);
      p.require(kind <= 1, "fill kind is not 0 or 1");
      n.fill.is_scalar = kind == 1;
      p.require(!n.fill.is_scalar || (n.fill.value >= 0 && uint64_t(n.fill.value) < m.scalars.size()),
                "fill names a scalar that does not exist");
      break;
    }
    case Op::Igdn:
      n.gf = p.u32(), n.frac = p.u32();
      n.g_bytes = p.u8();
      p.reserved(7);
      p.require(n.gf <= 127 && n.frac <= 127, "igdn gf and frac must be at most 127");
      p.require(is_width(n.g_bytes, false), "g_bytes is not 4 or 8");
      n.gamma = p.array(size_mul(cin, cin), n.g_bytes);
      n.beta = p.array(cin, 8);
      break;
    case Op::LayernormC:
      n.eps = p.u64();
      n.g_bytes = p.u8();
      p.reserved(7);
      p.require(n.eps >= 1, "epsilon must be at least 1");
      p.require(is_width(n.g_bytes, false), "g_bytes is not 4 or 8");
      n.gamma = p.array(cin, n.g_bytes);
      n.beta = p.array(cin, 8);
      break;
    case Op::L2norm:
      n.eps = p.u64();
      p.require(n.eps >= 1, "epsilon must be at least 1");
      break;
    case Op::Elu:
      n.a = p.i(8);
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
  p.end();
}

// §10.3, with the exponent rules of §3 and §5.6.
void check_graph_rules(const Model& m) {
  const size_t nt = m.tensors.size();
  std::vector<int> defined_by(nt, -2);  // -2 undefined, -1 graph input, else the producing node
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const Input& in = m.inputs[i];
    if (defined_by[in.tensor] != -2) fail(6, "two input records name tensor " + std::to_string(in.tensor));
    defined_by[in.tensor] = -1;
    const TensorRecord& t = m.tensors[in.tensor];
    if (t.policy == Policy::Derived) fail(6, "input " + std::to_string(i) + " has the policy derived");
  }
  if (m.inputs[0].kind != InputKind::Data) fail(6, "input 0 is a state input");
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const std::string where = std::string(op_name(n.op)) + " #" + std::to_string(k);
    for (uint32_t t : n.in)
      if (defined_by[t] == -2)
        fail(6, where + " reads tensor " + std::to_string(t) + " before it is defined");
    for (uint32_t t : n.out) {
      if (defined_by[t] == -1) fail(6, where + " writes graph input tensor " + std::to_string(t));
      if (defined_by[t] != -2) fail(6, where + " writes tensor " + std::to_string(t) + " a second time");
      defined_by[t] = int(k);
    }
  }
  for (size_t t = 0; t < nt; ++t)
    if (defined_by[t] == -2) fail(6, "tensor " + std::to_string(t) + " is neither an input nor an output");
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const Input& in = m.inputs[i];
    if (in.kind != InputKind::State) continue;
    const std::string where = "state input " + std::to_string(i);
    if (in.src >= m.outputs.size()) fail(6, where + ": src is not an output");
    const TensorRecord& self = m.tensors[in.tensor];
    if (m.tensors[m.outputs[in.src]].channels != self.channels)
      fail(6, where + ": its source output has another channel count");
    if (in.init < self.lo || in.init > self.hi) fail(6, where + ": init is outside its range");
  }
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const std::string where = std::string(op_name(n.op)) + " #" + std::to_string(k);
    if (n.op == Op::Add || n.op == Op::Concat || n.op == Op::ChunkAdd) {
      std::vector<uint32_t> all = n.in;
      all.push_back(n.out[0]);
      const int8_t e0 = m.tensors[all[0]].exponent;
      for (uint32_t t : all)
        if (m.tensors[t].exponent != e0) fail(6, where + ": exponents differ");
    } else if (n.op == Op::Lut16) {
      if (n.e_in != m.tensors[n.in[0]].exponent || n.e_out != m.tensors[n.out[0]].exponent)
        fail(6, where + ": e_in or e_out does not match its tensor's exponent");
    }
  }
}

}  // namespace

Model parse_whg1(std::span<const uint8_t> bytes) {
  Model m;
  // Step 1: magic, version and operator set.
  if (bytes.size() < 6 || std::memcmp(bytes.data(), "WHG1", 4) != 0) fail(1, "not a WHG1 file");
  if (bytes[4] != 1) fail(1, "version is not 1");
  if (bytes[5] != 1) fail(1, "operator set is not 1");
  // Step 2: the header's reserved fields (a shorter file has no header to check).
  if (bytes.size() < kHeaderBytes) fail(2, "the header is cut short");
  ByteReader h(bytes);
  h.skip(6);
  const uint16_t reserved_a = h.u16();
  const uint32_t n_tensors = h.u32(), n_ops = h.u32();
  const uint16_t n_inputs = h.u16(), n_outputs = h.u16(), n_scalars = h.u16(), reserved_b = h.u16();
  m.max_elems = h.u32();
  const uint32_t reserved_c = h.u32();
  if (reserved_a != 0 || reserved_b != 0 || reserved_c != 0) fail(2, "a reserved header field is not zero");
  // Step 3: the counts, against the file's length.
  if (n_tensors < 1 || n_ops < 1 || n_inputs < 1 || n_outputs < 1) fail(3, "a table count is zero");
  if (m.max_elems < 1 || m.max_elems > kCap) fail(3, "max_elems is not in 1..2^26");
  uint64_t pos = kHeaderBytes + uint64_t(n_scalars) * kScalarBytes + uint64_t(n_inputs) * kInputBytes +
                 uint64_t(n_outputs) * kOutputBytes + uint64_t(n_tensors) * kTensorBytes;
  if (pos > bytes.size()) fail(3, "the tables run past the end of the file");
  std::vector<RecordSpan> spans;
  spans.reserve(std::min<uint64_t>(n_ops, (bytes.size() - pos) / 8 + 1));
  for (uint32_t k = 0; k < n_ops; ++k) {
    if (bytes.size() - pos < 4) fail(3, "operator " + std::to_string(k) + " runs past the end of the file");
    RecordSpan s{size_t(pos), bytes[pos + 1], bytes[pos + 2], 0};
    const uint64_t plen_at = pos + 4 + 4 * uint64_t(s.n_in + s.n_out);
    if (plen_at + 4 > bytes.size())
      fail(3, "operator " + std::to_string(k) + " runs past the end of the file");
    ByteReader pr(bytes.subspan(plen_at, 4));
    s.plen = pr.u32();
    pos = plen_at + 4 + s.plen;
    if (pos > bytes.size())
      fail(3, "operator " + std::to_string(k) + " parameters run past the end of the file");
    spans.push_back(s);
  }
  if (pos != bytes.size()) fail(3, "bytes follow the last operator");

  // Step 4: each table's records.
  ByteReader r(bytes);
  r.skip(kHeaderBytes);
  for (uint16_t i = 0; i < n_scalars; ++i) {
    Scalar s{r.i64(), r.i64()};
    if (s.lo > s.hi) fail(4, "scalar " + std::to_string(i) + ": lo is above hi");
    m.scalars.push_back(s);
  }
  for (uint16_t i = 0; i < n_inputs; ++i) {
    const std::string where = "input " + std::to_string(i);
    Input in;
    in.tensor = r.u32(), in.max_h = r.u32(), in.max_w = r.u32();
    const uint8_t kind = r.u8();
    const uint32_t res3 = uint32_t(r.u(3));
    in.src = r.u32();
    const uint32_t res4 = r.u32();
    in.init = r.i64();
    if (res3 != 0 || res4 != 0) fail(4, where + ": a reserved field is not zero");
    if (in.tensor >= n_tensors) fail(4, where + ": tensor index is out of range");
    if ((in.max_h == 0) != (in.max_w == 0)) fail(4, where + ": only one of max_h and max_w is declared");
    if (kind > 1) fail(4, where + ": kind is not 0 or 1");
    in.kind = InputKind(kind);
    if (in.kind == InputKind::Data && (in.src != 0 || in.init != 0))
      fail(4, where + ": data input has src or init");
    m.inputs.push_back(in);
  }
  m.sizes_declared = m.inputs[0].max_h != 0;
  for (const Input& in : m.inputs)
    if ((in.max_h != 0) != m.sizes_declared) fail(4, "some inputs declare their sizes and some do not");
  for (uint16_t i = 0; i < n_outputs; ++i) {
    m.outputs.push_back(r.u32());
    if (m.outputs.back() >= n_tensors)
      fail(4, "output " + std::to_string(i) + ": tensor index is out of range");
  }
  m.tensors.reserve(n_tensors);
  for (uint32_t i = 0; i < n_tensors; ++i) {
    const std::string where = "tensor " + std::to_string(i);
    TensorRecord t;
    t.channels = r.u32();
    t.exponent = int8_t(r.i(1));
    const uint8_t policy = r.u8();
    const uint16_t res = r.u16();
    t.lo = r.i64(), t.hi = r.i64();
    if (res != 0) fail(4, where + ": a reserved field is not zero");
    if (t.channels < 1) fail(4, where + ": no channels");
    if (policy > 2) fail(4, where + ": policy is not 0, 1 or 2");
    t.policy = Policy(policy);
    if (t.policy == Policy::Derived ? (t.lo != 0 || t.hi != 0) : t.lo > t.hi)
      fail(4, where + (t.policy == Policy::Derived ? ": derived with a range" : ": lo is above hi"));
    m.tensors.push_back(t);
  }

  // Step 5: each operator's opcode, arity, parameter length and parameter ranges.
  m.nodes.reserve(spans.size());
  for (size_t k = 0; k < spans.size(); ++k) {
    const RecordSpan& s = spans[k];
    ByteReader o(bytes.subspan(s.offset));
    const uint8_t opcode = o.u8();
    o.skip(2);
    const uint8_t reserved = o.u8();
    std::string where = "operator " + std::to_string(k);
    if (opcode < 1 || opcode > kMaxOpcode) fail(5, where + ": unknown opcode " + std::to_string(opcode));
    Node n;
    n.op = Op(opcode);
    where = std::string(op_name(n.op)) + " #" + std::to_string(k);
    if (reserved != 0) fail(5, where + ": reserved byte is not zero");
    const Arity a = arity(n.op);
    if ((a.n_in == -2 ? s.n_in < 2 : s.n_in != a.n_in) || s.n_out != a.n_out)
      fail(5, where + ": wrong arity");
    for (int i = 0; i < s.n_in; ++i) n.in.push_back(o.u32());
    for (int i = 0; i < s.n_out; ++i) n.out.push_back(o.u32());
    for (uint32_t t : n.in)
      if (t >= n_tensors) fail(5, where + ": input tensor index is out of range");
    for (uint32_t t : n.out)
      if (t >= n_tensors) fail(5, where + ": output tensor index is out of range");
    o.skip(4);
    Params p(bytes.subspan(o.pos() + s.offset, s.plen), where);
    read_params(n, p, m);
    m.nodes.push_back(std::move(n));
  }
  // Step 6: the graph rules.
  check_graph_rules(m);
  return m;
}

const char* op_name(Op op) {
  static const char* const kNames[] = {"?",
                                       "conv",
                                       "rescale",
                                       "chscale",
                                       "lut16",
                                       "add",
                                       "concat",
                                       "chunk_add",
                                       "split",
                                       "pixel_shuffle",
                                       "pixel_unshuffle",
                                       "clamp",
                                       "relu",
                                       "leaky",
                                       "pad_rep",
                                       "crop_to",
                                       "mul",
                                       "conv_transpose",
                                       "igdn",
                                       "abs",
                                       "crop",
                                       "subpos_split",
                                       "subpos_merge",
                                       "fill",
                                       "layernorm_c",
                                       "l2norm",
                                       "softmax",
                                       "sigmoid",
                                       "elu",
                                       "gram",
                                       "apply"};
  const unsigned i = unsigned(op);
  return i <= kMaxOpcode ? kNames[i] : "?";
}

}  // namespace onemodel::wai
