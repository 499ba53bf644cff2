// The GEMM family on every kernel path this CPU runs: exact bits against a naive transcription of
// exact-mode.md's pseudo-code, fast results against a double-precision reference within the Higham bound,
// special values, strides, thread counts and the pre-packed B entry point.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/bits.h"
#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

namespace onemodel {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
// Written outside C's window, and after the scratch buffer, to catch stray writes.
constexpr uint32_t kSentinel = 0xDEADBEEFu;

enum class Values { Ordinary, Special };

// Operands with a chosen memory layout: row-major with padded rows, transposed, or a general stride pair,
// each at an offset inside its buffer.
struct Problem {
  int64_t m, n, k;
  std::vector<float> a_buf, b_buf;
  int64_t a_off = 0, a_row = 0, a_col = 1, b_off = 0, b_row = 0, b_col = 1, ldc = 0;

  float a(int64_t i, int64_t p) const { return a_buf[a_off + i * a_row + p * a_col]; }
  float b(int64_t p, int64_t j) const { return b_buf[b_off + p * b_row + j * b_col]; }

  GemmArgs args(float* c, bool exact) const {
    GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    g.a = a_buf.data() + a_off, g.a_row = a_row, g.a_col = a_col;
    g.b = b_buf.data() + b_off, g.b_row = b_row, g.b_col = b_col;
    g.c = c, g.ldc = ldc, g.exact = exact;
    return g;
  }
};

float random_value(std::mt19937& rng, Values kind) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  if (kind == Values::Ordinary) return unit(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 9) - 4);
  switch (rng() % 12) {
    case 0:
      return from_bits(0x7FC00000u | (rng() & 0x3FFFFFu));  // quiet NaN with a payload
    case 1:
      return from_bits(0xFF800001u + (rng() & 0x3FFFFFu));  // negative signalling NaN
    case 2:
      return (rng() & 1) ? INFINITY : -INFINITY;
    case 3:
      return 0.0f;
    case 4:
      return -0.0f;
    case 5:
      return from_bits((rng() & 0x807FFFFFu) | 1u);  // subnormal of either sign
    case 6:
      return std::ldexp(unit(rng), -120);  // products land in the subnormal range
    default:
      return unit(rng) * 4.0f;
  }
}

// Fills a buffer for an r x c operand in one of four layouts and returns (offset, row stride, col stride).
void fill_operand(std::mt19937& rng, Values kind, int64_t rows, int64_t cols, int layout,
                  std::vector<float>& buf, int64_t& off, int64_t& row, int64_t& col) {
  const int64_t pad = rng() % 4;
  off = rng() % 3;
  switch (layout) {
    case 0:  // row-major, padded rows
      row = cols + pad, col = 1;
      break;
    case 1:  // transposed (column-major)
      row = 1, col = rows + pad;
      break;
    case 2:  // every other element of a wider row-major array
      row = 2 * cols + pad, col = 2;
      break;
    default:  // dense row-major
      row = cols, col = 1;
      break;
  }
  const int64_t extent = rows > 0 && cols > 0 ? off + (rows - 1) * row + (cols - 1) * col + 1 : off + 1;
  buf.resize(static_cast<size_t>(extent));
  for (float& v : buf) v = random_value(rng, kind);
}

Problem make_problem(std::mt19937& rng, int64_t m, int64_t n, int64_t k, Values kind, int a_layout,
                     int b_layout) {
  Problem p{m, n, k, {}, {}};
  fill_operand(rng, kind, m, k, a_layout, p.a_buf, p.a_off, p.a_row, p.a_col);
  fill_operand(rng, kind, k, n, b_layout, p.b_buf, p.b_off, p.b_row, p.b_col);
  p.ldc = n + static_cast<int64_t>(rng() % 3);
  return p;
}

// exact-mode.md's definition, one output at a time.
std::vector<float> naive_exact(const Problem& p) {
  std::vector<float> c(static_cast<size_t>(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (int64_t q = 0; q < p.k; ++q) {
        const float prod = p.a(i, q) * p.b(q, j);
        acc = acc + prod;
      }
      c[i * p.n + j] = std::isnan(acc) ? from_bits(0x7FC00000u) : acc;
    }
  }
  return c;
}

enum class Entry { Gemm, GemmNoScratch, Packed };

