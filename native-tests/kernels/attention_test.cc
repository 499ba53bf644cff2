// Fused attention (kernels-attention.md) on every kernel path and at 1 and 2 threads: the exact flavour
// equals, bit for bit, a one-row-at-a-time transcription of the exact definition written here; both flavours
// stay within the spec's 4e-6 of a double-precision naive reference on its input distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/math/transcendental.h"
#include "kernels/simd.h"

namespace onemodel {
namespace {

using simd::bits_to_float;
using simd::float_to_bits;
using Scalar = simd::ScalarLanes<false>;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float exp_np(float x) {
  return math::exp_non_positive<Scalar>(x);
}

// A 4-D tensor view [batch, heads, rows, cols] over a buffer with free strides.
struct View {
  const float* data;
  AttentionStrides st;
  float at(int64_t b, int64_t h, int64_t i, int64_t x) const {
    return data[b * st.batch + h * st.head + i * st.row + x * st.col];
  }
};

// The exact definition for one (b, h, i): online softmax over blocks of 64 keys, one score accumulator in
// increasing x, s = mask + dot*scale, the 16-partial block sum, the three alpha cases, out = acc / l.
std::vector<float> exact_row(const AttentionArgs& a, int64_t b, int64_t h, int64_t i) {
  const View q{a.q, a.q_strides}, k{a.k, a.k_strides}, v{a.v, a.v_strides}, mask{a.mask, a.mask_strides};
  float m = -kInf, l = 0.0f;
  std::vector<float> acc(static_cast<size_t>(a.d), 0.0f);
  for (int64_t kb = 0; kb < a.k_len; kb += 64) {
    const int64_t n = std::min<int64_t>(64, a.k_len - kb);
    std::vector<float> s(static_cast<size_t>(n)), p(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      float dot = 0.0f;
      for (int64_t x = 0; x < a.d; ++x) dot = dot + q.at(b, h, i, x) * k.at(b, h, kb + j, x);
      const float mk = a.mask ? mask.at(b, h, i, kb + j) : 0.0f;
      s[j] = mk + dot * a.scale;
    }
    float bm = -kInf;
    for (float x : s) bm = x > bm ? x : bm;
    const float m_new = bm > m ? bm : m;
    const float shift = m_new == -kInf ? 0.0f : m_new;
    float partial[16] = {};
    for (int64_t j = 0; j < n; ++j) {
      p[j] = exp_np(s[j] - shift);
      partial[j % 16] = partial[j % 16] + p[j];
    }
    for (int half = 8; half >= 1; half /= 2) {
      for (int t = 0; t < half; ++t) partial[t] = partial[t] + partial[t + half];
    }
    const float alpha = m == -kInf ? 0.0f : m == shift ? 1.0f : exp_np(m - shift);
    l = l * alpha + partial[0];
    if (alpha != 1.0f) {
      for (float& x : acc) x = x * alpha;
    }
    m = m_new;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t x = 0; x < a.d; ++x) acc[x] = acc[x] + p[j] * v.at(b, h, kb + j, x);
    }
  }
  for (float& x : acc) {
    x = x / l;
    if (std::isnan(x)) x = bits_to_float(simd::kCanonicalNaN);
  }
  return acc;
}

// softmax(scale * q k^T + mask) v in double, straight from the formula.
std::vector<double> double_row(const AttentionArgs& a, int64_t b, int64_t h, int64_t i) {
  const View q{a.q, a.q_strides}, k{a.k, a.k_strides}, v{a.v, a.v_strides}, mask{a.mask, a.mask_strides};
  std::vector<double> s(static_cast<size_t>(a.k_len));
  double m = -HUGE_VAL;
  for (int64_t j = 0; j < a.k_len; ++j) {
    double dot = 0;
    for (int64_t x = 0; x < a.d; ++x) dot += double(q.at(b, h, i, x)) * double(k.at(b, h, j, x));
    s[j] = dot * a.scale + (a.mask ? mask.at(b, h, i, j) : 0.0);
    m = std::max(m, s[j]);
  }
  double l = 0;
  for (double& x : s) l += (x = std::exp(x - m));
  std::vector<double> out(static_cast<size_t>(a.d), 0.0);
  for (int64_t j = 0; j < a.k_len; ++j) {
    for (int64_t x = 0; x < a.d; ++x) out[x] += s[j] / l * v.at(b, h, j, x);
  }
  return out;
}

std::vector<const KernelTable*> available_tables() {
  std::vector<const KernelTable*> out;
  for (KernelPath path : {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512}) {
    if (const KernelTable* table = kernel_table(path)) out.push_back(table);
  }
  return out;
}

