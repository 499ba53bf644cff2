// The fused attention kernel of kernels-attention.md, written once over a lanes type L and instantiated per
// kernel path by src/kernels/paths/instantiate.inc.
//
// Result. For every query row: online softmax over key blocks of kKB = 64 keys with the state (m, l, acc);
// scores are one accumulator over the head dimension from +0, s = mask + dot*scale, the weights use
// exp_non_positive, the block sum the canonical 16-partial order (math::Sum16), the rescale factor alpha
// follows the spec's three cases, and out = acc / l with NaN made canonical. The fast flavour runs the same
// steps with fused multiply-adds, the fast exponential and out = acc * (1/l).
//
// Lanes never mix different results: in the score product a lane is one key, in the value product one
// column of the head dimension, and the softmax steps hold one key per lane. Every vector loop ends in the
// path's one-lane L::Tail running the same operations, so exact bits do not depend on the lane width.
//
// Work items are (batch, head, block of kQB = 32 query rows); each writes its own output rows, so the thread
// count decides only who runs an item. Per item the queries are packed transposed (d x 32); per key block the
// keys are packed transposed (d x 64, zero padded) so a 4-row x 2-vector tile streams contiguous key lanes,
// and the values are packed as 64 x d rows for a 4-row x 2-vector tile over the head dimension. A thread
// keeps the packed keys and values of the last head it ran (when they fit kWholeHeadFloats), so the query
// blocks of one head pack them once per thread instead of once per block. Packing is a copy: it changes no
// bit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "kernels/kernel_table.h"
#include "kernels/math/sum16.h"
#include "kernels/math/transcendental.h"
#include "kernels/simd.h"
#include "threading/parallel_for.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

template <class L>
struct AttentionImpl {
  static constexpr int64_t kQB = 32, kKB = 64, kTileRows = 4;
  static constexpr int64_t kAlignFloats = 16;  // 64 bytes
  static constexpr double kNsPerMac = 0.15;    // rough single-thread cost of one score or value product term

  static size_t scratch_floats(const AttentionArgs& a, const ThreadContext& threads) {
    if (empty(a)) return 0;
    return static_cast<size_t>(kAlignFloats + thread_slots(threads) * Slot::floats(a));
  }

  static void run(const AttentionArgs& a, float* scratch, const ThreadContext& threads) {
    if (empty(a)) return;
    std::unique_ptr<float[]> owned;
    if (scratch == nullptr) {
      owned.reset(new float[scratch_floats(a, threads)]);
      scratch = owned.get();
    }
    float* slots = align(scratch);
    const int64_t slot_size = Slot::floats(a);
    for (int slot = 0; slot < thread_slots(threads); ++slot) Slot(slots + slot * slot_size, a).set_owner(-1);
    const int64_t q_blocks = (a.q_len + kQB - 1) / kQB, items = a.batch * a.heads * q_blocks;
    const auto body = [&](int64_t item, int slot) {
      const int64_t block = item % q_blocks, bh = item / q_blocks;
      const int64_t i0 = block * kQB, rows = std::min(kQB, a.q_len - i0);
      Slot s(slots + slot * slot_size, a);
      if (a.exact)
        run_item<false>(a, bh, i0, rows, s);
      else
        run_item<true>(a, bh, i0, rows, s);
    };
    const double ns = kNsPerMac * 2.0 * static_cast<double>(a.batch * a.heads) *
                      static_cast<double>(a.q_len) * static_cast<double>(a.k_len) * static_cast<double>(a.d);
    parallel_for_slots(threads, items, body, ns);
  }

 private:
  using F = typename L::F;
  using T = typename L::Tail;
  static constexpr int W = L::width;
  // Keys and values of one (batch, head) up to this many floats each stay packed in the slot for every query
  // block of that head the thread runs; longer ones are packed block by block.
  static constexpr int64_t kWholeHeadFloats = int64_t{1} << 18;

  static bool empty(const AttentionArgs& a) {
    return a.batch <= 0 || a.heads <= 0 || a.q_len <= 0 || a.d < 0 || a.k_len < 0;
  }
  static constexpr int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
  static float* align(float* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    return p +
           (round_up(static_cast<int64_t>(address), kAlignFloats * 4) - static_cast<int64_t>(address)) / 4;
  }

  // One thread's working set: which (batch, head) its packed keys and values hold, packed queries,
  // accumulators, packed keys (d x 64 per block) and values (64 x d per block) of the whole head or of one
  // block, the block's scores (then weights), and the per-row state.
  struct Slot {
    float *owner, *q, *acc, *kt, *v, *s, *m, *l, *alpha;
    bool whole_head;

