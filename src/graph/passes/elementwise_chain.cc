// elementwise-chain (preserves bits; beyond graph-passes.md, see docs/graph-passes.md): a chain of
// element-wise nodes over one float32 tensor x (a Conv's output, or element-wise work on one), where each
// intermediate has one reader and every other operand is x itself or a single-element float32 constant,
// becomes one node. PaddleOCR's hard-swish Add(x, 3) -> Clip(0, 6) -> Mul(x) -> Div(6) is the case in mind.
// The node runs the same operators' own kernels in the same order on blocks of kBlock elements that stay in
// the first-level cache, instead of one pass over memory per operator (float32 arithmetic, Clip and the plain
// one-input loops through their raw-block entry, ops::F32BlockKernel); a segment that starts with a
// written-out hard-swish runs it as one fused loop of the same rounded operations (ChainKernels). Every
// operator here computes each element on its own, so cutting the tensor into blocks changes no bit. Then a
// fused chain whose x is another fused chain's output, read by nothing else, joins that chain as a new
// segment (its x is the block the earlier segment wrote); and a fused chain whose x is the output of a Conv
// without an epilogue, read by nothing else, becomes that Conv's epilogue, run on each finished block of rows
// while it is in cache.
#include <algorithm>
#include <array>
#include <optional>

#include "graph/ops/conv/factories.h"
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/f32_block.h"
#include "graph/ops/fused_epilogue.h"
#include "graph/passes/graph_pass.h"
#include "kernels/elementwise/chain_kernels.h"

namespace onemodel::passes {
namespace {

constexpr int64_t kBlock = 2048;
constexpr size_t kMaxOperands = 3;  // Clip: x, min, max

// Operators whose output element i depends on input element i alone.
constexpr std::string_view kChainOps[] = {"Add",  "Sub",         "Mul",       "Div",       "Relu",
                                          "Clip", "HardSigmoid", "HardSwish", "LeakyRelu", "Sigmoid",
                                          "Tanh", "Neg",         "Abs"};

// Where a step's operand comes from: the previous step's block, the segment's input block (x's block for the
// first segment, the output block for later ones), or input `outer` of the fused node (a constant, from 1
// on).
enum class Source { Previous, Input, Constant };
struct Operand {
  Source source = Source::Input;
  size_t outer = 0;
};

struct Step {
  std::unique_ptr<OpKernel> kernel;
  std::unique_ptr<NodeInfo> info;  // the original node's, for its error messages
  std::vector<Operand> operands;
  bool ends_segment = false;  // writes the output block, which the next segment reads as its input
  // The kernel's raw-block entry when it has one (float32 arithmetic, Clip, plain one-input loops): called
  // directly, it skips the
  // OpRun and the broadcast walk that a block would otherwise pay for on every step.
  const ops::F32BlockKernel* block = nullptr;
  // Set on the first of four steps that open a segment with a written-out hard-swish, run as one loop:
  // whether its Div comes last.
  std::optional<bool> hard_swish_div_last;
};

constexpr size_t kHardSwishSteps = 4;  // Add, Clip, then Mul and Div in either order

class ElementwiseChain final : public OpKernel {
 public:
  explicit ElementwiseChain(std::vector<Step> steps) : steps_(std::move(steps)) {
    for (Step& step : steps_) step.block = dynamic_cast<const ops::F32BlockKernel*>(step.kernel.get());
    for (size_t first = 0; first < steps_.size();) {
      steps_[first].hard_swish_div_last = hard_swish_div_last(first);
      while (!steps_[first].ends_segment) ++first;
      ++first;
    }
    supports_exact =
        std::all_of(steps_.begin(), steps_.end(), [](const Step& s) { return s.kernel->supports_exact; });
    in_place_input = 0;  // x is read by the first segment only, element by element against its output
  }

  // The pass admitted only a float32 x and single-element constants of no higher rank, so every step keeps
  // x's type and shape.
  void infer(InferContext& ctx) const override { ctx.set_output(0, DType::F32, ctx.input_shape(0)); }

  void run(const OpRun& run) const override {
    apply(run, 0, run.inputs[0].as<const float>(), run.outputs[0].as<float>(), run.outputs[0].count(),
          run.threads);
  }

