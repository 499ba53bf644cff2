// The reduction kernels (KernelTable::reduce_columns, reduce_rows_sum16) on every kernel path against scalar
// transcriptions of ops-norms.md "Reductions" written here: columns fold their rows in order from +0 (Max and
// Min from the first row, replaced only by a strictly better term), continuing from the outputs when not
// `first`; the row sum puts term q at partial (phase + q) mod 16 and folds the partials pairwise. Bits must
// be equal, NaN payloads included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/bits.h"
#include "kernels/kernel_table.h"

namespace onemodel {
namespace {

std::vector<float> data(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> scale(-12, 12), special(0, 39);
  std::vector<float> x(n);
  for (float& v : x) {
    switch (special(rng)) {
      case 0:
        v = from_bits(0xFFC00000u | (rng() & 0xFFFFu));
        break;
      case 1:
        v = std::numeric_limits<float>::infinity();
        break;
      case 2:
        v = -std::numeric_limits<float>::infinity();
        break;
      case 3:
        v = -0.0f;
        break;
      default:
        v = std::ldexp(unit(rng), scale(rng));
        break;
    }
  }
  return x;
}

// Bits with every NaN made canonical.
uint32_t bits(float v) {
  return std::isnan(v) ? 0x7FC00000u : bits_of(v);
}

float term(ReduceOp op, float v) {
  return op == ReduceOp::SumSquare ? v * v : v;
}

float fold(ReduceOp op, float acc, float t) {
  if (op == ReduceOp::Max) return t > acc ? t : acc;
  if (op == ReduceOp::Min) return t < acc ? t : acc;
  return acc + t;
}

TEST(ReduceKernels, ColumnsFoldEachOutputInRowOrder) {
  std::mt19937 rng(7);
  const std::vector<float> x = data(20000, rng);
  for (const KernelTable* table : available_kernel_tables()) {
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::SumSquare, ReduceOp::Max, ReduceOp::Min}) {
      for (size_t width = 1; width <= 300; width += width < 70 ? 1 : 37) {
        const size_t rows = rng() % 40 + 1;
        std::vector<int64_t> offsets(rows);
        for (int64_t& o : offsets) o = static_cast<int64_t>(rng() % (x.size() - width));
        const std::vector<float> start = data(width, rng);
        for (bool first : {true, false}) {
          std::vector<float> want = start, got = start;
          for (size_t j = 0; j < width; ++j) {
            const bool from_first = first && (op == ReduceOp::Max || op == ReduceOp::Min);
            float acc =
                first ? (from_first ? term(op, x[static_cast<size_t>(offsets[0]) + j]) : 0.0f) : want[j];
            for (size_t r = from_first ? 1 : 0; r < rows; ++r) {
              acc = fold(op, acc, term(op, x[static_cast<size_t>(offsets[r]) + j]));
            }
            want[j] = acc;
          }
          table->reduce_columns(op, x.data(), offsets.data(), rows, got.data(), width, first);
          for (size_t j = 0; j < width; ++j) {
            ASSERT_EQ(bits(got[j]), bits(want[j]))
                << table->name << " op " << static_cast<int>(op) << " width " << width << " rows " << rows
                << " first " << first << " output " << j;
          }
        }
      }
    }
  }
}

TEST(ReduceKernels, RowSum16KeepsThePartialOfEveryTerm) {
  std::mt19937 rng(8);
  const std::vector<float> x = data(20000, rng);
  for (const KernelTable* table : available_kernel_tables()) {
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::SumSquare}) {
      for (size_t run = 0; run <= 70; ++run) {
        const size_t runs = rng() % 9 + 1, phase = rng() % 16;
        std::vector<int64_t> offsets(runs);
        for (int64_t& o : offsets) o = static_cast<int64_t>(rng() % (x.size() - run));
        float want[16], got[16];
        for (int t = 0; t < 16; ++t) want[t] = got[t] = std::ldexp(static_cast<float>(rng() % 1000), -5);
        size_t q = phase;
        for (size_t r = 0; r < runs; ++r) {
          for (size_t i = 0; i < run; ++i, ++q) {
            want[q % 16] = want[q % 16] + term(op, x[static_cast<size_t>(offsets[r]) + i]);
          }
        }
        float folded[16];
        std::memcpy(folded, want, sizeof folded);
        for (int half = 8; half >= 1; half /= 2) {
          for (int t = 0; t < half; ++t) folded[t] = folded[t] + folded[t + half];
        }
        const float total = table->reduce_rows_sum16(op, x.data(), offsets.data(), runs, run, phase, got);
        EXPECT_EQ(bits(total), bits(folded[0])) << table->name << " run " << run << " runs " << runs;
        for (int t = 0; t < 16; ++t) {
          ASSERT_EQ(bits(got[t]), bits(want[t])) << table->name << " run " << run << " partial " << t;
        }
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
