// RNN, GRU and LSTM (ops-recurrent.md): one engine for the three cells. Per direction, the input projections
// of all steps are one GEMM; each step forms the recurrent product of the whole batch with a second GEMM and
// then runs the gate arithmetic row by row, one rounding per written operation. Constant W and R are packed
// once per plan.
#include <algorithm>
#include <cstring>
#include <string>

#include "graph/ops/linalg/product.h"
#include "graph/ops/recurrent/activation.h"
#include "graph/ops/recurrent/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

enum class Cell { Rnn, Gru, Lstm };
enum class Direction { Forward, Reverse, Bidirectional };

// Input positions, in the specification's order.
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kSeqLens = 4, kInitialH = 5, kInitialC = 6, kP = 7;

constexpr int64_t kMaxScratchFloats = int64_t{1} << 30;

struct Dims {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 0;
};

// Constant weights packed for the plan's kernels, per direction: Wᵀ, Rᵀ (for GRU without
// linear_before_reset only the z and r columns) and the GRU candidate's Rhᵀ.
struct PackedWeights {
  std::vector<std::shared_ptr<const PackedWeight>> w, r, rh;
};

// Clamps to [-limit, limit]; a NaN passes through.
inline float clamp(float v, float limit) {
  return v < -limit ? -limit : (v > limit ? limit : v);
}

class Recurrent final : public OpKernel {
 public:
  Recurrent(Cell cell, const NodeInfo& node) : cell_(cell) {
    supports_exact = true;
    gates_ = cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1;
    const std::string direction = node.get_string("direction", "forward");
    if (direction == "forward") {
      direction_ = Direction::Forward;
    } else if (direction == "reverse") {
      direction_ = Direction::Reverse;
    } else if (direction == "bidirectional") {
      direction_ = Direction::Bidirectional;
    } else {
      node.fail("direction '" + direction + "' is not forward, reverse or bidirectional");
    }
    hidden_size_ = node.get_int("hidden_size", -1);
    if (node.find("hidden_size") != nullptr && hidden_size_ <= 0) node.fail("hidden_size must be positive");
    layout_ = node.get_int("layout", 0);
    if (layout_ != 0 && layout_ != 1) node.fail("layout must be 0 or 1");
    const float clip = node.get_float("clip", 0.0f);
    if (node.find("clip") != nullptr && clip > 0.0f) clip_ = clip;
    input_forget_ = cell == Cell::Lstm && node.get_int("input_forget", 0) != 0;
    linear_before_reset_ = cell == Cell::Gru && node.get_int("linear_before_reset", 0) != 0;
    using K = Activation::Kind;
    const size_t dirs = direction_ == Direction::Bidirectional ? 2 : 1;
    switch (cell) {
      case Cell::Rnn:
        per_direction_ = 1;
        activations_ = parse_activations(node, 1, dirs, {K::Tanh});
        break;
      case Cell::Gru:
        per_direction_ = 2;
        activations_ = parse_activations(node, 2, dirs, {K::Sigmoid, K::Tanh});
        break;
      case Cell::Lstm:
        per_direction_ = 3;
        activations_ = parse_activations(node, 3, dirs, {K::Sigmoid, K::Tanh, K::Tanh});
        break;
    }
  }