// Runs one kernel call and returns C compactly (m x n); checks C's padding and the scratch guard.
std::vector<float> run(const KernelTable& t, const Problem& p, bool exact, int threads, Entry entry) {
  const int64_t c_rows = p.m > 0 ? p.m : 1;
  std::vector<float> c(static_cast<size_t>(c_rows * (p.ldc > 0 ? p.ldc : 1)), from_bits(kSentinel));
  const GemmArgs args = p.args(c.data(), exact);
  const ThreadContext ctx{threads};
  constexpr size_t kGuard = 16;
  std::vector<float> scratch;
  if (entry == Entry::Packed) {
    std::vector<float> packed(t.packed_b_floats(p.k, p.n) + 1);
    t.pack_b(args.b, p.b_row, p.b_col, p.k, p.n, packed.data());
    scratch.assign(t.gemm_packed_scratch_floats(args, ctx) + kGuard, from_bits(kSentinel));
    GemmArgs without_b = args;
    without_b.b = nullptr;
    t.gemm_packed(without_b, PackedB{packed.data(), p.k, p.n}, scratch.data(), ctx);
  } else if (entry == Entry::GemmNoScratch) {
    t.gemm(args, nullptr, ctx);
  } else {
    scratch.assign(t.gemm_scratch_floats(args, ctx) + kGuard, from_bits(kSentinel));
    t.gemm(args, scratch.data(), ctx);
  }
  for (size_t g = 0; g < kGuard && scratch.size() >= kGuard; ++g) {
    EXPECT_EQ(bits(scratch[scratch.size() - 1 - g]), kSentinel) << "scratch overrun";
  }
  std::vector<float> out(static_cast<size_t>(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.ldc; ++j) {
      const float v = c[i * p.ldc + j];
      if (j < p.n)
        out[i * p.n + j] = v;
      else
        EXPECT_EQ(bits(v), kSentinel) << "write outside C at row " << i << " column " << j;
    }
  }
  return out;
}

std::string describe(const KernelTable& t, const Problem& p, int threads) {
  return std::string(t.name) + " m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
         " k=" + std::to_string(p.k) + " a_row=" + std::to_string(p.a_row) +
         " a_col=" + std::to_string(p.a_col) + " b_row=" + std::to_string(p.b_row) +
         " b_col=" + std::to_string(p.b_col) + " threads=" + std::to_string(threads);
}

void expect_same_bits(const std::vector<float>& want, const std::vector<float>& got,
                      const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  int reported = 0;
  for (size_t i = 0; i < want.size() && reported < 5; ++i) {
    if (bits(want[i]) != bits(got[i])) {
      ADD_FAILURE() << what << ": element " << i << " want " << std::hexfloat << want[i] << " (0x" << std::hex
                    << bits(want[i]) << ") got " << got[i] << " (0x" << bits(got[i]) << ")";
      ++reported;
    }
  }
}

// The double-precision reference of fast mode: each output summed in the same order, with sum |a*b| for the
// Higham bound.
struct FastReference {
  std::vector<double> value, magnitude;
};

FastReference fast_reference(const Problem& p) {
  FastReference r{std::vector<double>(static_cast<size_t>(p.m * p.n)),
                  std::vector<double>(static_cast<size_t>(p.m * p.n))};
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0.0, magnitude = 0.0;
      for (int64_t q = 0; q < p.k; ++q) {
        const double prod = static_cast<double>(p.a(i, q)) * static_cast<double>(p.b(q, j));
        sum += prod;
        magnitude += std::fabs(prod);
      }
      r.value[i * p.n + j] = sum;
      r.magnitude[i * p.n + j] = magnitude;
    }
  }
  return r;
}

// Fast results within k*u*sum|a*b| + 1e-30 of the reference when it is finite, and NaN or the same infinity
// where it is not. Inputs here never overflow binary32 partial sums.
void expect_fast_within_bound(const Problem& p, const FastReference& r, const std::vector<float>& got,
                              const std::string& what) {
  const double u = std::ldexp(1.0, -24);
  int reported = 0;
  for (size_t e = 0; e < got.size() && reported < 5; ++e) {
    const double ref = r.value[e];
    const float c = got[e];
    bool ok;
    if (std::isnan(ref))
      ok = std::isnan(c);
    else if (std::isinf(ref))
      ok = c == static_cast<float>(ref);
    else
      ok = std::fabs(static_cast<double>(c) - ref) <= static_cast<double>(p.k) * u * r.magnitude[e] + 1e-30;
    if (!ok) {
      ADD_FAILURE() << what << ": element " << e << " = " << c << " reference " << ref;
      ++reported;
    }
  }
}