// Buffers for one case. Q, K, V are stored as [batch, len, heads, d] (the head-split layout the pass absorbs)
// when `interleaved`, else [batch, heads, len, d]; the output likewise.
struct Case {
  Case(int64_t b, int64_t h, int64_t q, int64_t k, int64_t d)
      : batch(b), heads(h), q_len(q), k_len(k), d(d) {}
  int64_t batch, heads, q_len, k_len, d;
  bool interleaved = false;
  enum class Mask { None, Full, PerKey, PerRow } mask_kind = Mask::None;
  float scale = 0.125f;

  std::vector<float> q, k, v, mask, out;

  AttentionStrides strides(int64_t len, int64_t cols) const {
    if (interleaved) return {len * heads * cols, cols, heads * cols, 1};
    return {heads * len * cols, len * cols, cols, 1};
  }

  void fill(std::mt19937& rng, float qk_sigma = 1.5f) {
    std::normal_distribution<float> qk(0.0f, qk_sigma), vals(0.0f, 1.0f);
    q.resize(static_cast<size_t>(batch * heads * q_len * d));
    k.resize(static_cast<size_t>(batch * heads * k_len * d));
    v.resize(k.size());
    for (float& x : q) x = qk(rng);
    for (float& x : k) x = qk(rng);
    for (float& x : v) x = vals(rng);
    std::uniform_real_distribution<float> small(-1.0f, 1.0f);
    switch (mask_kind) {
      case Mask::None:
        mask.clear();
        break;
      case Mask::Full:
        mask.resize(static_cast<size_t>(batch * heads * q_len * k_len));
        break;
      case Mask::PerKey:  // [batch, 1, 1, k_len], the usual padding mask
        mask.resize(static_cast<size_t>(batch * k_len));
        break;
      case Mask::PerRow:  // [q_len, 1]: one value per query row, broadcast over keys, batches and heads
        mask.resize(static_cast<size_t>(q_len));
        break;
    }
    for (float& x : mask) x = small(rng);
  }

  AttentionArgs args(bool exact) {
    out.assign(static_cast<size_t>(batch * heads * q_len * d), -7.0f);
    AttentionArgs a;
    a.batch = batch, a.heads = heads, a.q_len = q_len, a.k_len = k_len, a.d = d;
    a.q = q.data(), a.k = k.data(), a.v = v.data(), a.out = out.data();
    a.q_strides = a.out_strides = strides(q_len, d);
    a.k_strides = a.v_strides = strides(k_len, d);
    a.scale = scale;
    a.exact = exact;
    if (mask_kind != Mask::None) a.mask = mask.data();
    if (mask_kind == Mask::Full) a.mask_strides = {heads * q_len * k_len, q_len * k_len, k_len, 1};
    if (mask_kind == Mask::PerKey) a.mask_strides = {k_len, 0, 0, 1};
    if (mask_kind == Mask::PerRow) a.mask_strides = {0, 0, 1, 0};
    return a;
  }
};

std::string describe(const KernelTable& t, int threads, const Case& c) {
  return std::string(t.name) + " threads " + std::to_string(threads) + " b" + std::to_string(c.batch) + " h" +
         std::to_string(c.heads) + " q" + std::to_string(c.q_len) + " k" + std::to_string(c.k_len) + " d" +
         std::to_string(c.d) + " mask " + std::to_string(static_cast<int>(c.mask_kind)) +
         (c.interleaved ? " interleaved" : "");
}

void run_kernel(const KernelTable& t, const AttentionArgs& a, int threads) {
  const ThreadContext ctx{threads};
  std::vector<float> scratch(t.attention_scratch_floats(a, ctx));
  t.attention(a, scratch.data(), ctx);
}

void expect_exact_matches_definition(Case& c) {
  for (const KernelTable* t : available_tables()) {
    for (int threads : {1, 2}) {
      const AttentionArgs a = c.args(true);
      run_kernel(*t, a, threads);
      for (int64_t b = 0; b < c.batch; ++b) {
        for (int64_t h = 0; h < c.heads; ++h) {
          for (int64_t i = 0; i < c.q_len; ++i) {
            const std::vector<float> want = exact_row(a, b, h, i);
            for (int64_t x = 0; x < c.d; ++x) {
              const float got =
                  a.out[b * a.out_strides.batch + h * a.out_strides.head + i * a.out_strides.row + x];
              ASSERT_EQ(float_to_bits(got), float_to_bits(want[x]))
                  << describe(*t, threads, c) << " at b" << b << " h" << h << " i" << i << " x" << x;
            }
          }
        }
      }
    }
  }
}