    static bool holds_whole_head(const AttentionArgs& a) {
      return round_up(a.k_len, kKB) * a.d <= kWholeHeadFloats;
    }
    static int64_t key_floats(const AttentionArgs& a) {
      return round_up((holds_whole_head(a) ? round_up(a.k_len, kKB) : kKB) * a.d, kAlignFloats);
    }
    static int64_t floats(const AttentionArgs& a) {
      return kAlignFloats + 2 * round_up(kQB * a.d, kAlignFloats) + 2 * key_floats(a) + kQB * kKB + 3 * kQB;
    }
    Slot(float* base, const AttentionArgs& a) : whole_head(holds_whole_head(a)) {
      owner = base;
      q = owner + kAlignFloats;
      acc = q + round_up(kQB * a.d, kAlignFloats);
      kt = acc + round_up(kQB * a.d, kAlignFloats);
      v = kt + key_floats(a);
      s = v + key_floats(a);
      m = s + kQB * kKB;
      l = m + kQB;
      alpha = l + kQB;
    }
    int64_t get_owner() const {
      int64_t bh;
      std::memcpy(&bh, owner, sizeof bh);
      return bh;
    }
    void set_owner(int64_t bh) const { std::memcpy(owner, &bh, sizeof bh); }
  };

  // acc + a*b: two roundings in the exact flavour, one fused operation in the fast one (where the path
  // fuses).
  template <class V, bool kFast>
  static typename V::F mul_add(typename V::F a, typename V::F b, typename V::F acc) {
    if constexpr (kFast)
      return V::fma(a, b, acc);
    else
      return acc + a * b;
  }

  // n floats in vectors: rows here are a head wide (tens of floats), where a library copy's call costs more
  // than the copy (it was 2-3 % of a transformer encoder's time).
  static void copy_floats(const float* src, int64_t n, float* dst) {
    int64_t x = 0;
    for (; x + W <= n; x += W) L::store(dst + x, L::load(src + x));
    for (; x < n; ++x) T::store(dst + x, T::load(src + x));
  }

