// SessionOptions::weight_storage (fp16.md "Keeping binary32 weights compact"): a session keeping the MatMul,
// Gemm and Conv weights as binary16 / bfloat16 gives, bit for bit, the outputs of a float32 model whose
// weights were rounded beforehand, at 1 and 2 threads in both modes, and holds those weights in half the
// bytes. Small, shared and (for binary16) out-of-range weights stay float32.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "../ops/op_test_util.h"
#include "core/half.h"

namespace onemodel::test {
namespace {

Tensor random_tensor(std::vector<int64_t> shape, uint32_t seed, float scale = 1.0f) {
  Tensor t(DType::F32, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  for (float& v : t.data<float>()) v = u(rng);
  return t;
}

// Each value rounded to the storage format and widened back: the weights a float32 model would hold.
Tensor rounded(const Tensor& t, WeightStorage storage) {
  Tensor r(DType::F32, t.shape());
  const auto* src = static_cast<const float*>(t.raw());
  auto dst = r.data<float>();
  for (size_t i = 0; i < dst.size(); ++i) {
    dst[i] = storage == WeightStorage::Binary16 ? half_to_float(float_to_half(src[i]))
                                                : bfloat16_to_float(float_to_bfloat16(src[i]));
  }
  return r;
}

struct Weights {
  Tensor w1 = random_tensor({64, 48}, 1);  // MatMul, 3072 values: compact
  Tensor b1 = random_tensor({48}, 2);      // bias: never compact
  Tensor w2 = random_tensor({40, 48}, 3);  // Gemm transB, 1920 values: compact
  Tensor c2 = random_tensor({40}, 4);
  Tensor small = random_tensor({40, 20}, 5);          // 800 values: stays float32
  Tensor shared = random_tensor({20, 64}, 6);         // read by two MatMuls: stays float32
  Tensor big = random_tensor({20, 64}, 7, 70000.0f);  // beyond binary16's range: float32 under Binary16 only
  Tensor k1 = random_tensor({16, 8, 3, 3}, 8);        // Conv, 1152 values: compact
  Tensor kb = random_tensor({16}, 9);
  Tensor k2 = random_tensor({8, 16, 3, 3}, 10);  // Conv, 1152 values: compact
};

// y = MatMul(Relu(MatMul(x, w1) + b1), w2^T) + c2 (Gemm), then MatMul(small), MatMul(shared) twice,
// MatMul(big); z = Conv(Relu(Conv(image, k1, kb)), k2). Weights as given (rounded or not by the caller).
ModelBuilder build(const Weights& w, const Tensor& w1, const Tensor& w2, const Tensor& big, const Tensor& k1,
                   const Tensor& k2) {
  ModelBuilder m(17);
  m.input("x", DType::F32, {5, 64}).input("image", DType::F32, {1, 8, 9, 9});
  m.initializer("w1", w1).initializer("b1", w.b1).initializer("w2", w2).initializer("c2", w.c2);
  m.initializer("small", w.small).initializer("shared", w.shared).initializer("big", big);
  m.initializer("k1", k1).initializer("kb", w.kb).initializer("k2", k2);
  m.node("MatMul", {"x", "w1"}, {"h0"}).node("Add", {"h0", "b1"}, {"h1"}).node("Relu", {"h1"}, {"h2"});
  m.node("Gemm", {"h2", "w2", "c2"}, {"h3"}, {Attr::i("transB", 1)});
  m.node("MatMul", {"h3", "small"}, {"h4"});
  m.node("MatMul", {"h4", "shared"}, {"s1"}).node("MatMul", {"h4", "shared"}, {"s2"});
  m.node("MatMul", {"h4", "big"}, {"s3"});
  m.node("Add", {"s1", "s2"}, {"s4"}).node("Add", {"s4", "s3"}, {"y"});
  m.node("Conv", {"image", "k1", "kb"}, {"c0"}, {Attr::ints("pads", {1, 1, 1, 1})});
  m.node("Relu", {"c0"}, {"c1"});
  m.node("Conv", {"c1", "k2"}, {"z"}, {Attr::ints("strides", {2, 2})});
  m.output("y", DType::F32).output("z", DType::F32);
  return m;
}

TEST(WeightStorage, EqualsAFloat32ModelWithRoundedWeightsBitForBit) {
  const Weights w;
  const std::vector<NamedTensor> inputs = {{"x", random_tensor({5, 64}, 20)},
                                           {"image", random_tensor({1, 8, 9, 9}, 21)}};
  const ModelBuilder original = build(w, w.w1, w.w2, w.big, w.k1, w.k2);
  for (WeightStorage storage : {WeightStorage::Binary16, WeightStorage::BFloat16}) {
    const Tensor big = storage == WeightStorage::Binary16 ? w.big : rounded(w.big, storage);
    const ModelBuilder reference = build(w, rounded(w.w1, storage), rounded(w.w2, storage), big,
                                         rounded(w.k1, storage), rounded(w.k2, storage));
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      for (int threads : {1, 2}) {
        SessionOptions o = options(mode, {}, threads);
        const std::vector<Tensor> want = reference.run(inputs, o);
        o.weight_storage = storage;
        const std::vector<Tensor> got = original.run(inputs, o);
        ASSERT_EQ(got.size(), 2u);
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_TRUE(same_bytes(got[i], want[i]))
              << "output " << i << " storage " << static_cast<int>(storage) << " mode "
              << static_cast<int>(mode) << " threads " << threads;
        }
      }
    }
  }
}

TEST(WeightStorage, CompactWeightsTakeHalfTheirBytes) {
  const Weights w;
  const ModelBuilder m = build(w, w.w1, w.w2, w.big, w.k1, w.k2);
  const size_t f32 = m.session().weight_bytes();
  size_t total_values = 0;
  for (const Tensor* t : {&w.w1, &w.b1, &w.w2, &w.c2, &w.small, &w.shared, &w.big, &w.k1, &w.kb, &w.k2})
    total_values += static_cast<size_t>(t->size());
  EXPECT_EQ(f32, total_values * 4);
  const size_t compact_values = static_cast<size_t>(w.w1.size() + w.w2.size() + w.k1.size() + w.k2.size());
  SessionOptions o;
  o.weight_storage = WeightStorage::Binary16;
  const size_t b16 = m.session(o).weight_bytes();
  EXPECT_EQ(b16, f32 - 2 * compact_values);
  o.weight_storage = WeightStorage::BFloat16;
  const size_t bf16 = m.session(o).weight_bytes();
  EXPECT_EQ(bf16, f32 - 2 * (compact_values + static_cast<size_t>(w.big.size())));
  std::printf("weight bytes: float32 %zu, binary16 %zu, bfloat16 %zu\n", f32, b16, bf16);
}

// A model that is nothing but one large weight product: the resident weight bytes halve.
TEST(WeightStorage, ResidentWeightBytesHalve) {
  ModelBuilder m(17);
  m.input("x", DType::F32, {2, 512}).initializer("w", random_tensor({512, 512}, 30));
  m.node("MatMul", {"x", "w"}, {"y"}).output("y", DType::F32);
  SessionOptions o;
  const size_t f32 = m.session(o).weight_bytes();
  o.weight_storage = WeightStorage::Binary16;
  EXPECT_EQ(m.session(o).weight_bytes() * 2, f32);
  EXPECT_EQ(f32, size_t{512 * 512 * 4});
}

}  // namespace
}  // namespace onemodel::test
