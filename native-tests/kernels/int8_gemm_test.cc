// The int8 product kernel on every kernel path this CPU runs, against a 64-bit naive reference written here:
// random shapes (1, odd, past kc = 512, past the 48 x 64 chunks), every signedness and zero-point kind, every
// epilogue, strided output, im2col A, pre-packed B, and identical bits at 1, 2 and 3 threads. The AVX-512
// path runs the microkernel this CPU gets (vpdpbusd with AVX512-VNNI, vpmaddwd without); k values that are
// not a multiple of 4 exercise the ragged last group of the VNNI one, and n up to 16 past a multiple of 32
// its 16-column variant. Column-major outputs (2 threads) cover the epilogue's 16 x 16 block transpose and
// its ragged edges.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

namespace onemodel {
namespace {

int64_t value(const std::vector<uint8_t>& bytes, bool is_signed, int64_t i) {
  return is_signed ? static_cast<int64_t>(static_cast<int8_t>(bytes[i])) : static_cast<int64_t>(bytes[i]);
}

// One random problem: operands as bytes (read as int8 or uint8), zero points, epilogue parameters.
struct Problem {
  int64_t m = 1, n = 1, k = 1;
  bool a_signed = false, b_signed = false;
  std::vector<uint8_t> a, b, a_zero, b_zero;  // a: m x k row-major (or an image with conv), b: k x n
  bool a_zero_per_row = false, b_zero_per_col = false, b_transposed = false;
  bool a_transposed = false;  // a stored k x m (a 1x1 convolution's input planes)
  Int8Epilogue epilogue = Int8Epilogue::Int32;
  std::vector<int32_t> bias_i32;
  std::vector<float> mult, scale, bias_f32;
  int32_t y_zero = 0;
  bool y_signed = false;
  bool conv = false;
  Int8ConvA geometry;
  int64_t channels = 1;

  int64_t za(int64_t i) const { return a_zero.empty() ? 0 : value(a_zero, a_signed, a_zero_per_row ? i : 0); }
  int64_t zb(int64_t j) const { return b_zero.empty() ? 0 : value(b_zero, b_signed, b_zero_per_col ? j : 0); }
  int64_t a_at(int64_t i, int64_t p) const {
    if (!conv) return value(a, a_signed, a_transposed ? p * m + i : i * k + p);
    const Int8ConvA& g = geometry;
    const int64_t taps = g.kernel_h * g.kernel_w, c = p / taps, kh = p % taps / g.kernel_w,
                  kw = p % g.kernel_w;
    const int64_t ih = i / g.out_w * g.stride_h - g.pad_top + kh * g.dilation_h;
    const int64_t iw = i % g.out_w * g.stride_w - g.pad_left + kw * g.dilation_w;
    if (ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) return za(i);
    return value(a, a_signed, (c * g.in_h + ih) * g.in_w + iw);
  }
  int64_t b_at(int64_t p, int64_t j) const {
    return value(b, b_signed, b_transposed ? j * k + p : p * n + j);
  }

  // The exact 64-bit sum of (A - zA)(B - zB).
  int64_t product(int64_t i, int64_t j) const {
    int64_t sum = 0;
    for (int64_t p = 0; p < k; ++p) sum += (a_at(i, p) - za(i)) * (b_at(p, j) - zb(j));
    return sum;
  }