  void infer(InferContext& ctx) const override {
    const char* name = cell_ == Cell::Lstm ? "LSTM" : cell_ == Cell::Gru ? "GRU" : "RNN";
    for (size_t i : {kX, kW, kR, kB, kInitialH, kInitialC, kP}) {
      if (i < ctx.num_inputs() && ctx.has_input(i) && ctx.input_dtype(i) != DType::F32) {
        ctx.node().unsupported(std::string(name) + ": element type " +
                               std::string(dtype_name(ctx.input_dtype(i))) + " is not supported");
      }
    }
    const Shape& x = ctx.input_shape(kX);
    const Shape& w = ctx.input_shape(kW);
    const Shape& r = ctx.input_shape(kR);
    if (x.rank != 3) ctx.fail("X must have rank 3, got " + x.str());
    if (w.rank != 3 || r.rank != 3) ctx.fail("W and R must have rank 3, got " + w.str() + " and " + r.str());
    Dims d;
    d.seq = layout_ == 0 ? x[0] : x[1];
    d.batch = layout_ == 0 ? x[1] : x[0];
    d.input = x[2];
    d.hidden = r[2];
    d.dirs = direction_ == Direction::Bidirectional ? 2 : 1;
    if (d.hidden == 0) ctx.fail("hidden size is zero");
    if (hidden_size_ >= 0 && hidden_size_ != d.hidden) {
      ctx.fail("hidden_size " + std::to_string(hidden_size_) + " differs from R's " + r.str());
    }
    const int64_t gh = gates_ * d.hidden;
    if (w[0] != d.dirs || w[1] != gh || w[2] != d.input)
      ctx.fail("W " + w.str() + " does not match X " + x.str() + " and R " + r.str());
    if (r[0] != d.dirs || r[1] != gh) ctx.fail("R " + r.str() + " does not match the direction or gates");
    auto expect = [&](size_t i, const Shape& want, const char* what) {
      if (i < ctx.num_inputs() && ctx.has_input(i) && ctx.input_shape(i) != want)
        ctx.fail(std::string(what) + " must be " + want.str() + ", got " + ctx.input_shape(i).str());
    };
    const Shape state = layout_ == 0 ? Shape{d.dirs, d.batch, d.hidden} : Shape{d.batch, d.dirs, d.hidden};
    expect(kB, Shape{d.dirs, 2 * gh}, "B");
    expect(kSeqLens, Shape{d.batch}, "sequence_lens");
    expect(kInitialH, state, "initial_h");
    if (cell_ == Cell::Lstm) {
      expect(kInitialC, state, "initial_c");
      expect(kP, Shape{d.dirs, 3 * d.hidden}, "P");
    }
    if (ctx.num_inputs() > kSeqLens && ctx.has_input(kSeqLens)) {
      const DType t = ctx.input_dtype(kSeqLens);
      if (t != DType::I32 && t != DType::I64) ctx.fail("sequence_lens must be int32");
    }
    const int64_t floats = scratch_floats(d);
    if (floats < 0 || floats >= kMaxScratchFloats)
      ctx.node().unsupported(std::string(name) + ": the layer needs too much scratch");
    const Shape y =
        layout_ == 0 ? Shape{d.seq, d.dirs, d.batch, d.hidden} : Shape{d.batch, d.seq, d.dirs, d.hidden};
    const std::string problem = shape_problem(y.span(), sizeof(float));
    if (!problem.empty()) ctx.fail("Y: " + problem);
    ctx.set_output(0, DType::F32, y);
    for (size_t o = 1; o < ctx.num_outputs(); ++o) ctx.set_output(o, DType::F32, state);
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const TensorRef* w = ctx.input_value(kW);
    const TensorRef* r = ctx.input_value(kR);
    if (w == nullptr && r == nullptr) return nullptr;
    const Shape& ws = ctx.input_shape(kW);
    const int64_t dirs = ws[0], gh = ws[1], input = ws[2], hidden = ctx.input_shape(kR)[2];
    auto packed = std::make_shared<PackedWeights>();
    for (int64_t d = 0; d < dirs; ++d) {
      if (w != nullptr)
        packed->w.push_back(pack_weight(ctx, w->as<const float>() + d * gh * input, 1, input, input, gh));
      if (r == nullptr) continue;
      const float* rd = r->as<const float>() + d * gh * hidden;
      packed->r.push_back(pack_weight(ctx, rd, 1, hidden, hidden, recurrent_columns(hidden)));
      if (split_candidate())
        packed->rh.push_back(pack_weight(ctx, rd + 2 * hidden * hidden, 1, hidden, hidden, hidden));
    }
    return packed;
  }