  // Runs the chain over `count` elements of x into y (which may be x). The constants are inputs
  // `constant_offset + outer` of `run`: 0 for the chain's own node, more when it is another node's epilogue.
  void apply(const OpRun& run, size_t constant_offset, const float* x, float* y, int64_t count,
             ThreadContext threads) const {
    ops::for_each_chunk(threads, count, 2.0, [&](int64_t begin, int64_t end) {
      alignas(64) std::array<std::array<float, kBlock>, 2> buffers;
      for (int64_t at = begin; at < end; at += kBlock) {
        const int64_t block = std::min(kBlock, end - at);
        run_block(run, constant_offset, x + at, y + at, block, buffers);
      }
    });
  }

  // Appends `next`, whose x is this chain's output, as a new segment; its constants follow this chain's
  // `constants` (the fused node's inputs after x).
  void append(ElementwiseChain&& next, size_t constants) {
    for (Step& step : next.steps_) {
      for (Operand& o : step.operands) {
        if (o.source == Source::Constant) o.outer += constants;
      }
      steps_.push_back(std::move(step));
    }
    supports_exact = supports_exact && next.supports_exact;
  }

 private:
  // For the segment starting at step `first`, when it opens with Add(x, c) -> Clip with constant bounds ->
  // Mul(x, .) and Div(., d) in either order (Add and Mul operands in either order): whether the Div is last.
  // det's hard-swish is often followed by another scalar Mul -> Add in the same segment.
  std::optional<bool> hard_swish_div_last(size_t first) const {
    if (first + kHardSwishSteps > steps_.size()) return std::nullopt;
    for (size_t s = first; s + 1 < first + kHardSwishSteps; ++s) {
      if (steps_[s].ends_segment) return std::nullopt;
    }
    const auto is = [&](size_t s, BinaryFn fn) {
      return steps_[s].block && steps_[s].block->binary_fn() == fn;
    };
    const auto source = [&](size_t s, size_t i) { return steps_[s].operands[i].source; };
    const auto sources = [&](size_t s, Source a, Source b) { return source(s, 0) == a && source(s, 1) == b; };
    const auto x_and_previous = [&](size_t s) {
      return sources(s, Source::Input, Source::Previous) || sources(s, Source::Previous, Source::Input);
    };
    const size_t add = first, clip = first + 1;
    float lo, hi;
    if (!is(add, BinaryFn::Add) ||
        !(sources(add, Source::Input, Source::Constant) || sources(add, Source::Constant, Source::Input)))
      return std::nullopt;
    // Clip's bounds are constants already (map_operands admits no other).
    if (!steps_[clip].block || !steps_[clip].block->clamp_bounds({}, lo, hi) ||
        source(clip, 0) != Source::Previous)
      return std::nullopt;
    const bool div_last = is(first + 2, BinaryFn::Mul);
    const size_t mul = div_last ? first + 2 : first + 3, div = div_last ? first + 3 : first + 2;
    if (!is(mul, BinaryFn::Mul) || !x_and_previous(mul) || !is(div, BinaryFn::Div) ||
        !sources(div, Source::Previous, Source::Constant))
      return std::nullopt;
    return div_last;
  }

  // Runs the hard-swish segment starting at step `first` (hard_swish_div_last) from `input` into y.
  void run_hard_swish(const OpRun& outer, size_t constant_offset, size_t first, const float* input, float* y,
                      int64_t count) const {
    const auto constant = [&](const Operand& o) {
      return reinterpret_cast<const float*>(outer.inputs[constant_offset + o.outer].data);
    };
    const Step& add = steps_[first];
    const Step& clip = steps_[first + 1];
    const bool div_last = *add.hard_swish_div_last;
    const Step& div = steps_[div_last ? first + 3 : first + 2];
    std::array<ops::F32BlockOperand, kMaxOperands> bounds{};
    for (size_t i = 1; i < clip.operands.size(); ++i) bounds[i] = {constant(clip.operands[i]), false};
    float lo, hi;
    clip.block->clamp_bounds(std::span(bounds.data(), clip.operands.size()), lo, hi);
    const bool c_second = add.operands[1].source == Source::Constant;
    const float c = *constant(add.operands[c_second ? 1 : 0]), d = *constant(div.operands[1]);
    chain_kernels(outer.kernels->path)
        ->hard_swish(div_last, outer.exact, input, c, lo, hi, d, y, static_cast<size_t>(count));
  }

