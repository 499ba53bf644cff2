// The parsed form of a WHG1 graph (wai-ops/1 §10). Field names follow the format; every value here has
// passed the load checks of src/wai/whg1_reader.cc. The writer (whg1_writer.cc) turns a Model back into its
// canonical bytes, so read(write(m)) == m and write(read(b)) == b for every graph that loads.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "onemodel/wai.h"

namespace onemodel::wai {

enum class Op : uint8_t {
  Conv = 0x01,
  Rescale = 0x02,
  Chscale = 0x03,
  Lut16 = 0x04,
  Add = 0x05,
  Concat = 0x06,
  ChunkAdd = 0x07,
  Split = 0x08,
  PixelShuffle = 0x09,
  PixelUnshuffle = 0x0A,
  Clamp = 0x0B,
  Relu = 0x0C,
  Leaky = 0x0D,
  PadRep = 0x0E,
  CropTo = 0x0F,
  Mul = 0x10,
  ConvTranspose = 0x11,
  Igdn = 0x12,
  Abs = 0x13,
  Crop = 0x14,
  SubposSplit = 0x15,
  SubposMerge = 0x16,
  Fill = 0x17,
  LayernormC = 0x18,
  L2norm = 0x19,
  Softmax = 0x1A,
  Sigmoid = 0x1B,
  Elu = 0x1C,
  Gram = 0x1D,
  Apply = 0x1E,
};
constexpr uint8_t kMaxOpcode = 0x1E;

// The operator's name as §5 spells it.
const char* op_name(Op op);

enum class Round : uint8_t { Floor = 0, HalfUp = 1, HalfEven = 2 };
enum class Policy : uint8_t { Derived = 0, Clamp = 1, Check = 2 };
enum class InputKind : uint8_t { Data = 0, State = 1 };
constexpr int8_t kNoExponent = -128;

struct Scalar {
  int64_t lo = 0, hi = 0;
};

struct Input {
  uint32_t tensor = 0;
  uint32_t max_h = 0, max_w = 0;
  InputKind kind = InputKind::Data;
  uint32_t src = 0;
  int64_t init = 0;
};

struct TensorRecord {
  uint32_t channels = 1;
  int8_t exponent = kNoExponent;
  Policy policy = Policy::Derived;
  int64_t lo = 0, hi = 0;
};

// The requantisation block RQ (§5.1, §10.4). `mult` is empty (absent), one value or one per channel; `shift`
// one value or one per channel; `bias` empty or one per channel.
struct Rq {
  Round round = Round::Floor;
  uint8_t bias_place = 0;  // 0 none, 1 pre, 2 post
  uint8_t m_bytes = 0, b_bytes = 0;
  bool mult_per_channel = false, shift_per_channel = false;
  std::vector<int64_t> mult;
  std::vector<uint8_t> shift;
  std::vector<int64_t> bias;

  int64_t mult_at(size_t c) const { return mult.empty() ? 1 : mult[mult_per_channel ? c : 0]; }
  int shift_at(size_t c) const { return shift[shift_per_channel ? c : 0]; }
  int64_t pre_at(size_t c) const { return bias_place == 1 ? bias[c] : 0; }
  int64_t post_at(size_t c) const { return bias_place == 2 ? bias[c] : 0; }
};

// A constant-or-scalar operand of crop (u32 constant) and fill (i64 constant).
struct Operand {
  bool is_scalar = false;
  int64_t value = 0;  // the constant, or the scalar index
};

// One operator record. Only the fields of its opcode are meaningful (§10.4 lists them).
struct Node {
  Op op = Op::Relu;
  std::vector<uint32_t> in, out;

  // conv, conv_transpose
  uint32_t cout = 0, kh = 0, kw = 0, sh = 0, sw = 0, ph = 0, pw = 0, oph = 0, opw = 0, groups = 1;
  uint8_t w_bytes = 0;
  std::vector<int64_t> weights;
  // conv, conv_transpose, rescale, mul, gram, apply; chscale keeps its round and shift here too
  Rq rq;
  // chscale
  uint32_t scalar = 0, n_rows = 0;
  std::vector<int64_t> table_m;  // M[n_rows][C]
  // lut16
  int8_t e_in = kNoExponent, e_out = kNoExponent;
  std::vector<int16_t> lut;
  // split
  uint32_t start = 0, count = 0;
  // pixel_shuffle, pixel_unshuffle (r), pad_rep (m)
  uint32_t factor = 0;
  // clamp
  int64_t lo = 0, hi = 0;
  // leaky (a, f), elu (alpha in a)
  int64_t a = 0;
  uint32_t f = 0;
  // crop: y0, x0, h, w
  std::array<Operand, 4> crop{};
  // subpos_split, subpos_merge: each 2a + b
  std::array<uint8_t, 4> order{};
  // fill
  Operand fill{};
  // igdn (gf, frac, gamma [C][C], beta), layernorm_c (eps, gamma [C], beta), l2norm (eps)
  uint32_t gf = 0, frac = 0;
  uint8_t g_bytes = 0;
  std::vector<int64_t> gamma, beta;
  uint64_t eps = 0;
};

namespace detail {

struct Model {
  uint32_t max_elems = uint32_t(1) << 26;
  std::vector<Scalar> scalars;
  std::vector<Input> inputs;
  std::vector<uint32_t> outputs;
  std::vector<TensorRecord> tensors;
  std::vector<Node> nodes;
  bool sizes_declared = false;
};

}  // namespace detail

using Model = detail::Model;

// Thrown inside the library; Graph::load turns it into RefusalError.
struct LoadFailure {
  Refusal code;
  int step;
  std::string message;
};

// §10.5 steps 1-6 (format, tables, parameters, graph rules). Throws LoadFailure.
Model parse_whg1(std::span<const uint8_t> bytes);
// §10.5 step 7: channel counts, and shapes when the inputs declare their sizes. Throws LoadFailure.
void plan_at_load(const Model& model);
// The canonical bytes of a model (§10); the inverse of parse_whg1.
std::vector<uint8_t> write_whg1(const Model& model);

}  // namespace onemodel::wai