  void run(const OpRun& run) const override;

 private:
  // GRU without linear_before_reset forms the candidate's recurrent product separately, after r is known.
  bool split_candidate() const { return cell_ == Cell::Gru && !linear_before_reset_; }
  int64_t recurrent_columns(int64_t hidden) const { return split_candidate() ? 2 * hidden : gates_ * hidden; }

  // Floats of the run's buffers besides GEMM packing scratch; -1 on overflow.
  int64_t scratch_floats(const Dims& d) const {
    const int64_t gh = gates_ * d.hidden;
    int64_t rows = 0;
    if (__builtin_mul_overflow(d.seq, d.batch, &rows)) return -1;
    int64_t xw = 0;
    if (__builtin_mul_overflow(rows, gh, &xw)) return -1;
    const int64_t state = d.batch * d.hidden;
    return xw + d.batch * gh + 4 * state + 2 * d.hidden;
  }

  void run_direction(const OpRun& run, const Dims& d, int64_t dir, const int64_t* lengths,
                     float* const* buffers, float* const* gemm_scratch) const;

  Cell cell_;
  Direction direction_ = Direction::Forward;
  int64_t gates_ = 1, hidden_size_ = -1, layout_ = 0;
  float clip_ = 0.0f;  // 0: no clipping
  bool input_forget_ = false, linear_before_reset_ = false;
  size_t per_direction_ = 1;
  std::vector<Activation> activations_;  // per_direction_ per direction
};

// Scratch buffer indices.
enum Buffer { kXw, kRec, kH, kC, kRh, kRecH, kTemp1, kTemp2, kBufferCount };
enum GemmScratch { kGemmX, kGemmRec, kGemmRecH, kGemmCount };

void Recurrent::run(const OpRun& run) const {
  const TensorRef& x = run.inputs[kX];
  Dims d;
  d.seq = layout_ == 0 ? x.shape[0] : x.shape[1];
  d.batch = layout_ == 0 ? x.shape[1] : x.shape[0];
  d.input = x.shape[2];
  d.hidden = run.inputs[kR].shape[2];
  d.dirs = direction_ == Direction::Bidirectional ? 2 : 1;
  const int64_t gh = gates_ * d.hidden;

  // Row lengths, checked before anything is written.
  int64_t* lengths = run.scratch->allocate_array<int64_t>(static_cast<size_t>(std::max<int64_t>(d.batch, 1)));
  for (int64_t b = 0; b < d.batch; ++b) {
    lengths[b] = d.seq;
    if (!run.has_input(kSeqLens)) continue;
    const TensorRef& lens = run.inputs[kSeqLens];
    lengths[b] = lens.dtype == DType::I32 ? lens.as<const int32_t>()[b] : lens.as<const int64_t>()[b];
    if (lengths[b] < 0 || lengths[b] > d.seq) {
      const std::string node = run.node != nullptr ? run.node->display_name() : std::string();
      const std::string op = run.node != nullptr ? run.node->node().op_type : std::string("recurrent");
      throw SessionError(SessionError::Kind::InvalidInput,
                         op + " node '" + node + "': sequence_lens[" + std::to_string(b) + "] = " +
                             std::to_string(lengths[b]) + " is outside [0, " + std::to_string(d.seq) + "]",
                         node);
    }
  }
  if (d.batch == 0) return;

  const int64_t state = d.batch * d.hidden;
  const int64_t cell_state = cell_ == Cell::Lstm ? state : 0, candidate = split_candidate() ? state : 0;
  const int64_t sizes[kBufferCount] = {
      d.seq * d.batch * gh, d.batch * gh, state, cell_state, candidate, candidate, d.hidden, d.hidden};
  float* buffers[kBufferCount];
  for (int i = 0; i < kBufferCount; ++i)
    buffers[i] = run.scratch->allocate_array<float>(static_cast<size_t>(std::max<int64_t>(sizes[i], 1)));

  const auto* packed = static_cast<const PackedWeights*>(run.state);
  const bool packed_w = packed != nullptr && !packed->w.empty();
  const bool packed_r = packed != nullptr && !packed->r.empty();
  GemmArgs shapes[kGemmCount];
  shapes[kGemmX].m = d.seq * d.batch, shapes[kGemmX].n = gh, shapes[kGemmX].k = d.input;
  shapes[kGemmRec].m = d.batch, shapes[kGemmRec].n = recurrent_columns(d.hidden),
  shapes[kGemmRec].k = d.hidden;
  shapes[kGemmRecH].m = d.batch, shapes[kGemmRecH].n = d.hidden, shapes[kGemmRecH].k = d.hidden;
  float* gemm[kGemmCount];
  gemm[kGemmX] = gemm_scratch(run, shapes[kGemmX], packed_w ? packed->w[0].get() : nullptr);
  gemm[kGemmRec] = gemm_scratch(run, shapes[kGemmRec], packed_r ? packed->r[0].get() : nullptr);
  gemm[kGemmRecH] = split_candidate()
                        ? gemm_scratch(run, shapes[kGemmRecH], packed_r ? packed->rh[0].get() : nullptr)
                        : nullptr;

  for (int64_t dir = 0; dir < d.dirs; ++dir) run_direction(run, d, dir, lengths, buffers, gemm);
}

