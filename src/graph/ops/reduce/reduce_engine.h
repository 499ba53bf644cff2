// The reduction loops shared by the Reduce* operators (ops-norms.md "Reductions"). The geometry fixes the
// layout, the chunks and the order in which each output combines its terms, so the bits never depend on the
// thread count:
// - column layout: each output of a tile folds its terms one reduced tuple after another;
// - row layout: Fold::Sum16 spreads term q of the output's sequence over partial q mod 16 and folds the
//   partials pairwise; every other fold is sequential.
// Max/Min folds start from the first term and keep it unless a later term is strictly better, so a NaN
// survives only when it comes first; MaxNaN lets any NaN win.
// float32 with a term the kernel table knows (ValueTerm, SquareTerm) runs in the session's vector kernels
// (KernelTable::reduce_columns, reduce_rows_sum16), which fold in this same order; the rest runs here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "graph/op.h"
#include "graph/ops/reduce/canonical_sum.h"
#include "graph/ops/reduce/reduce_geometry.h"
#include "graph/ops/shape/offset_walker.h"
#include "threading/parallel_for.h"

namespace onemodel::ops {

enum class Fold { Sum16, Add, Mul, Max, Min, MaxNaN };

// Sums and products that wrap around for integers (signed overflow is done in unsigned arithmetic).
template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <class T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no promotion to int
    return static_cast<T>(
        static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

template <Fold F, class T>
T fold(T acc, T term) {
  if constexpr (F == Fold::Sum16 || F == Fold::Add) {
    return wrapping_add(acc, term);
  } else if constexpr (F == Fold::Mul) {
    return wrapping_mul(acc, term);
  } else if constexpr (F == Fold::Max) {
    return term > acc ? term : acc;
  } else if constexpr (F == Fold::Min) {
    return term < acc ? term : acc;
  } else {
    static_assert(F == Fold::MaxNaN);
    return (term != term || term > acc) ? term : acc;  // NaN != NaN
  }
}

// The terms reduce() can hand to the kernel table for float32; any other callable runs in scalar code.
struct ValueTerm {
  template <class T>
  T operator()(T v, int64_t) const {
    return v;
  }
};
struct SquareTerm {
  template <class T>
  T operator()(T v, int64_t) const {
    return wrapping_mul(v, v);
  }
};

// Folds that take the first term as their start instead of an identity.
template <Fold F>
constexpr bool starts_with_first() {
  return F == Fold::Max || F == Fold::Min || F == Fold::MaxNaN;
}

// The units of work of a reduction and the input walk of each: a unit is a tile of up to kTile contiguous
// outputs (column layout) or one output (row layout).
class ReduceWalk {
 public:
  static constexpr int64_t kTile = 256;         // outputs per unit in the column layout
  static constexpr int64_t kChunkWork = 32768;  // elements read per chunk (at least one unit)

  explicit ReduceWalk(const ReduceGeometry& g);

  struct Unit {
    int64_t input = 0;   // offset of the unit's first element of its first reduced tuple
    int64_t output = 0;  // first output of the unit
    int64_t width = 1;   // outputs in the unit (column layout); 1 in the row layout
  };

  bool column() const { return column_; }
  int64_t run() const { return run_; }  // row layout: contiguous elements per reduced tuple
  int64_t units() const { return units_; }
  int64_t chunks() const { return (units_ + per_chunk_ - 1) / per_chunk_; }
  int64_t chunk_begin(int64_t c) const { return c * per_chunk_; }
  int64_t chunk_end(int64_t c) const { return std::min(units_, (c + 1) * per_chunk_); }
  Unit unit(int64_t u) const;
  // Offsets of the reduced tuples (other than the contiguous innermost run) relative to Unit::input.
  const OffsetWalker& reduced() const { return reduced_; }

 private:
  bool column_ = false;
  int64_t inner_ = 1, run_ = 1, tiles_ = 1, units_ = 0, per_chunk_ = 1;
  int outer_rank_ = 0;
  int64_t outer_dims_[kMaxRank], outer_strides_[kMaxRank];
  OffsetWalker reduced_;
};

// Whether fold F of Term over T has a kernel-table operation, and which.
template <Fold F, class T, class Term>
struct VectorReduce {
  static constexpr bool value_term = std::is_same_v<Term, ValueTerm>;
  static constexpr bool sum_term = value_term || std::is_same_v<Term, SquareTerm>;
  static constexpr bool floats = std::is_same_v<T, float>;
  // The row layout's canonical sum (reduce_rows_sum16).
  static constexpr bool rows = floats && F == Fold::Sum16 && sum_term;
  // The column layout (reduce_columns).
  static constexpr bool columns = rows || (floats && (F == Fold::Max || F == Fold::Min) && value_term);
  static constexpr ReduceOp op = F == Fold::Max   ? ReduceOp::Max
                                 : F == Fold::Min ? ReduceOp::Min
                                 : value_term     ? ReduceOp::Sum
                                                  : ReduceOp::SumSquare;
};

// Calls consume(offsets, count, first) over the offsets of every reduced tuple of `reduced`, in order, a
// stack batch at a time; `first` marks the first batch.
template <class Consume>
void for_offset_batches(OffsetWalker& reduced, Consume consume) {
  constexpr size_t kBatch = 128;
  int64_t offsets[kBatch];
  size_t count = 0;
  bool first = true;
  do {
    offsets[count++] = reduced.a();
    if (count == kBatch) {
      consume(offsets, count, first);
      first = false;
      count = 0;
    }
  } while (reduced.next());
  if (count > 0) consume(offsets, count, first);
}

// y[o] = fold of term(x, o) over the elements x that reduce into output o, for every output (g.per_output >
// 0). Fold::Sum16 and Add start from +0 and Mul from 1.
template <Fold F, class T, class Term>
void reduce(const T* x, T* y, const ReduceGeometry& g, const OpRun& run, Term term) {
  if (g.outputs == 0) return;
  using Vector = VectorReduce<F, T, Term>;
  const ReduceWalk walk(g);
  const T identity = F == Fold::Mul ? T(1) : T(0);
  // Runs shorter than a block of 16 partials cost more in a kernel call than they gain.
  const bool vector_rows = Vector::rows && walk.run() >= 16;
  const KernelTable& kernels = *run.kernels;
  auto chunk = [&](int64_t c) {
    OffsetWalker reduced = walk.reduced();
    for (int64_t u = walk.chunk_begin(c); u < walk.chunk_end(c); ++u) {
      const ReduceWalk::Unit unit = walk.unit(u);
      const T* base = x + unit.input;
      if constexpr (Vector::columns) {
        if (walk.column()) {
          for_offset_batches(reduced, [&](const int64_t* offsets, size_t count, bool first) {
            kernels.reduce_columns(Vector::op, base, offsets, count, y + unit.output,
                                   static_cast<size_t>(unit.width), first);
          });
          continue;
        }
      }
      if constexpr (Vector::rows) {
        if (vector_rows) {
          alignas(64) float partials[16] = {};
          const size_t run_length = static_cast<size_t>(walk.run());
          size_t phase = 0;
          for_offset_batches(reduced, [&](const int64_t* offsets, size_t count, bool) {
            y[unit.output] =
                kernels.reduce_rows_sum16(Vector::op, base, offsets, count, run_length, phase, partials);
            phase = (phase + (count % 16) * (run_length % 16)) % 16;
          });
          continue;
        }
      }
      if (walk.column()) {
        T* out = y + unit.output;
        bool first = true;
        if constexpr (!starts_with_first<F>()) std::fill(out, out + unit.width, identity);
        do {
          const T* row = base + reduced.a();
          if (starts_with_first<F>() && first) {
            for (int64_t j = 0; j < unit.width; ++j) out[j] = term(row[j], unit.output + j);
          } else {
            for (int64_t j = 0; j < unit.width; ++j) out[j] = fold<F>(out[j], term(row[j], unit.output + j));
          }
          first = false;
        } while (reduced.next());
      } else if constexpr (F == Fold::Sum16) {
        auto add = [](T a, T b) { return wrapping_add(a, b); };
        CanonicalSum<T, decltype(add)> sum(add);
        do {
          const T* row = base + reduced.a();
          sum.add(walk.run(), [&](int64_t i) { return term(row[i], u); });
        } while (reduced.next());
        y[unit.output] = sum.total();
      } else {
        T acc = starts_with_first<F>() ? term(base[0], u) : identity;
        bool first = starts_with_first<F>();
        do {
          const T* row = base + reduced.a();
          for (int64_t i = first ? 1 : 0; i < walk.run(); ++i) acc = fold<F>(acc, term(row[i], u));
          first = false;
        } while (reduced.next());
        y[unit.output] = acc;
      }
    }
  };
  parallel_for(run.threads, walk.chunks(), chunk, 0.5 * static_cast<double>(g.outputs * g.per_output));
}

}  // namespace onemodel::ops