  // `rows` rows of `cols` elements from a strided source into a dense buffer.
  static void copy_rows(const float* src, int64_t row_stride, int64_t col_stride, int64_t rows, int64_t cols,
                        float* dst) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = src + r * row_stride;
      if (col_stride == 1) {
        copy_floats(row, cols, dst + r * cols);
      } else {
        for (int64_t x = 0; x < cols; ++x) dst[r * cols + x] = row[x * col_stride];
      }
    }
  }

  // Packs the keys and values of block kb (n keys) of the head at k, v.
  static void pack_block(const AttentionArgs& a, const float* k, const float* v, int64_t kb, int64_t n,
                         float* kt, float* vp) {
    pack_keys(k + kb * a.k_strides.row, a.k_strides, n, a.d, kt);
    copy_rows(v + kb * a.v_strides.row, a.v_strides.row, a.v_strides.col, n, a.d, vp);
  }

  template <bool kFast>
  static void run_item(const AttentionArgs& a, int64_t bh, int64_t i0, int64_t rows, const Slot& s) {
    const int64_t d = a.d, b = bh / a.heads, h = bh % a.heads;
    const float* q = a.q + b * a.q_strides.batch + h * a.q_strides.head + i0 * a.q_strides.row;
    pack_queries(q, a.q_strides, rows, d, s.q);
    std::fill(s.acc, s.acc + rows * d, 0.0f);
    std::fill(s.m, s.m + rows, -__builtin_inff());
    std::fill(s.l, s.l + rows, 0.0f);

    const float* k = a.k + b * a.k_strides.batch + h * a.k_strides.head;
    const float* v = a.v + b * a.v_strides.batch + h * a.v_strides.head;
    if (s.whole_head && s.get_owner() != bh) {
      for (int64_t kb = 0; kb < a.k_len; kb += kKB) {
        pack_block(a, k, v, kb, std::min(kKB, a.k_len - kb), s.kt + kb * d, s.v + kb * d);
      }
      s.set_owner(bh);
    }
    const float* mask =
        a.mask ? a.mask + b * a.mask_strides.batch + h * a.mask_strides.head + i0 * a.mask_strides.row
               : nullptr;
    for (int64_t kb = 0; kb < a.k_len; kb += kKB) {
      const int64_t n = std::min(kKB, a.k_len - kb);
      const float* kt = s.whole_head ? s.kt + kb * d : s.kt;
      const float* vp = s.whole_head ? s.v + kb * d : s.v;
      if (!s.whole_head) pack_block(a, k, v, kb, n, s.kt, s.v);
      int64_t r = 0;
      for (; r + kTileRows <= rows; r += kTileRows) scores<kTileRows, kFast>(s, kt, r, n, d);
      for (; r < rows; ++r) scores<1, kFast>(s, kt, r, n, d);
      for (r = 0; r < rows; ++r) {
        const float* mask_row = mask ? mask + r * a.mask_strides.row + kb * a.mask_strides.col : nullptr;
        softmax_step<kFast>(s, r, n, mask_row, a.mask_strides.col, a.scale);
      }
      for (r = 0; r + kTileRows <= rows; r += kTileRows) values<kTileRows, kFast>(s, vp, r, n, d);
      for (; r < rows; ++r) values<1, kFast>(s, vp, r, n, d);
    }

    float* out = a.out + b * a.out_strides.batch + h * a.out_strides.head + i0 * a.out_strides.row;
    for (int64_t r = 0; r < rows; ++r) {
      float* acc = s.acc + r * d;
      // A dense output row takes the normalised values directly; a strided one is written from acc.
      float* dst = a.out_strides.col == 1 ? out + r * a.out_strides.row : acc;
      const float factor = kFast ? 1.0f / s.l[r] : s.l[r];
      int64_t x = 0;
      for (; x + W <= d; x += W) L::store(dst + x, normalise<L, kFast>(L::load(acc + x), factor));
      for (; x < d; ++x) T::store(dst + x, normalise<T, kFast>(T::load(acc + x), factor));
      if (a.out_strides.col != 1) {
        for (x = 0; x < d; ++x) out[r * a.out_strides.row + x * a.out_strides.col] = acc[x];
      }
    }
  }

  template <class V, bool kFast>
  static typename V::F normalise(typename V::F acc, float factor) {
    if constexpr (kFast)
      return simd::canonicalize_nan<V>(acc * V::splat(factor));
    else
      return simd::canonicalize_nan<V>(acc / V::splat(factor));
  }

  // kt[x * 64 + j] = key j's column x for j < n, zero up to the end of the last score tile.
  static void pack_keys(const float* k, const AttentionStrides& st, int64_t n, int64_t d, float* kt) {
    const int64_t padded = std::min(kKB, round_up(n, 2 * W));
    for (int64_t j = 0; j < n; ++j) {
      const float* key = k + j * st.row;
      for (int64_t x = 0; x < d; ++x) kt[x * kKB + j] = key[x * st.col];
    }
    for (int64_t x = 0; x < d; ++x) std::fill(kt + x * kKB + n, kt + x * kKB + padded, 0.0f);
  }

  // qt[x * kQB + r] = query row r's column x: the rows a score tile splats at one x are then adjacent.
  static void pack_queries(const float* q, const AttentionStrides& st, int64_t rows, int64_t d, float* qt) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = q + r * st.row;
      for (int64_t x = 0; x < d; ++x) qt[x * kQB + r] = row[x * st.col];
    }
  }

  // dot[r][j] for rows r0 .. r0+R-1 and every key of the block, one accumulator per score in increasing x.
  // The inner loops walk pointers, so that every load is at a constant offset from one of them: on wasm32,
  // an int64 index is added and narrowed to an address at each use.
  template <int R, bool kFast>
  static void scores(const Slot& s, const float* kt, int64_t r0, int64_t n, int64_t d) {
    for (int64_t j = 0; j < n; j += 2 * W) {
      F acc[R][2];
      for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = L::splat(0.0f);
      const float* key = kt + j;
      const float* query = s.q + r0;
      for (int64_t x = 0; x < d; ++x, key += kKB, query += kQB) {
        const F k0 = L::load(key), k1 = L::load(key + W);
        for (int r = 0; r < R; ++r) {
          const F qv = L::splat(query[r]);
          acc[r][0] = mul_add<L, kFast>(qv, k0, acc[r][0]);
          acc[r][1] = mul_add<L, kFast>(qv, k1, acc[r][1]);
        }
      }
      float* dot = s.s + r0 * kKB + j;
      for (int r = 0; r < R; ++r) {
        L::store(dot + r * kKB, acc[r][0]);
        L::store(dot + r * kKB + W, acc[r][1]);
      }
    }
  }

  // s = mask + dot*scale (mask +0 when absent).
  template <class V, bool kFast>
  static typename V::F logit(typename V::F dot, typename V::F mask, float scale) {
    return mul_add<V, kFast>(dot, V::splat(scale), mask);
  }

  // Steps 1-5 of the exact definition for row r of the block: turns its scores into weights p (in place),
  // updates m and l, and leaves alpha for the value step.
  template <bool kFast>
  static void softmax_step(const Slot& st, int64_t r, int64_t block_keys, const float* mask, int64_t mask_col,
                           float scale) {
    float* s = st.s + r * kKB;
    // A block has at most 64 keys: int indices keep wasm32's address arithmetic in 32 bits.
    const int n = static_cast<int>(block_keys);
    const float neg_inf = -__builtin_inff();
    F mv = L::splat(neg_inf);
    int j = 0;
    // The logits, and the block maximum of the vectors among them (a comparison with NaN is false, so NaN
    // never wins).
    if (mask == nullptr || mask_col == 1) {
      for (; j + W <= n; j += W) {
        const F v = logit<L, kFast>(L::load(s + j), mask ? L::load(mask + j) : L::splat(0.0f), scale);
        L::store(s + j, v);
        mv = L::raise_to(mv, v);
      }
    }
    const int maxed = j;
    for (; j < n; ++j) s[j] = logit<T, kFast>(s[j], mask ? mask[j * mask_col] : 0.0f, scale);
    for (j = maxed; j + W <= n; j += W) mv = L::raise_to(mv, L::load(s + j));
    alignas(64) float lanes[W];
    L::store(lanes, mv);
    float bm = neg_inf;
    for (int i = 0; i < W; ++i) bm = lanes[i] > bm ? lanes[i] : bm;
    for (; j < n; ++j) bm = s[j] > bm ? s[j] : bm;

    const float m = st.m[r];
    const float m_new = bm > m ? bm : m;
    const float shift = m_new == neg_inf ? 0.0f : m_new;
    const F shift_v = L::splat(shift);
    for (j = 0; j + W <= n; j += W)
      L::store(s + j, math::exp_non_positive<L, kFast>(L::load(s + j) - shift_v));
    for (; j < n; ++j) s[j] = math::exp_non_positive<T, kFast>(s[j] - shift);

    math::Sum16<L> sum;
    for (j = 0; j + 16 <= n; j += 16) {
      F terms[16 / W];
      for (int t = 0; t < 16 / W; ++t) terms[t] = L::load(s + j + t * W);
      sum.add_block(terms);
    }
    const float block_sum = sum.finish(s + j, static_cast<size_t>(n - j));

    float alpha;
    if (m == neg_inf)
      alpha = 0.0f;
    else if (m == shift)
      alpha = 1.0f;
    else
      alpha = math::exp_non_positive<T, kFast>(m - shift);
    st.l[r] = mul_add<T, kFast>(st.l[r], alpha, block_sum);
    st.alpha[r] = alpha;
    st.m[r] = m_new;
  }

  // acc = acc*alpha, then acc += p[j] * v[j] for the block's keys in increasing j, for R rows and C vectors
  // of V's lanes at column x. Multiplying by alpha = 1 changes no bit (NaN stays NaN and is made canonical at
  // the end), so the rescale is not skipped.
  template <class V, int R, int C, bool kFast>
  static void value_tile(const Slot& s, const float* vp, int64_t r0, int64_t n, int64_t d, int64_t x) {
    using VF = typename V::F;
    VF acc[R][C];
    float* acc_rows = s.acc + r0 * d + x;
    for (int r = 0; r < R; ++r) {
      const VF alpha = V::splat(s.alpha[r0 + r]);
      for (int c = 0; c < C; ++c) acc[r][c] = V::load(acc_rows + r * d + c * V::width) * alpha;
    }
    // Pointers walked as in scores(): the weights of the R rows at key j, and key j's values at column x.
    const float* weight = s.s + r0 * kKB;
    const float* value = vp + x;
    for (int64_t j = 0; j < n; ++j, ++weight, value += d) {
      VF vv[C];
      for (int c = 0; c < C; ++c) vv[c] = V::load(value + c * V::width);
      for (int r = 0; r < R; ++r) {
        const VF p = V::splat(weight[r * kKB]);
        for (int c = 0; c < C; ++c) acc[r][c] = mul_add<V, kFast>(p, vv[c], acc[r][c]);
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int c = 0; c < C; ++c) V::store(acc_rows + r * d + c * V::width, acc[r][c]);
    }
  }

  template <int R, bool kFast>
  static void values(const Slot& s, const float* vp, int64_t r0, int64_t n, int64_t d) {
    int64_t x = 0;
    for (; x + 2 * W <= d; x += 2 * W) value_tile<L, R, 2, kFast>(s, vp, r0, n, d, x);
    for (; x + W <= d; x += W) value_tile<L, R, 1, kFast>(s, vp, r0, n, d, x);
    for (; x < d; ++x) value_tile<T, R, 1, kFast>(s, vp, r0, n, d, x);
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