  Int8GemmArgs args(void* c, int64_t c_row, int64_t c_col) const {
    Int8GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    g.a = a.data(), g.a_row = a_transposed ? 1 : k, g.a_col = a_transposed ? m : 1, g.a_signed = a_signed;
    g.a_zero = a_zero.empty() ? nullptr : a_zero.data();
    g.a_zero_per_row = a_zero_per_row;
    if (conv) g.conv = &geometry;
    g.b = b.data(), g.b_signed = b_signed;
    g.b_row = b_transposed ? 1 : n, g.b_col = b_transposed ? k : 1;
    g.b_zero = b_zero.empty() ? nullptr : b_zero.data();
    g.b_zero_per_col = b_zero_per_col;
    g.epilogue = epilogue;
    g.c = c, g.c_row = c_row, g.c_col = c_col;
    g.bias_i32 = bias_i32.empty() ? nullptr : bias_i32.data();
    g.mult = mult.data(), g.mult_per_col = mult.size() > 1;
    g.y_zero = y_zero, g.y_signed = y_signed;
    g.scale = scale.data(), g.scale_per_col = scale.size() > 1;
    g.bias_f32 = bias_f32.empty() ? nullptr : bias_f32.data();
    g.exact = true;
    return g;
  }
};

// Reference outputs as 32-bit patterns (int32, the 8-bit value, or the float's bits), computed in 64-bit
// integers and double-checked float steps that mirror int8.md's formulas.
uint32_t reference(const Problem& pr, int64_t i, int64_t j) {
  int64_t acc = pr.product(i, j);
  if (pr.epilogue != Int8Epilogue::Float && !pr.bias_i32.empty()) acc += pr.bias_i32[j];
  switch (pr.epilogue) {
    case Int8Epilogue::Int32:
      return static_cast<uint32_t>(static_cast<int32_t>(acc));
    case Int8Epilogue::Requantize: {
      const float prod = static_cast<float>(acc) * pr.mult[pr.mult.size() > 1 ? j : 0];
      double q = std::nearbyint(static_cast<double>(prod)) + pr.y_zero;  // default mode: ties to even
      const double lo = pr.y_signed ? -128 : 0, hi = pr.y_signed ? 127 : 255;
      q = std::isnan(q) ? lo : (q < lo ? lo : (q > hi ? hi : q));
      return static_cast<uint32_t>(static_cast<int32_t>(q)) & 0xFFu;
    }
    case Int8Epilogue::Float: {
      float v = static_cast<float>(acc) * pr.scale[pr.scale.size() > 1 ? j : 0];
      if (!pr.bias_f32.empty()) v = v + pr.bias_f32[j];
      uint32_t u;
      std::memcpy(&u, &v, 4);
      return u;
    }
  }
  return 0;
}

// Runs the kernel and returns outputs as 32-bit patterns (c is written transposed when `column_major`).
std::vector<uint32_t> run(const KernelTable& t, const Problem& pr, int threads, bool prepack,
                          bool column_major) {
  const size_t elem = pr.epilogue == Int8Epilogue::Requantize ? 1 : 4;
  std::vector<uint8_t> c(static_cast<size_t>(pr.m * pr.n) * elem + 64, 0xCD);
  const int64_t c_row = column_major ? 1 : pr.n, c_col = column_major ? pr.m : 1;
  Int8GemmArgs args = pr.args(c.data(), c_row, c_col);
  ThreadContext ctx{threads};
  std::vector<uint8_t> packed;
  Int8PackedB packed_b;
  if (prepack) {
    packed.resize(t.int8_packed_b_bytes(pr.k, pr.n) + 64);
    auto* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(packed.data()) + 63) / 64 * 64);
    t.int8_pack_b(args.b, args.b_signed, args.b_row, args.b_col, pr.k, pr.n, aligned);
    packed_b = {aligned, pr.k, pr.n};
  }
  std::vector<uint8_t> scratch(t.int8_scratch_bytes(args, prepack, ctx));
  t.int8_gemm(args, prepack ? &packed_b : nullptr, scratch.empty() ? nullptr : scratch.data(), ctx);
  for (size_t x = static_cast<size_t>(pr.m * pr.n) * elem; x < c.size(); ++x)
    EXPECT_EQ(c[x], 0xCD) << "stray write";
  std::vector<uint32_t> out(static_cast<size_t>(pr.m * pr.n));
  for (int64_t i = 0; i < pr.m; ++i) {
    for (int64_t j = 0; j < pr.n; ++j) {
      const size_t at = static_cast<size_t>(i * c_row + j * c_col) * elem;
      uint32_t u = 0;
      std::memcpy(&u, c.data() + at, elem);
      out[static_cast<size_t>(i * pr.n + j)] = u;
    }
  }
  return out;
}

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t count) {
  std::vector<uint8_t> v(static_cast<size_t>(count));
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xFF);
  return v;
}

