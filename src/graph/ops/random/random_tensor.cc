// RandomUniform, RandomUniformLike, RandomNormal and RandomNormalLike: a float tensor (any width) of
// values from the node's counter stream (counter_random.h). The shape is the `shape` attribute, or the
// input's for the *Like forms (whose values are never read); the element type is `dtype`, else float (else
// the input's for the *Like forms).
//
// Uniform: low + (high - low) * u with u from 53 random bits for double and 24 for the other types, computed
// in the element type (float for the 16-bit ones), so a value may round up to `high`. Normal: Marsaglia's
// polar method in float, element i taking pairs of draws d = 0, 1, ... from its own sub-stream until one lies
// inside the unit disc (after 64 refused pairs, odds about 1e-43, the sample is 0), then mean + scale * z.
// The log is the session's (exact-transcendentals.md in exact mode), the rest single IEEE operations, so
// exact mode gives the same bits everywhere.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "graph/ops/dtype_attribute.h"
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/random/counter_random.h"
#include "graph/ops/random/factories.h"

namespace onemodel::ops {
namespace {

enum class Distribution { Uniform, Normal };

constexpr int64_t kBlock = 256;     // normal samples per log call
constexpr uint64_t kMaxPairs = 64;  // polar-method attempts per sample

struct RandomSpec {
  Distribution distribution;
  float a, b;  // low and high, or mean and scale
  bool like;   // shape (and default type) from input 0
  std::optional<DType> dtype;
  std::vector<int64_t> shape;  // without `like`
};

class RandomTensor final : public OpKernel {
 public:
  RandomTensor(RandomSpec spec, uint64_t key) : spec_(std::move(spec)), random_(key) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType type = spec_.dtype.value_or(spec_.like ? ctx.input_dtype(0) : DType::F32);
    if (!is_float_dtype(type)) unsupported_type(ctx, type);
    if (spec_.like) {
      ctx.set_output(0, type, ctx.input_shape(0));
    } else {
      ctx.set_output(0, type, Shape::of(spec_.shape));  // checked by the factory
    }
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.outputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::is_float) {
        auto* y = run.outputs[0].as<typename E::Stored>();
        for_each_chunk(run.threads, run.outputs[0].count(), 4.0, [&](int64_t begin, int64_t end) {
          if (spec_.distribution == Distribution::Uniform)
            uniform<E>(y, begin, end);
          else
            normal<E>(*run.kernels, run.exact, y, begin, end);
        });
      }
    });
  }

 private:
  template <class E>
  void uniform(typename E::Stored* y, int64_t begin, int64_t end) const {
    using V = typename E::Value;
    const V low = spec_.a, span = V(spec_.b) - V(spec_.a);
    for (int64_t i = begin; i < end; ++i) {
      const uint64_t bits = random_.bits(static_cast<uint64_t>(i));
      V u;
      if constexpr (std::is_same_v<V, double>)
        u = CounterRandom::unit_double(bits);
      else
        u = CounterRandom::unit_float(bits);
      y[i] = E::store(low + span * u);
    }
  }

  template <class E>
  void normal(const KernelTable& kernels, bool exact, typename E::Stored* y, int64_t begin,
              int64_t end) const {
    using V = typename E::Value;
    alignas(64) float u[kBlock];
    alignas(64) float s[kBlock];
    alignas(64) float log_s[kBlock];
    for (int64_t start = begin; start < end; start += kBlock) {
      const int64_t m = std::min(kBlock, end - start);
      for (int64_t k = 0; k < m; ++k) polar_pair(static_cast<uint64_t>(start + k), u[k], s[k]);
      kernels.unary(UnaryFn::Log, exact, s, log_s, static_cast<size_t>(m));
      for (int64_t k = 0; k < m; ++k) {
        const float z = u[k] * std::sqrt((-2.0f * log_s[k]) / s[k]);
        y[start + k] = E::store(V(spec_.a) + V(spec_.b) * V(z));
      }
    }
  }

  // The first pair (a, b) of element i's draws inside the unit disc: a and s = a^2 + b^2 in (0, 1).
  void polar_pair(uint64_t i, float& a, float& s) const {
    for (uint64_t pair = 0; pair < kMaxPairs; ++pair) {
      a = 2.0f * CounterRandom::unit_float(random_.draw(i, 2 * pair)) - 1.0f;
      const float b = 2.0f * CounterRandom::unit_float(random_.draw(i, 2 * pair + 1)) - 1.0f;
      s = a * a + b * b;
      if (s > 0.0f && s < 1.0f) return;
    }
    a = 0.0f;  // z = 0
    s = 0.5f;
  }

  RandomSpec spec_;
  CounterRandom random_;
};

std::unique_ptr<OpKernel> make_random(const NodeInfo& node, Distribution distribution, bool like) {
  if (like) {
    if (node.num_inputs() != 1 || !node.has_input(0)) node.fail("expects 1 input");
  } else if (node.num_inputs() != 0) {
    node.fail("expects no inputs");
  }
  RandomSpec spec{distribution, 0, 0, like, dtype_attribute(node, "dtype"), {}};
  if (distribution == Distribution::Uniform) {
    spec.a = node.get_float("low", 0.0f);
    spec.b = node.get_float("high", 1.0f);
  } else {
    spec.a = node.get_float("mean", 0.0f);
    spec.b = node.get_float("scale", 1.0f);
  }
  if (!like) {
    if (node.find("shape") == nullptr) node.fail("attribute 'shape' is required");
    spec.shape = node.get_ints("shape");
    const std::string problem = shape_problem(spec.shape, dtype_size(spec.dtype.value_or(DType::F32)));
    if (!problem.empty()) node.fail("attribute 'shape': " + problem);
  }
  return std::make_unique<RandomTensor>(std::move(spec), random_stream_key(node));
}

}  // namespace

std::unique_ptr<OpKernel> make_random_uniform(const NodeInfo& node) {
  return make_random(node, Distribution::Uniform, false);
}
std::unique_ptr<OpKernel> make_random_uniform_like(const NodeInfo& node) {
  return make_random(node, Distribution::Uniform, true);
}
std::unique_ptr<OpKernel> make_random_normal(const NodeInfo& node) {
  return make_random(node, Distribution::Normal, false);
}
std::unique_ptr<OpKernel> make_random_normal_like(const NodeInfo& node) {
  return make_random(node, Distribution::Normal, true);
}

}  // namespace onemodel::ops