void Recurrent::run_direction(const OpRun& run, const Dims& d, int64_t dir, const int64_t* lengths,
                              float* const* buffers, float* const* gemm) const {
  const int64_t H = d.hidden, gh = gates_ * H;
  const bool reverse =
      direction_ == Direction::Reverse || (direction_ == Direction::Bidirectional && dir == 1);
  const bool lstm = cell_ == Cell::Lstm;
  const auto* packed = static_cast<const PackedWeights*>(run.state);
  const PackedWeight* packed_w = packed != nullptr && !packed->w.empty() ? packed->w[dir].get() : nullptr;
  const PackedWeight* packed_r = packed != nullptr && !packed->r.empty() ? packed->r[dir].get() : nullptr;
  const PackedWeight* packed_rh = packed != nullptr && !packed->rh.empty() ? packed->rh[dir].get() : nullptr;
  const float* w = run.inputs[kW].as<const float>() + dir * gh * d.input;
  const float* r = run.inputs[kR].as<const float>() + dir * gh * H;
  const float* wb = run.has_input(kB) ? run.inputs[kB].as<const float>() + dir * 2 * gh : nullptr;
  const float* rb = wb != nullptr ? wb + gh : nullptr;
  const float* peep = lstm && run.has_input(kP) ? run.inputs[kP].as<const float>() + dir * 3 * H : nullptr;
  const Activation* act = &activations_[static_cast<size_t>(dir) * per_direction_];
  float* xw = buffers[kXw];
  float* rec = buffers[kRec];
  float* h = buffers[kH];
  float* c = buffers[kC];
  float* temp1 = buffers[kTemp1];
  float* temp2 = buffers[kTemp2];
  const KernelTable& kernels = *run.kernels;
  const bool exact = run.exact;

  auto state_offset = [&](int64_t b) { return (layout_ == 0 ? dir * d.batch + b : b * d.dirs + dir) * H; };
  auto x_row = [&](int64_t t, int64_t b) { return layout_ == 0 ? t * d.batch + b : b * d.seq + t; };
  auto clip = [&](float* v, int64_t n) {
    if (clip_ > 0.0f)
      for (int64_t j = 0; j < n; ++j) v[j] = clamp(v[j], clip_);
  };
  auto activate = [&](const Activation& a, float* v) {
    a.apply(kernels, exact, v, temp2, static_cast<size_t>(H));
  };
  // pre = ((xw + rec) + Wb) + Rb over the `n` gate columns from `first`; `recurrent` holds those columns.
  auto pre_activation = [&](float* pre, const float* recurrent, int64_t first, int64_t n) {
    for (int64_t k = 0; k < n; ++k) {
      float v = pre[first + k] + recurrent[k];
      if (wb != nullptr) v = (v + wb[first + k]) + rb[first + k];
      pre[first + k] = v;
    }
  };

  // Input projections of every step: XW = X · Wᵀ.
  GemmArgs proj;
  proj.m = d.seq * d.batch, proj.n = gh, proj.k = d.input;
  proj.a = run.inputs[kX].as<const float>(), proj.a_row = d.input, proj.a_col = 1;
  proj.b = w, proj.b_row = 1, proj.b_col = d.input;
  proj.c = xw, proj.ldc = gh;
  run_gemm(run, proj, packed_w, gemm[kGemmX]);

  for (int64_t b = 0; b < d.batch; ++b) {
    const int64_t at = state_offset(b);
    for (auto [state, input] : {std::pair{h, kInitialH}, std::pair{c, kInitialC}}) {
      if (state == c && !lstm) continue;
      if (run.has_input(input))
        std::memcpy(state + b * H, run.inputs[input].as<const float>() + at,
                    static_cast<size_t>(H) * sizeof(float));
      else
        std::fill_n(state + b * H, H, 0.0f);
    }
  }

  GemmArgs recurrent;
  recurrent.m = d.batch, recurrent.n = recurrent_columns(H), recurrent.k = H;
  recurrent.a = h, recurrent.a_row = H, recurrent.a_col = 1;
  recurrent.b = r, recurrent.b_row = 1, recurrent.b_col = H;
  recurrent.c = rec, recurrent.ldc = gh;
  GemmArgs candidate = recurrent;
  candidate.n = H;
  candidate.a = buffers[kRh];
  candidate.b = r + 2 * H * H;
  candidate.c = buffers[kRecH], candidate.ldc = H;

  float* y = run.outputs[0].as<float>();
  for (int64_t step = 0; step < d.seq; ++step) {
    const int64_t t = reverse ? d.seq - 1 - step : step;
    run_gemm(run, recurrent, packed_r, gemm[kGemmRec]);
    for (int64_t b = 0; b < d.batch; ++b) {
      if (t >= lengths[b]) continue;
      float* pre = xw + x_row(t, b) * gh;
      const float* rrow = rec + b * gh;
      float* hb = h + b * H;
      switch (cell_) {
        case Cell::Rnn:
          pre_activation(pre, rrow, 0, H);
          clip(pre, H);
          activate(act[0], pre);
          std::memcpy(hb, pre, static_cast<size_t>(H) * sizeof(float));
          break;
        case Cell::Gru: {
          pre_activation(pre, rrow, 0, 2 * H);
          clip(pre, 2 * H);
          activate(act[0], pre);
          activate(act[0], pre + H);
          if (split_candidate()) {
            float* rh = buffers[kRh] + b * H;
            for (int64_t j = 0; j < H; ++j) rh[j] = pre[H + j] * hb[j];
          } else {
            const float* rbh = rb != nullptr ? rb + 2 * H : nullptr;
            float* ph = pre + 2 * H;
            for (int64_t j = 0; j < H; ++j) {
              const float rec_h = rbh != nullptr ? rrow[2 * H + j] + rbh[j] : rrow[2 * H + j];
              float v = ph[j] + pre[H + j] * rec_h;
              if (wb != nullptr) v = v + wb[2 * H + j];
              ph[j] = v;
            }
          }
          break;
        }
        case Cell::Lstm: {
          float* cb = c + b * H;
          float *pi = pre, *po = pre + H, *pf = pre + 2 * H, *pc = pre + 3 * H;
          pre_activation(pre, rrow, 0, gh);
          if (peep != nullptr) {
            for (int64_t j = 0; j < H; ++j) pi[j] = pi[j] + peep[j] * cb[j];
            for (int64_t j = 0; j < H; ++j) pf[j] = pf[j] + peep[2 * H + j] * cb[j];
          }
          clip(pi, H);
          clip(pf, 2 * H);  // f and c
          activate(act[0], pi);
          if (input_forget_) {
            for (int64_t j = 0; j < H; ++j) pf[j] = 1.0f - pi[j];
          } else {
            activate(act[0], pf);
          }
          activate(act[1], pc);
          for (int64_t j = 0; j < H; ++j) cb[j] = pf[j] * cb[j] + pi[j] * pc[j];
          if (peep != nullptr)
            for (int64_t j = 0; j < H; ++j) po[j] = po[j] + peep[H + j] * cb[j];
          clip(po, H);
          activate(act[0], po);
          std::memcpy(temp1, cb, static_cast<size_t>(H) * sizeof(float));
          activate(act[2], temp1);
          for (int64_t j = 0; j < H; ++j) hb[j] = po[j] * temp1[j];
          break;
        }
      }
    }
    if (cell_ == Cell::Gru) {
      if (split_candidate()) {
        for (int64_t b = 0; b < d.batch; ++b) {
          if (t >= lengths[b]) std::fill_n(buffers[kRh] + b * H, H, 0.0f);
        }
        run_gemm(run, candidate, packed_rh, gemm[kGemmRecH]);
      }
      for (int64_t b = 0; b < d.batch; ++b) {
        if (t >= lengths[b]) continue;
        float* pre = xw + x_row(t, b) * gh;
        float* ph = pre + 2 * H;
        if (split_candidate()) pre_activation(pre, buffers[kRecH] + b * H, 2 * H, H);
        clip(ph, H);
        activate(act[1], ph);
        float* hb = h + b * H;
        for (int64_t j = 0; j < H; ++j) hb[j] = (1.0f - pre[j]) * ph[j] + pre[j] * hb[j];
      }
    }
    for (int64_t b = 0; b < d.batch; ++b) {
      const int64_t at =
          layout_ == 0 ? ((t * d.dirs + dir) * d.batch + b) * H : ((b * d.seq + t) * d.dirs + dir) * H;
      float* out = y + at;
      if (t >= lengths[b]) {
        std::fill_n(out, H, 0.0f);
        continue;
      }
      const float* hb = h + b * H;
      for (int64_t j = 0; j < H; ++j) out[j] = exact ? canonicalize(hb[j]) : hb[j];
    }
  }

  // Final states: after each row's last valid step; a row of length 0 ends at zero (unless the sequence is
  // empty, when the initial state passes through).
  for (size_t o = 1; o < run.outputs.size(); ++o) {
    const float* state = o == 1 ? h : c;
    float* out = run.outputs[o].as<float>();
    for (int64_t b = 0; b < d.batch; ++b) {
      float* dst = out + state_offset(b);
      const float* src = state + b * H;
      const bool zero = lengths[b] == 0 && d.seq > 0;
      for (int64_t j = 0; j < H; ++j) dst[j] = zero ? 0.0f : exact ? canonicalize(src[j]) : src[j];
    }
  }
}

template <Cell kCell>
std::unique_ptr<OpKernel> make_cell(const NodeInfo& node) {
  require_inputs(node, 3, kCell == Cell::Lstm ? 8 : 6);
  const size_t max_outputs = kCell == Cell::Lstm ? 3 : 2;
  if (node.num_outputs() > max_outputs) node.fail("too many outputs");
  return std::make_unique<Recurrent>(kCell, node);
}

}  // namespace

std::unique_ptr<OpKernel> make_rnn(const NodeInfo& node) {
  return make_cell<Cell::Rnn>(node);
}
std::unique_ptr<OpKernel> make_gru(const NodeInfo& node) {
  return make_cell<Cell::Gru>(node);
}
std::unique_ptr<OpKernel> make_lstm(const NodeInfo& node) {
  return make_cell<Cell::Lstm>(node);
}

}  // namespace onemodel::ops