// Every value 0..70 of each dimension appears, paired with random other dimensions, plus the full small cube.
std::vector<std::array<int64_t, 3>> sweep_shapes(std::mt19937& rng) {
  std::vector<std::array<int64_t, 3>> shapes;
  for (int64_t m = 0; m <= 9; ++m)
    for (int64_t n = 0; n <= 9; ++n)
      for (int64_t k = 0; k <= 9; ++k) shapes.push_back({m, n, k});
  for (int dim = 0; dim < 3; ++dim) {
    for (int64_t v = 0; v <= 70; ++v) {
      for (int rep = 0; rep < 2; ++rep) {
        std::array<int64_t, 3> s{static_cast<int64_t>(rng() % 71), static_cast<int64_t>(rng() % 71),
                                 static_cast<int64_t>(rng() % 71)};
        s[dim] = v;
        shapes.push_back(s);
      }
    }
  }
  return shapes;
}

TEST(Gemm, EveryPathExactMatchesDefinitionForSizesUpTo70) {
  std::mt19937 rng(1234);
  const auto tables = available_kernel_tables();
  ASSERT_FALSE(tables.empty());
  for (const auto& s : sweep_shapes(rng)) {
    const Values kind = rng() % 4 == 0 ? Values::Special : Values::Ordinary;
    const Problem p = make_problem(rng, s[0], s[1], s[2], kind, rng() % 4, rng() % 4);
    const std::vector<float> want = naive_exact(p);
    for (const KernelTable* t : tables) {
      expect_same_bits(want, run(*t, p, true, 1, Entry::Gemm), describe(*t, p, 1));
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(Gemm, EveryPathFastWithinHighamBoundForSizesUpTo70) {
  std::mt19937 rng(99);
  for (const auto& s : sweep_shapes(rng)) {
    const Values kind = rng() % 4 == 0 ? Values::Special : Values::Ordinary;
    const Problem p = make_problem(rng, s[0], s[1], s[2], kind, rng() % 4, rng() % 4);
    const FastReference ref = fast_reference(p);
    for (const KernelTable* t : available_kernel_tables()) {
      expect_fast_within_bound(p, ref, run(*t, p, false, 1, Entry::Gemm), describe(*t, p, 1));
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(Gemm, KZeroStoresPositiveZero) {
  std::mt19937 rng(5);
  const Problem p = make_problem(rng, 13, 37, 0, Values::Ordinary, 0, 0);
  for (const KernelTable* t : available_kernel_tables()) {
    for (bool exact : {true, false}) {
      for (Entry e : {Entry::Gemm, Entry::Packed}) {
        for (float v : run(*t, p, exact, 1, e)) EXPECT_EQ(bits(v), 0u) << t->name;
      }
    }
  }
}

TEST(Gemm, SignedZerosAndNaNPayloadsFollowTheDefinition) {
  // -0 * +1 summed from +0 must give +0; every NaN (any sign or payload, or inf - inf, or 0 * inf) becomes
  // 0x7FC00000.
  Problem p{2, 3, 2, {}, {}};
  p.a_buf = {-0.0f, -0.0f, INFINITY, 1.0f};
  p.a_row = 2, p.a_col = 1;
  p.b_buf = {1.0f, from_bits(0xFFC12345u), -INFINITY, 1.0f, 0.0f, 1.0f};
  p.b_row = 3, p.b_col = 1;
  p.ldc = 3;
  const std::vector<float> want = naive_exact(p);
  EXPECT_EQ(bits(want[0]), 0u);
  EXPECT_EQ(bits(want[1]), 0x7FC00000u);
  EXPECT_EQ(bits(want[2]), 0x7FC00000u);  // -0 * -inf
  for (const KernelTable* t : available_kernel_tables()) {
    expect_same_bits(want, run(*t, p, true, 1, Entry::Gemm), std::string(t->name));
    expect_same_bits(want, run(*t, p, true, 1, Entry::Packed), std::string(t->name));
  }
}

// Shapes past the tile and k-block sizes (and past the k up to which a thread keeps packed A), in every
// operand layout, at one and two threads, through all entry points.
TEST(Gemm, LargeShapesAgreeAcrossPathsThreadsAndEntryPoints) {
  std::mt19937 rng(2024);
  const std::array<int64_t, 3> shapes[] = {{300, 517, 700}, {97, 129, 257},  {1, 1000, 513}, {200, 1, 300},
                                           {96, 128, 256},  {193, 255, 769}, {100, 40, 4200}};
  int shape_index = 0;
  for (const auto& s : shapes) {
    const int layout = shape_index++ % 4;
    const Problem p = make_problem(rng, s[0], s[1], s[2], Values::Ordinary, layout, (layout + 1) % 4);
    const std::vector<float> want = naive_exact(p);
    const FastReference ref = fast_reference(p);
    std::vector<float> fast_first;
    for (const KernelTable* t : available_kernel_tables()) {
      for (int threads : {1, 2}) {
        const std::string what = describe(*t, p, threads);
        expect_same_bits(want, run(*t, p, true, threads, Entry::Gemm), what + " exact");
        expect_same_bits(want, run(*t, p, true, threads, threads == 1 ? Entry::Packed : Entry::GemmNoScratch),
                         what + " exact, other entry point");
        const std::vector<float> fast = run(*t, p, false, threads, Entry::Gemm);
        expect_fast_within_bound(p, ref, fast, what + " fast");
        // Fast mode is repeatable on one path: the thread count and the entry point do not matter.
        if (threads == 1)
          fast_first = fast;
        else
          expect_same_bits(fast_first, fast, what + " fast, 2 threads against 1");
        expect_same_bits(fast_first, run(*t, p, false, threads, Entry::Packed), what + " fast packed");
      }
    }
  }
}

// A product split along k into two calls, the second with `accumulate`, gives the one call's bits in both
// modes: Conv lowers a deep convolution's k a run of channels at a time this way. Both entry points, splits
// inside and at the edges of a k-block, NaN and infinity among the values (fast mode's NaN payloads are the
// hardware's, kernels-gemm.md, so there only NaN-ness is compared); k = 0 with accumulate leaves C.
TEST(Gemm, AccumulateContinuesTheSumsOfAnEarlierCall) {
  std::mt19937 rng(77);
  const std::array<int64_t, 4> cases[] = {
      {13, 37, 300, 1}, {97, 129, 700, 252}, {25, 70, 513, 256}, {1, 33, 9, 8}, {40, 64, 600, 599}};
  int layout = 0;
  for (const auto& [m, n, k, split] : cases) {
    const Values kind = layout % 2 == 0 ? Values::Ordinary : Values::Special;
    Problem p = make_problem(rng, m, n, k, kind, layout % 4, (layout + 1) % 4);
    ++layout;
    for (const KernelTable* t : available_kernel_tables()) {
      for (bool exact : {true, false}) {
        for (Entry e : {Entry::Gemm, Entry::Packed}) {
          const std::vector<float> whole = run(*t, p, exact, 1, e);
          Problem head = p, tail = p;
          head.k = split;
          tail.k = k - split;
          tail.a_off += split * p.a_col;
          tail.b_off += split * p.b_row;
          std::vector<float> c(static_cast<size_t>(m * p.ldc), from_bits(kSentinel));
          const auto call = [&](const Problem& part, bool accumulate) {
            GemmArgs args = part.args(c.data(), exact);
            args.accumulate = accumulate;
            const ThreadContext one{1};
            if (e == Entry::Gemm) return t->gemm(args, nullptr, one);
            std::vector<float> packed(t->packed_b_floats(part.k, n) + 1);
            t->pack_b(args.b, part.b_row, part.b_col, part.k, n, packed.data());
            t->gemm_packed(args, PackedB{packed.data(), part.k, n}, nullptr, one);
          };
          call(head, false);
          call(tail, true);
          Problem empty = p;
          empty.k = 0;
          call(empty, true);
          std::vector<float> want = whole, got(static_cast<size_t>(m * n));
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) got[i * n + j] = c[i * p.ldc + j];
          }
          for (std::vector<float>* values : {&want, &got}) {
            for (float& v : *values) v = !exact && std::isnan(v) ? from_bits(0x7FC00000u) : v;
          }
          expect_same_bits(
              want, got,
              describe(*t, p, 1) + " split at " + std::to_string(split) + (exact ? " exact" : " fast"));
        }
      }
    }
  }
}

TEST(Gemm, SpecialValuesInLargeShapes) {
  std::mt19937 rng(77);
  const Problem p = make_problem(rng, 130, 140, 600, Values::Special, 1, 0);
  const std::vector<float> want = naive_exact(p);
  const FastReference ref = fast_reference(p);
  for (const KernelTable* t : available_kernel_tables()) {
    for (int threads : {1, 2}) {
      expect_same_bits(want, run(*t, p, true, threads, Entry::Gemm), describe(*t, p, threads));
      expect_fast_within_bound(p, ref, run(*t, p, false, threads, Entry::Packed),
                               describe(*t, p, threads) + " fast");
    }
  }
}

TEST(Gemm, PackedBShapeMismatchIsRejected) {
  const KernelTable* t = kernel_table(KernelPath::Scalar);
  ASSERT_NE(t, nullptr);
  float a = 1.0f, packed[16] = {}, c = 0.0f;
  GemmArgs args;
  args.m = 1, args.n = 1, args.k = 1, args.a = &a, args.a_row = 1, args.c = &c, args.ldc = 1;
  EXPECT_THROW(t->gemm_packed(args, PackedB{packed, 2, 1}, nullptr, ThreadContext{}), std::invalid_argument);
}

}  // namespace
}  // namespace onemodel