  static TensorRef block_ref(const float* data, int64_t count) {
    return TensorRef{DType::F32, Shape{count}, reinterpret_cast<std::byte*>(const_cast<float*>(data))};
  }

  // Runs every step on one block, alternating between the two buffers; the last step of each segment writes
  // the output block, which is either separate from x or exactly x's block (in place), as a stand-alone
  // operator allows, and which the next segment reads as its input.
  void run_block(const OpRun& outer, size_t constant_offset, const float* x, float* y, int64_t count,
                 std::array<std::array<float, kBlock>, 2>& buffers) const {
    const float* input = x;
    const float* previous = nullptr;
    for (size_t s = 0; s < steps_.size(); ++s) {
      const Step& step = steps_[s];
      if (step.hard_swish_div_last) {
        const size_t last = s + kHardSwishSteps - 1;
        float* target = steps_[last].ends_segment ? y : buffers[last % 2].data();
        run_hard_swish(outer, constant_offset, s, input, target, count);
        previous = target;
        if (steps_[last].ends_segment) input = y;
        s = last;
        continue;
      }
      float* target = step.ends_segment ? y : buffers[s % 2].data();
      const auto constant = [&](const Operand& o) { return outer.inputs[constant_offset + o.outer].data; };
      if (step.block) {
        std::array<ops::F32BlockOperand, kMaxOperands> operands{};
        for (size_t i = 0; i < step.operands.size(); ++i) {
          const Operand& o = step.operands[i];
          operands[i].data = o.source == Source::Previous ? previous
                             : o.source == Source::Input  ? input
                                                          : reinterpret_cast<const float*>(constant(o));
          operands[i].advances = o.source != Source::Constant;
        }
        step.block->run_f32_block(*outer.kernels, outer.exact,
                                  std::span(operands.data(), step.operands.size()), target,
                                  static_cast<size_t>(count));
      } else {
        std::array<TensorRef, kMaxOperands> inputs{};
        for (size_t i = 0; i < step.operands.size(); ++i) {
          const Operand& o = step.operands[i];
          if (o.source == Source::Previous)
            inputs[i] = block_ref(previous, count);
          else if (o.source == Source::Input)
            inputs[i] = block_ref(input, count);
          else  // a single-element constant: a scalar broadcasts over the block
            inputs[i] = TensorRef{DType::F32, Shape{}, constant(o)};
        }
        std::array<TensorRef, 1> outputs = {block_ref(target, count)};
        OpRun r;
        r.inputs = std::span<const TensorRef>(inputs.data(), step.operands.size());
        r.outputs = outputs;
        r.exact = outer.exact;
        r.kernels = outer.kernels;
        // Blocks run on several threads and the arena is not shared safely; with operands that never overlap
        // the output, these kernels take no scratch.
        r.scratch = nullptr;
        r.threads = ThreadContext{1};
        r.node = step.info.get();
        step.kernel->run(r);
      }
      previous = target;
      if (step.ends_segment) input = y;
    }
  }

  std::vector<Step> steps_;
};

// A fused chain as a Conv's epilogue: it runs in place on finished outputs, its constants after the Conv's
// own three inputs.
class ChainEpilogue final : public ops::FusedEpilogue {
 public:
  static constexpr size_t kConvInputs = 3;  // X, W, B

  explicit ChainEpilogue(std::unique_ptr<OpKernel> chain) : chain_(std::move(chain)) {}

  void apply(const OpRun& run, float* y, int64_t count, ThreadContext threads) const override {
    static_cast<const ElementwiseChain&>(*chain_).apply(run, kConvInputs - 1, y, y, count, threads);
  }