Problem random_problem(std::mt19937& rng, int64_t m, int64_t n, int64_t k, int variant) {
  Problem pr;
  pr.m = m, pr.n = n, pr.k = k;
  pr.a_signed = variant & 1;
  pr.b_signed = (variant >> 1) & 1;
  pr.b_transposed = (variant >> 2) & 1;
  pr.a_transposed = variant % 5 >= 3;
  pr.a = random_bytes(rng, m * k);
  pr.b = random_bytes(rng, k * n);
  const int zero_kind = variant % 3;  // none, per tensor, per row/column
  if (zero_kind == 1) {
    pr.a_zero = random_bytes(rng, 1);
    pr.b_zero = random_bytes(rng, 1);
  } else if (zero_kind == 2) {
    pr.a_zero = random_bytes(rng, m);
    pr.b_zero = random_bytes(rng, n);
    pr.a_zero_per_row = pr.b_zero_per_col = true;
  }
  pr.epilogue = static_cast<Int8Epilogue>(variant % 4 == 3 ? 0 : variant % 4);
  std::uniform_real_distribution<float> unit(1e-6f, 1e-3f);
  std::uniform_int_distribution<int32_t> bias(-100000, 100000);
  const bool per_col = (variant >> 3) & 1;
  pr.mult.assign(per_col ? n : 1, 0.0f);
  for (float& x : pr.mult) x = unit(rng);
  pr.scale = pr.mult;
  if ((variant >> 4) & 1) {
    for (int64_t j = 0; j < n; ++j) {
      pr.bias_i32.push_back(bias(rng));
      pr.bias_f32.push_back(static_cast<float>(bias(rng)) * 0.001f);
    }
  }
  pr.y_signed = (variant >> 5) & 1;
  pr.y_zero = pr.y_signed ? static_cast<int32_t>(rng() % 256) - 128 : static_cast<int32_t>(rng() % 256);
  return pr;
}

void check(const Problem& pr, const std::string& label) {
  std::vector<uint32_t> expected(static_cast<size_t>(pr.m * pr.n));
  for (int64_t i = 0; i < pr.m; ++i) {
    for (int64_t j = 0; j < pr.n; ++j) expected[static_cast<size_t>(i * pr.n + j)] = reference(pr, i, j);
  }
  for (const KernelTable* t : available_kernel_tables()) {
    for (int threads : {1, 2, 3}) {
      for (bool prepack : {false, true}) {
        const bool column_major = threads == 2;
        const std::vector<uint32_t> got = run(*t, pr, threads, prepack, column_major);
        size_t bad = 0;
        for (size_t x = 0; x < got.size(); ++x) {
          if (got[x] != expected[x] && bad++ < 3) {
            ADD_FAILURE() << label << " path " << t->name << " threads " << threads << " prepack " << prepack
                          << " at (" << x / static_cast<size_t>(pr.n) << ", " << x % static_cast<size_t>(pr.n)
                          << "): got " << got[x] << " expected " << expected[x];
          }
        }
        if (bad > 0) return;
      }
    }
  }
}

TEST(Int8Gemm, RandomShapesEveryPathAndEpilogue) {
  std::mt19937 rng(1234);
  const int64_t shapes[][3] = {{1, 1, 1},    {1, 7, 3},     {5, 1, 9},      {7, 13, 1},     {3, 5, 0},
                               {13, 17, 31}, {49, 65, 33},  {50, 130, 513}, {97, 70, 1030}, {6, 16, 64},
                               {12, 32, 2},  {48, 64, 512}, {2, 200, 5},    {100, 3, 17}};
  int variant = 0;
  for (const auto& s : shapes) {
    for (int rep = 0; rep < 4; ++rep, variant += 7) {
      const Problem pr = random_problem(rng, s[0], s[1], s[2], variant % 64);
      check(pr, "shape " + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) +
                    " variant " + std::to_string(variant % 64));
      if (HasFailure()) return;
    }
  }
}

TEST(Int8Gemm, EveryVariantOnOneOddShape) {
  std::mt19937 rng(99);
  for (int variant = 0; variant < 64; ++variant) {
    check(random_problem(rng, 23, 37, 45, variant), "variant " + std::to_string(variant));
    if (HasFailure()) return;
  }
}

TEST(Int8Gemm, ExtremeValuesAndRequantizeTies) {
  // All operands at the ends of their ranges, and multipliers that land products on .5.
  for (int variant = 0; variant < 8; ++variant) {
    Problem pr;
    pr.m = 9, pr.n = 11, pr.k = 600;
    pr.a_signed = variant & 1, pr.b_signed = (variant >> 1) & 1;
    pr.a.assign(static_cast<size_t>(pr.m * pr.k), pr.a_signed ? 0x80 : 0xFF);
    pr.b.assign(static_cast<size_t>(pr.k * pr.n), pr.b_signed ? 0x80 : 0x00);
    pr.a_zero = {static_cast<uint8_t>(pr.a_signed ? 0x7F : 0x00)};
    pr.b_zero = {static_cast<uint8_t>(pr.b_signed ? 0x7F : 0xFF)};
    pr.epilogue = variant & 4 ? Int8Epilogue::Requantize : Int8Epilogue::Int32;
    pr.mult = {1.0f / 1024.0f};  // exact, so many outputs are ties
    pr.y_zero = 3;
    check(pr, "extreme variant " + std::to_string(variant));
  }
  Problem ties;
  ties.m = 1, ties.n = 8, ties.k = 1;
  ties.a = {1};
  ties.b = {1, 3, 5, 7, 9, 11, 13, 15};  // 0.5 * odd: every output a tie
  ties.epilogue = Int8Epilogue::Requantize;
  ties.mult = {0.5f};
  check(ties, "ties");
}