TEST(Attention, ExactMatchesTheDefinitionOnEveryPathAndThreadCount) {
  std::mt19937 rng(77);
  const Case shapes[] = {
      {2, 3, 37, 150, 32},  // q_len not a multiple of 32, k_len not a multiple of 64
      {1, 2, 64, 128, 64}, {1, 1, 5, 1, 8},    {1, 2, 33, 65, 6},   {2, 1, 3, 63, 2},
      {1, 1, 32, 64, 20},  {1, 2, 1, 200, 16}, {1, 2, 3, 4200, 64},  // more keys than a thread keeps packed
                                                                     // for a whole head
  };
  for (Case c : shapes) {
    for (auto mask : {Case::Mask::None, Case::Mask::Full, Case::Mask::PerKey, Case::Mask::PerRow}) {
      c.mask_kind = mask;
      c.interleaved = mask == Case::Mask::PerKey;
      c.fill(rng);
      expect_exact_matches_definition(c);
    }
  }
}

// Rows that exercise the special paths of the definition: a fully masked row (NaN), a row whose first key
// block is fully masked (alpha = 0, shift = 0, then visible keys), a NaN and a +inf score, a -inf score
// among finite ones, and a +inf value.
TEST(Attention, ExactSpecialRowsMatchTheDefinition) {
  std::mt19937 rng(5);
  Case c{1, 2, 40, 150, 16};
  c.mask_kind = Case::Mask::Full;
  c.fill(rng);
  const auto mask_at = [&](int64_t h, int64_t i, int64_t j) -> float& {
    return c.mask[static_cast<size_t>((h * c.q_len + i) * c.k_len + j)];
  };
  for (int64_t j = 0; j < c.k_len; ++j) mask_at(0, 1, j) = -kInf;  // fully masked
  for (int64_t j = 0; j < 64; ++j) mask_at(0, 2, j) = -kInf;       // first block masked
  for (int64_t j = 0; j < 128; ++j) mask_at(1, 3, j) = -kInf;      // two blocks masked
  mask_at(0, 4, 70) = kNaN;                                        // NaN score in the second block
  mask_at(1, 5, 3) = kInf;                                         // +inf score
  mask_at(1, 6, 10) = -kInf;                                       // one masked key
  c.q[static_cast<size_t>(7 * c.d)] = kNaN;                        // NaN query: every score NaN
  c.v[static_cast<size_t>((c.k_len + 9) * c.d + 3)] = kInf;        // +inf value in head 1
  expect_exact_matches_definition(c);

  // The fully masked row is NaN and the row with a masked first block is finite, as the spec says.
  const AttentionArgs a = c.args(true);
  run_kernel(*available_tables().back(), a, 1);
  for (int64_t x = 0; x < c.d; ++x) {
    EXPECT_EQ(float_to_bits(c.out[static_cast<size_t>(1 * c.d + x)]), simd::kCanonicalNaN);
    EXPECT_TRUE(std::isfinite(c.out[static_cast<size_t>(2 * c.d + x)]));
  }
}

// kernels-attention.md "Accuracy": q, k ~ N(0, 1.5^2), both flavours within 4e-6 of the double reference.
TEST(Attention, BothFlavoursAreWithinTheSpecBoundOfADoubleReference) {
  std::mt19937 rng(11);
  const Case shapes[] = {{1, 2, 70, 300, 64}, {2, 2, 33, 129, 32}, {1, 1, 9, 1500, 32}};
  for (Case c : shapes) {
    c.scale = 1.0f / std::sqrt(static_cast<float>(c.d));
    c.mask_kind = Case::Mask::PerKey;
    c.fill(rng);
    for (const KernelTable* t : available_tables()) {
      for (bool exact : {false, true}) {
        for (int threads : {1, 2}) {
          const AttentionArgs a = c.args(exact);
          run_kernel(*t, a, threads);
          double worst = 0;
          for (int64_t b = 0; b < c.batch; ++b) {
            for (int64_t h = 0; h < c.heads; ++h) {
              for (int64_t i = 0; i < c.q_len; ++i) {
                const std::vector<double> want = double_row(a, b, h, i);
                for (int64_t x = 0; x < c.d; ++x) {
                  const float got =
                      a.out[b * a.out_strides.batch + h * a.out_strides.head + i * a.out_strides.row + x];
                  worst = std::max(worst, std::fabs(got - want[x]));
                }
              }
            }
          }
          EXPECT_LE(worst, 4e-6) << describe(*t, threads, c) << (exact ? " exact" : " fast");
        }
      }
    }
  }
}

// Fast mode is deterministic: the same bits at any thread count on one path.
TEST(Attention, FastBitsDoNotDependOnTheThreadCount) {
  std::mt19937 rng(3);
  Case c{2, 2, 100, 190, 32};
  c.mask_kind = Case::Mask::Full;
  c.fill(rng);
  for (const KernelTable* t : available_tables()) {
    run_kernel(*t, c.args(false), 1);
    const std::vector<float> one = c.out;
    run_kernel(*t, c.args(false), 2);
    for (size_t i = 0; i < one.size(); ++i)
      ASSERT_EQ(float_to_bits(one[i]), float_to_bits(c.out[i])) << t->name;
  }
}

}  // namespace
}  // namespace onemodel