 private:
  std::unique_ptr<OpKernel> chain_;  // an ElementwiseChain
};

bool chain_op(const CompiledNode& n) {
  if (!(n.ir->domain.empty() || n.ir->domain == "ai.onnx") || n.outputs.size() != 1 || legacy_form(n))
    return false;
  if (n.inputs.empty() || n.inputs.size() > kMaxOperands) return false;
  return std::find(std::begin(kChainOps), std::end(kChainOps), n.ir->op_type) != std::end(kChainOps);
}

// The rank of value v when it is known to be a float32 tensor, else -1: a float32 constant, a Conv's output
// (its weights' rank), or the output of a BatchNormalization, chain operator or fused chain over such values.
// `memo` holds -2 for values not asked yet.
int32_t float_rank(const PassGraph& g, const std::vector<int32_t>& producer, int32_t v,
                   std::vector<int32_t>& memo) {
  if (v < 0) return -1;
  int32_t& known = memo[static_cast<size_t>(v)];
  if (known != -2) return known;
  known = -1;
  if (const TensorRef* c = g.constant(v)) return known = c->dtype == DType::F32 ? c->shape.rank : -1;
  const int32_t p = producer[static_cast<size_t>(v)];
  if (p < 0) return -1;
  const CompiledNode& n = g.nodes()[static_cast<size_t>(p)];
  const std::string& type = n.ir->op_type;
  if (type == "Conv") {
    const TensorRef* w = n.inputs.size() >= 2 ? g.constant(n.inputs[1]) : nullptr;
    return known = w && w->dtype == DType::F32 ? w->shape.rank : -1;
  }
  if (type == "BatchNormalization" || dynamic_cast<const ElementwiseChain*>(n.kernel.get()))
    return known = float_rank(g, producer, n.inputs[0], memo);  // a fused chain keeps its x's shape
  if (!chain_op(n)) return -1;
  if (type == "Add" || type == "Sub" || type == "Mul" || type == "Div") {
    if (n.inputs.size() != 2) return -1;
    const int32_t a = float_rank(g, producer, n.inputs[0], memo),
                  b = float_rank(g, producer, n.inputs[1], memo);
    return known = a >= 0 && b >= 0 ? std::max(a, b) : -1;
  }
  return known = float_rank(g, producer, n.inputs[0], memo);  // a one-input operator (Clip's bounds aside)
}

// Maps the operands of node n onto the chain; false when one is neither x, the previous value, nor a
// single-element float32 constant of rank at most x's, or when a Clip bound is not such a constant.
bool map_operands(PassGraph& g, const CompiledNode& n, int32_t x, int32_t previous, int32_t x_rank,
                  std::vector<int32_t>& outer, std::vector<Operand>& operands) {
  bool read_previous = previous < 0;
  for (int32_t v : n.inputs) {
    Operand o;
    if (v >= 0 && v == previous && !read_previous) {
      o.source = Source::Previous;
      read_previous = true;
    } else if (v == x) {
      o.source = Source::Input;
    } else {
      const TensorRef* c = g.constant(v);
      if (!c || c->dtype != DType::F32 || c->count() != 1 || c->shape.rank > x_rank) return false;
      o.source = Source::Constant;
      o.outer = outer.size();
      outer.push_back(v);
    }
    operands.push_back(o);
  }
  // Clip's bounds are single values: x as a bound is refused by Clip itself, so the chain must not take it.
  if (n.ir->op_type == "Clip" && std::any_of(operands.begin() + 1, operands.end(),
                                             [](const Operand& o) { return o.source != Source::Constant; }))
    return false;
  return read_previous;
}

// Fuses the longest chain starting at node `head`; returns whether it did.
bool fuse_from(PassGraph& g, size_t head) {
  const CompiledNode& first = g.nodes()[head];
  if (!chain_op(first)) return false;
  // x is the head's first operand that is not a constant.
  const auto x_at = std::find_if(first.inputs.begin(), first.inputs.end(),
                                 [&](int32_t v) { return v >= 0 && !g.constant(v); });
  if (x_at == first.inputs.end()) return false;
  const int32_t x = *x_at;
  const std::vector<int32_t> producer = g.producers(head);
  std::vector<int32_t> memo(g.values().size(), -2);
  const int32_t x_rank = float_rank(g, producer, x, memo);
  if (x_rank < 0) return false;
  std::vector<int32_t> outer = {x};
  std::vector<std::vector<Operand>> operands(1);
  if (!map_operands(g, first, x, -1, x_rank, outer, operands[0])) return false;
  std::vector<size_t> members = {head};
  for (;;) {
    const int32_t value = g.nodes()[members.back()].outputs[0];
    const int32_t reader = g.only_reader(value);
    if (reader < 0 || !chain_op(g.nodes()[static_cast<size_t>(reader)])) break;
    std::vector<int32_t> more = outer;
    std::vector<Operand> ops;
    if (!map_operands(g, g.nodes()[static_cast<size_t>(reader)], x, value, x_rank, more, ops)) break;
    outer = std::move(more);
    operands.push_back(std::move(ops));
    members.push_back(static_cast<size_t>(reader));
  }
  if (members.size() < 2) return false;

  // The fused node takes the last member's place (its readers follow it) and names the head in errors.
  const CompiledNode& head_node = g.nodes()[head];
  const ir::Node* head_ir = head_node.ir;
  auto fused_info = std::make_unique<NodeInfo>(*head_ir, head_node.info->graph());
  std::vector<Step> steps;
  for (size_t i = 0; i < members.size(); ++i) {
    CompiledNode& n = g.nodes()[members[i]];
    Step& step = steps.emplace_back();
    step.kernel = std::move(n.kernel);
    step.info = std::move(n.info);
    step.operands = std::move(operands[i]);
    step.ends_segment = i + 1 == members.size();
  }
  CompiledNode& last = g.nodes()[members.back()];
  last.kernel = std::make_unique<ElementwiseChain>(std::move(steps));
  last.info = std::move(fused_info);
  last.ir = head_ir;
  last.inputs = outer;
  for (size_t i = members.size() - 1; i-- > 0;) {
    g.nodes().erase(g.nodes().begin() + static_cast<std::ptrdiff_t>(members[i]));
  }
  return true;
}

const ElementwiseChain* as_chain(const CompiledNode& n) {
  return dynamic_cast<const ElementwiseChain*>(n.kernel.get());
}

// The node that reads value v as its x and nothing else reads v, when it is a fused chain; else -1.
int32_t chain_reading(const PassGraph& g, int32_t v) {
  const int32_t reader = g.only_reader(v);
  if (reader < 0) return -1;
  const CompiledNode& n = g.nodes()[static_cast<size_t>(reader)];
  return as_chain(n) && n.inputs[0] == v ? reader : -1;
}

// Joins the fused chain at `first` into the fused chain that reads its output, which keeps its place (its
// readers follow it) and takes the first chain's name for errors; returns whether it did.
bool join_next(PassGraph& g, size_t first) {
  if (!as_chain(g.nodes()[first])) return false;
  const int32_t second = chain_reading(g, g.nodes()[first].outputs[0]);
  if (second < 0) return false;
  CompiledNode& a = g.nodes()[first];
  CompiledNode& b = g.nodes()[static_cast<size_t>(second)];
  auto& joined = static_cast<ElementwiseChain&>(*a.kernel);
  joined.append(std::move(static_cast<ElementwiseChain&>(*b.kernel)), a.inputs.size() - 1);
  std::vector<int32_t> inputs = a.inputs;
  inputs.insert(inputs.end(), b.inputs.begin() + 1, b.inputs.end());
  b.inputs = std::move(inputs);
  b.kernel = std::move(a.kernel);
  b.info = std::move(a.info);
  b.ir = a.ir;
  g.nodes().erase(g.nodes().begin() + static_cast<std::ptrdiff_t>(first));
  return true;
}

// Makes the fused chain that reads Conv node `conv`'s output the Conv's epilogue.
void join_conv(PassGraph& g, size_t conv) {
  CompiledNode& c = g.nodes()[conv];
  if (!is_onnx_op(c, "Conv") || !ops::is_conv_without_epilogue(*c.kernel) || c.outputs.size() != 1) return;
  if (c.inputs.size() > ChainEpilogue::kConvInputs) return;
  const int32_t reader = chain_reading(g, c.outputs[0]);
  if (reader < 0) return;
  CompiledNode& chain = g.nodes()[static_cast<size_t>(reader)];
  c.kernel = ops::make_conv_with_epilogue(*c.info, std::make_unique<ChainEpilogue>(std::move(chain.kernel)));
  c.inputs.resize(ChainEpilogue::kConvInputs, -1);
  c.inputs.insert(c.inputs.end(), chain.inputs.begin() + 1, chain.inputs.end());
  c.outputs = chain.outputs;
  g.nodes().erase(g.nodes().begin() + reader);
}

}  // namespace

void elementwise_chain(PassGraph& g) {
  for (size_t n = 0; n < g.nodes().size(); ++n) fuse_from(g, n);
  for (size_t n = 0; n < g.nodes().size();) {
    if (!join_next(g, n)) ++n;  // after a join, node n is the next one
  }
  for (size_t n = 0; n < g.nodes().size(); ++n) join_conv(g, n);
}

}  // namespace onemodel::passes