TEST(Int8Gemm, RequantizeNonFiniteAndHugeMultipliers) {
  // One multiplier per column: NaN and a zero sum times infinity give the lowest value, infinities and huge
  // products saturate, a subnormal one rounds to the zero point. Row 0 of A equals its zero point (sums 0).
  std::mt19937 rng(7);
  const float inf = std::numeric_limits<float>::infinity();
  for (int y_signed = 0; y_signed < 2; ++y_signed) {
    Problem pr;
    pr.m = 20, pr.n = 9, pr.k = 5;
    pr.a = random_bytes(rng, pr.m * pr.k);
    pr.b = random_bytes(rng, pr.k * pr.n);
    pr.a_zero = {pr.a[0]};
    for (int64_t p = 0; p < pr.k; ++p) pr.a[static_cast<size_t>(p)] = pr.a[0];
    pr.epilogue = Int8Epilogue::Requantize;
    pr.mult = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e30f, -1e30f, 0.0f, 3e-39f, 1.0f, -0.5f};
    pr.y_signed = y_signed == 1;
    pr.y_zero = pr.y_signed ? -5 : 7;
    check(pr, "non-finite multipliers, signed output " + std::to_string(y_signed));
  }
}

TEST(Int8Gemm, Im2colA) {
  std::mt19937 rng(7);
  struct Case {
    int64_t channels, in_h, in_w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  };
  const Case cases[] = {{3, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                        {2, 1, 20, 1, 5, 1, 2, 1, 1, 0, 2, 0, 1},
                        {5, 8, 7, 2, 3, 2, 1, 2, 1, 0, 1, 1, 0},
                        {1, 5, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
                        {70, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                        // Windows inside the input for most or all panels (the unchecked packing).
                        {4, 12, 30, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
                        {3, 20, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
                        {2, 16, 17, 3, 2, 1, 3, 2, 2, 2, 1, 2, 0},
                        // Stride 2 with dilation, unpadded: AVX-512 gathers whole panel rows by masked loads
                        // up to the input's last byte.
                        {3, 9, 40, 3, 3, 1, 2, 1, 2, 0, 0, 0, 0}};
  int variant = 0;
  for (const Case& c : cases) {
    Problem pr;
    pr.conv = true;
    Int8ConvA& g = pr.geometry;
    g.in_h = c.in_h, g.in_w = c.in_w, g.kernel_h = c.kh, g.kernel_w = c.kw, g.stride_h = c.sh,
    g.stride_w = c.sw;
    g.dilation_h = c.dh, g.dilation_w = c.dw, g.pad_top = c.pt, g.pad_left = c.pl;
    const int64_t out_h = (c.in_h + c.pt + c.pb - ((c.kh - 1) * c.dh + 1)) / c.sh + 1;
    g.out_w = (c.in_w + c.pl + c.pr - ((c.kw - 1) * c.dw + 1)) / c.sw + 1;
    // 19 columns fill most of a 32-column strip; 16 and 7 leave its second half to padding (AVX-512's
    // 16-column microkernel).
    const int64_t widths[] = {19, 16, 7};
    pr.m = out_h * g.out_w, pr.n = widths[variant % 3], pr.k = c.channels * c.kh * c.kw;
    pr.a_signed = variant & 1, pr.b_signed = (variant >> 1) & 1;
    pr.a = random_bytes(rng, c.channels * c.in_h * c.in_w);
    pr.b = random_bytes(rng, pr.k * pr.n);
    pr.a_zero = random_bytes(rng, 1);
    pr.b_zero = random_bytes(rng, pr.n);
    pr.b_zero_per_col = true;
    pr.b_transposed = true;  // the weight layout of a convolution: n rows of k
    if (variant % 2 == 1) {  // QLinearConv's epilogue: per-channel multipliers
      pr.epilogue = Int8Epilogue::Requantize;
      std::uniform_real_distribution<float> unit(1e-4f, 1e-2f);
      for (int64_t j = 0; j < pr.n; ++j) pr.mult.push_back(unit(rng));
      pr.y_zero = 9;
    }
    check(pr, "conv case " + std::to_string(variant));
    ++variant;
  }
}

}  // namespace
}  // namespace onemodel
