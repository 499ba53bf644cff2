// The int8 product kernel (int8.md "Product kernel"), written once and instantiated per kernel path by
// src/kernels/paths/instantiate.inc with the path's constant; only the microkernel differs per path (and, on
// arm64, the group of k it multiplies at once: see Int8GemmImpl<V128> at the end).
//
// Arithmetic. Operands move to a shifted domain where both are signed: A' = A - 128 for uint8 A (int16 in
// the packed panels), B' = B - 128 for uint8 B (int8); signed operands stay as they are, and zero points
// shift the same way. Then
//   Y[i, j] = S[i, j] - zA'[i] * colSum[j] - zB'[j] * rowSum[i] + k * zA'[i] * zB'[j],
// with S = sum_p A'B', rowSum the row sums of A' and colSum the column sums of B'. This equals
// sum_p (A - zA)(B - zB) exactly; all sums are int32 with wrapping (unsigned) arithmetic, so nothing here is
// undefined even for absurd k. A microkernel that multiplies unsigned bytes by signed ones (VNNI's vpdpbusd)
// takes A'' = A' + 128 in [0, 255] and zA'' = zA' + 128 instead: the formula holds for A and zA moved by any
// common amount, because it only ever uses their differences, so Y is the same integer. Every path forms the
// same integers, so every path gives the same bits.
//
// Packed B (once per call, or once per weight): [colSum: np int32][strips], np = n rounded up to nr. Strip s
// (columns [s*nr, s*nr + nr)) holds kp * nr int8 values (int16 for the 128-bit x86 and wasm microkernel,
// which widens B once here instead of in its loop), kp = k rounded up to a multiple of the microkernel's
// group G (2 for pair products, 4 for Arm's dot product): element (p, j) at (p/G)*G*nr + G*j + p%G, so one
// G*nr-byte row holds a group of k for every column. Padding is 0.
// Packed A (once per call, in parallel over blocks of mc rows): panel t (rows [t*mr, t*mr + mr)) holds kp *
// mr values (int16 for G = 2, int8 for Arm's G = 4, uint8 A'' for VNNI's G = 4), element (p, r) at (p/G)*G*mr
// + G*r + p%G, followed after all panels by rowSum (mp int32). Padding rows are 0 (they only feed
// accumulators no one stores).
//
// Work. Chunks are fixed mc x nc tiles of C (48 x 64); a chunk accumulates its tile in the running thread's
// int32 slot, k-block by k-block (kc = 512) and B strip by B strip down the A panels, then runs the epilogue
// on the tile. Chunk sizes never depend on the thread count and k is never split, so neither can a result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "kernels/cpu.h"
#include "kernels/int8/int8_output.h"
#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>  // besides Emscripten's SSE headers, below
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#if defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#elif defined(__SSE4_1__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

// The pair-dot microkernel of one path: acc (mr x nr int32, row stride ld) = (first ? 0 : acc) + the
// products of `pairs` pairs of k of an A panel and a B strip. The primary template is the scalar path (plain
// loops over the same layout); the specialisations below exist only where their instructions compile.
template <KernelPath P>
struct Int8PairDot {
  static constexpr int mr = 4, nr = 8, group = 2;
  using AElem = int16_t;
  static void run(int64_t pairs, const int16_t* a, const int8_t* b, int32_t* acc, int64_t ld, bool first) {
    uint32_t t[mr][nr];
    for (int r = 0; r < mr; ++r) {
      for (int j = 0; j < nr; ++j) t[r][j] = first ? 0u : static_cast<uint32_t>(acc[r * ld + j]);
    }
    for (int64_t q = 0; q < pairs; ++q, a += 2 * mr, b += 2 * nr) {
      for (int r = 0; r < mr; ++r) {
        const int32_t a0 = a[2 * r], a1 = a[2 * r + 1];
        for (int j = 0; j < nr; ++j) {
          t[r][j] += static_cast<uint32_t>(a0 * b[2 * j] + a1 * b[2 * j + 1]);
        }
      }
    }
    for (int r = 0; r < mr; ++r) {
      for (int j = 0; j < nr; ++j) acc[r * ld + j] = static_cast<int32_t>(t[r][j]);
    }
  }
};

inline int32_t int8_load_pair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

#if defined(__AVX512BW__)
// The 12 x 16 * kVecs int32 accumulator tile of the AVX-512 kernels, 12 * kVecs zmm registers: zeroed on a
// chunk's first k-block, else loaded from the chunk's slot; stored back after the block. kVecs is 2 for a
// whole strip and 1 for a strip whose last 16 columns are all padding (a layer of at most 16 channels, or
// the last strip of a product), which then costs half the multiplies.
template <int kVecs>
struct Avx512AccTile {
  static constexpr int kRows = 12;
  __m512i t[kRows][kVecs];

  __attribute__((always_inline)) void load(const int32_t* acc, int64_t ld, bool first) {
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      for (int v = 0; v < kVecs; ++v) {
        t[r][v] = first ? _mm512_setzero_si512() : _mm512_loadu_si512(acc + r * ld + 16 * v);
      }
    }
  }
  __attribute__((always_inline)) void store(int32_t* acc, int64_t ld) const {
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      for (int v = 0; v < kVecs; ++v) _mm512_storeu_si512(acc + r * ld + 16 * v, t[r][v]);
    }
  }
};

// The entries of a 12 x 32 AVX-512 microkernel Kernel over its run_vectors<kVecs>: run computes all 32
// columns, run_narrow the first 16 only.
template <class Kernel, class A>
struct Avx512TileWidths {
  static void run(int64_t groups, const A* a, const int8_t* b, int32_t* acc, int64_t ld, bool first) {
    Kernel::template run_vectors<2>(groups, a, b, acc, ld, first);
  }
  static void run_narrow(int64_t groups, const A* a, const int8_t* b, int32_t* acc, int64_t ld, bool first) {
    Kernel::template run_vectors<1>(groups, a, b, acc, ld, first);
  }
};

// 12 x 32: B widened to int16 in registers.
template <>
struct Int8PairDot<KernelPath::Avx512> : Avx512TileWidths<Int8PairDot<KernelPath::Avx512>, int16_t> {
  static constexpr int mr = 12, nr = 32, group = 2;
  using AElem = int16_t;
  template <int kVecs>
  static void run_vectors(int64_t pairs, const int16_t* a, const int8_t* b, int32_t* acc, int64_t ld,
                          bool first) {
    Avx512AccTile<kVecs> tile;
    tile.load(acc, ld, first);
    auto& t = tile.t;
    for (int64_t q = 0; q < pairs; ++q, a += 2 * mr, b += 2 * nr) {
      __m512i bv[kVecs];
      for (int v = 0; v < kVecs; ++v)
        bv[v] = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32 * v)));
#pragma GCC unroll 12
      for (int r = 0; r < mr; ++r) {
        const __m512i av = _mm512_set1_epi32(int8_load_pair(a + 2 * r));
        for (int v = 0; v < kVecs; ++v) t[r][v] = _mm512_add_epi32(t[r][v], _mm512_madd_epi16(av, bv[v]));
      }
    }
    tile.store(acc, ld);
  }
};

// 12 x 32 on AVX512-VNNI's vpdpbusd: groups of four k, A unsigned bytes (the shifted domain plus 128, see
// Int8GemmCore), B signed bytes, so one instruction makes 64 multiply-adds, twice vpmaddwd's. Each product of
// an unsigned and a signed byte fits 16 bits and the four of a group are summed into the int32 lane with
// wrapping, never saturating (unlike vpmaddubsw, or vpdpbusds), so the sums are the exact integers of the
// pair kernels. Only called where the CPU has AVX512-VNNI (Int8GemmImpl<Avx512>); written as assembly
// because the path is compiled without VNNI, and a target attribute could not reach the shared loop.
struct Int8VnniDot : Avx512TileWidths<Int8VnniDot, uint8_t> {
  static constexpr int mr = 12, nr = 32, group = 4;
  using AElem = uint8_t;
  template <int kVecs>
  static void run_vectors(int64_t groups, const uint8_t* a, const int8_t* b, int32_t* acc, int64_t ld,
                          bool first) {
    Avx512AccTile<kVecs> tile;
    tile.load(acc, ld, first);
    auto& t = tile.t;
    for (int64_t q = 0; q < groups; ++q, a += 4 * mr, b += 4 * nr) {
      __m512i bv[kVecs];
      for (int v = 0; v < kVecs; ++v) bv[v] = _mm512_loadu_si512(b + 64 * v);
#pragma GCC unroll 12
      for (int r = 0; r < mr; ++r) {
        int32_t quad;
        std::memcpy(&quad, a + 4 * r, 4);
        const __m512i av = _mm512_set1_epi32(quad);
        for (int v = 0; v < kVecs; ++v) __asm__("vpdpbusd %2, %1, %0" : "+v"(t[r][v]) : "v"(av), "v"(bv[v]));
      }
    }
    tile.store(acc, ld);
  }
};
#endif

#if defined(__AVX2__)
// 6 x 16: as AVX-512 with ymm, 12 accumulators.
template <>
struct Int8PairDot<KernelPath::Avx2> {
  static constexpr int mr = 6, nr = 16, group = 2;
  using AElem = int16_t;
  static void run(int64_t pairs, const int16_t* a, const int8_t* b, int32_t* acc, int64_t ld, bool first) {
    __m256i t[mr][2];
#pragma GCC unroll 6
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < 2; ++v) {
        t[r][v] = first ? _mm256_setzero_si256()
                        : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + r * ld + 8 * v));
      }
    }
    for (int64_t q = 0; q < pairs; ++q, a += 2 * mr, b += 2 * nr) {
      const __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
      const __m256i b1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16)));
#pragma GCC unroll 6
      for (int r = 0; r < mr; ++r) {
        const __m256i av = _mm256_set1_epi32(int8_load_pair(a + 2 * r));
        t[r][0] = _mm256_add_epi32(t[r][0], _mm256_madd_epi16(av, b0));
        t[r][1] = _mm256_add_epi32(t[r][1], _mm256_madd_epi16(av, b1));
      }
    }
#pragma GCC unroll 6
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < 2; ++v)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + r * ld + 8 * v), t[r][v]);
    }
  }
};
#endif

#if defined(__aarch64__) || defined(__SSE4_1__)  // wasm's 128-bit path included (-msse4.1)
// The 128-bit pair products: 4 x 8 with vmlal_s16 and a pairwise add at the end on NEON; 8 x 4 with
// i32x4.dot_i16x8_s on wasm and pmaddwd on SSE4.1.
template <>
struct Int8PairDot<KernelPath::V128> {
#if defined(__aarch64__)
  static constexpr int mr = 4, nr = 8, group = 2;
  using AElem = int16_t;
  static void run(int64_t pairs, const int16_t* a, const int8_t* b, int32_t* acc, int64_t ld, bool first) {
    // Per row and group of 4 columns, the low and high products (c0p0 c0p1 c1p0 c1p1 | c2p0 ...) are summed
    // apart and folded pairwise once at the end: integer sums, so the grouping cannot change a bit.
    int32x4_t lo[mr][2], hi[mr][2];
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < 2; ++v) lo[r][v] = hi[r][v] = vdupq_n_s32(0);
    }
    for (int64_t q = 0; q < pairs; ++q, a += 2 * mr, b += 2 * nr) {
      const int16x8_t b0 = vmovl_s8(vld1_s8(b)), b1 = vmovl_s8(vld1_s8(b + 8));
      for (int r = 0; r < mr; ++r) {
        const int16x8_t av = vreinterpretq_s16_s32(vdupq_n_s32(int8_load_pair(a + 2 * r)));
        lo[r][0] = vmlal_s16(lo[r][0], vget_low_s16(av), vget_low_s16(b0));
        hi[r][0] = vmlal_high_s16(hi[r][0], av, b0);
        lo[r][1] = vmlal_s16(lo[r][1], vget_low_s16(av), vget_low_s16(b1));
        hi[r][1] = vmlal_high_s16(hi[r][1], av, b1);
      }
    }
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < 2; ++v) {
        int32x4_t sum = vpaddq_s32(lo[r][v], hi[r][v]);
        if (!first) sum = vaddq_s32(sum, vld1q_s32(acc + r * ld + 4 * v));
        vst1q_s32(acc + r * ld + 4 * v, sum);
      }
    }
  }
#else
  // x86 and wasm: 8 x 4 instead, with B widened to int16 when it is packed. A column's pair is then one
  // 32-bit broadcast load (no shuffle or widening instruction), and a pair of k costs two loads of the eight
  // rows' pairs, four broadcasts and eight pair products with their adds: the vector instructions are
  // almost all products (wasm: 41 -> 50 GMAC/s in V8). The accumulators hold columns (lanes are rows) and
  // are transposed when stored.
  static constexpr int mr = 8, nr = 4, group = 2;
  using AElem = int16_t;
  using BElem = int16_t;
  // Written with SSE intrinsics, which Emscripten's headers map one to one onto SIMD128 instructions; only
  // the broadcast of column j's pair differs: wasm splats it from memory (a load), SSE shuffles it out of
  // `pairs`, the one load of the strip's 16 bytes of this pair of k (unused on wasm, so never loaded).
  template <int j>
  static __m128i column_pair(const int16_t* b, __m128i pairs) {
#if defined(__wasm_simd128__)
    return wasm_v128_load32_splat(b + 2 * j);
#else
    return _mm_shuffle_epi32(pairs, j * 0x55);
#endif
  }
  template <int j>
  static void column_step(__m128i (&t)[nr][2], const int16_t* b, __m128i pairs, __m128i low_rows,
                          __m128i high_rows) {
    const __m128i column = column_pair<j>(b, pairs);
    t[j][0] = _mm_add_epi32(t[j][0], _mm_madd_epi16(low_rows, column));
    t[j][1] = _mm_add_epi32(t[j][1], _mm_madd_epi16(high_rows, column));
  }
  static __m128i load(const int32_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  static void run(int64_t pairs, const int16_t* a, const int16_t* b, int32_t* acc, int64_t ld, bool first) {
    __m128i t[nr][2];  // t[j][h]: column j of rows 4h .. 4h + 3
    for (int j = 0; j < nr; ++j) t[j][0] = t[j][1] = _mm_setzero_si128();
    for (int64_t q = 0; q < pairs; ++q, a += 2 * mr, b += 2 * nr) {
      const __m128i low_rows = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a)),
                    high_rows = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 8));
      const __m128i pairs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
      column_step<0>(t, b, pairs, low_rows, high_rows);
      column_step<1>(t, b, pairs, low_rows, high_rows);
      column_step<2>(t, b, pairs, low_rows, high_rows);
      column_step<3>(t, b, pairs, low_rows, high_rows);
    }
    for (int h = 0; h < 2; ++h) {
      const __m128i low01 = _mm_unpacklo_epi32(t[0][h], t[1][h]),
                    high01 = _mm_unpackhi_epi32(t[0][h], t[1][h]);
      const __m128i low23 = _mm_unpacklo_epi32(t[2][h], t[3][h]),
                    high23 = _mm_unpackhi_epi32(t[2][h], t[3][h]);
      const __m128i rows[4] = {_mm_unpacklo_epi64(low01, low23), _mm_unpackhi_epi64(low01, low23),
                               _mm_unpacklo_epi64(high01, high23), _mm_unpackhi_epi64(high01, high23)};
      for (int i = 0; i < 4; ++i) {
        int32_t* row = acc + (4 * h + i) * ld;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(row),
                         first ? rows[i] : _mm_add_epi32(rows[i], load(row)));
      }
    }
  }
#endif
};
#endif

#if defined(__aarch64__)
// 4 x 16 with Arm's dot product (SDOT): groups of four k, int8 on both sides. One 16-byte load of A holds a
// group for each of the four rows; lane r of it meets the B columns in vdotq_laneq_s32. Compiled for the
// dotprod extension alone; only called where the CPU has it (Int8GemmImpl<V128> below).
struct Int8SdotDot {
  static constexpr int mr = 4, nr = 16, group = 4;
  using AElem = int8_t;
  __attribute__((target("arch=armv8.2-a+dotprod"))) static void run(int64_t groups, const int8_t* a,
                                                                    const int8_t* b, int32_t* acc, int64_t ld,
                                                                    bool first) {
    int32x4_t t[mr][4];
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < 4; ++v) t[r][v] = first ? vdupq_n_s32(0) : vld1q_s32(acc + r * ld + 4 * v);
    }
    for (int64_t q = 0; q < groups; ++q, a += 4 * mr, b += 4 * nr) {
      const int8x16_t av = vld1q_s8(a);
      for (int v = 0; v < 4; ++v) {
        const int8x16_t bv = vld1q_s8(b + 16 * v);
        t[0][v] = vdotq_laneq_s32(t[0][v], bv, av, 0);
        t[1][v] = vdotq_laneq_s32(t[1][v], bv, av, 1);
        t[2][v] = vdotq_laneq_s32(t[2][v], bv, av, 2);
        t[3][v] = vdotq_laneq_s32(t[3][v], bv, av, 3);
      }
    }
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < 4; ++v) vst1q_s32(acc + r * ld + 4 * v, t[r][v]);
    }
  }
};
#endif

// The product kernel over one microkernel Dot (its tile mr x nr, its group of k and its A element type).
// The element type of a microkernel's packed B: int8, unless the microkernel widens it when packing (BElem).
template <class Dot>
struct Int8PackedBElem {
  using type = int8_t;
};
template <class Dot>
requires requires {
  typename Dot::BElem;
}
struct Int8PackedBElem<Dot> {
  using type = typename Dot::BElem;
};

template <class Dot>
struct Int8GemmCore {
  using AElem = typename Dot::AElem;
  using BElem = typename Int8PackedBElem<Dot>::type;
  static constexpr int64_t kMR = Dot::mr, kNR = Dot::nr, kG = Dot::group;
  // 128 when the panels hold A'' (unsigned bytes), 0 when they hold A' (file comment).
  static constexpr bool kUnsignedA = !std::is_signed_v<AElem>;
  static constexpr uint32_t kAOffset = kUnsignedA ? 128 : 0;
  static constexpr int64_t kMC = 48, kNC = 64, kKC = 512;
  static constexpr int64_t kStripsPerPackChunk = 4;
  static constexpr int64_t kRun = 256;  // k values of one A row shifted at a time when packing
  static constexpr int64_t kAlign = 64;
  static_assert(kMC % kMR == 0 && kNC % kNR == 0, "chunks must be whole microkernel tiles");
  // Whether the microkernel can compute the first nr / 2 columns of its tile alone (run_narrow).
  static constexpr bool kHasNarrow = requires { &Dot::run_narrow; };
  // Work estimates in nanoseconds on one thread (kernels-gemm.md's scheme).
  static constexpr double kMulAddsPerNs = 40.0, kNsPerPacked = 0.5;

  static constexpr int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
  static constexpr int64_t ceil_div(int64_t x, int64_t d) { return (x + d - 1) / d; }

  static size_t packed_b_bytes(int64_t k, int64_t n) {
    if (k < 0 || n <= 0) return 0;
    const int64_t np = round_up(n, kNR);
    return static_cast<size_t>(round_up(np * 4, kAlign) +
                               round_up(k, kG) * np * static_cast<int64_t>(sizeof(BElem)));
  }

  static size_t scratch_bytes(const Int8GemmArgs& args, bool b_packed, const ThreadContext& threads) {
    if (args.m <= 0 || args.n <= 0) return 0;
    const size_t b =
        b_packed
            ? 0
            : static_cast<size_t>(round_up(static_cast<int64_t>(packed_b_bytes(args.k, args.n)), kAlign));
    return static_cast<size_t>(kAlign) + b + packed_a_bytes(args.m, args.k) +
           static_cast<size_t>(round_up(padded_input_bytes(args), kAlign)) +
           static_cast<size_t>(thread_slots(threads)) * slot_bytes();
  }

  static void pack_b(const void* b, bool b_signed, int64_t b_row, int64_t b_col, int64_t k, int64_t n,
                     void* packed) {
    if (k < 0 || n <= 0) return;
    for (int64_t chunk = 0; chunk < pack_b_chunks(n); ++chunk) {
      pack_b_chunk(b, b_signed, b_row, b_col, k, n, static_cast<std::byte*>(packed), chunk);
    }
  }

  static void gemm(const Int8GemmArgs& args, const Int8PackedB* packed_b, void* scratch,
                   const ThreadContext& threads) {
    if (args.m <= 0 || args.n <= 0) return;
    if (args.k < 0) throw std::invalid_argument("int8_gemm: negative k");
    if (packed_b != nullptr && (packed_b->k != args.k || packed_b->n != args.n))
      throw std::invalid_argument("int8_gemm: packed B has another shape");
    std::unique_ptr<std::byte[]> owned;
    if (scratch == nullptr) {
      owned.reset(new std::byte[scratch_bytes(args, packed_b != nullptr, threads)]);
      scratch = owned.get();
    }
    std::byte* p = align(static_cast<std::byte*>(scratch));
    const std::byte* b_data;
    if (packed_b != nullptr) {
      b_data = static_cast<const std::byte*>(packed_b->data);
    } else {
      const auto body = [&](int64_t chunk) {
        pack_b_chunk(args.b, args.b_signed, args.b_row, args.b_col, args.k, args.n, p, chunk);
      };
      parallel_for(threads, pack_b_chunks(args.n), body,
                   kNsPerPacked * static_cast<double>(args.k) * static_cast<double>(args.n));
      b_data = p;
      p += round_up(static_cast<int64_t>(packed_b_bytes(args.k, args.n)), kAlign);
    }
    Int8GemmArgs a_args = args;
    Int8ConvA padded;
    if (padded_input_bytes(args) > 0) {
      padded = pad_input(args, p);
      a_args.a = p, a_args.conv = &padded;
      p += round_up(padded_input_bytes(args), kAlign);
    }
    std::byte* a_data = p;
    p += packed_a_bytes(args.m, args.k);
    const auto pack_a_body = [&](int64_t block) { pack_a_block(a_args, a_data, block); };
    parallel_for(threads, ceil_div(args.m, kMC), pack_a_body,
                 kNsPerPacked * static_cast<double>(args.m) * static_cast<double>(args.k));
    run_tiles(args, a_data, b_data, p, threads);
  }

 private:
  static std::byte* align(std::byte* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    return p + (round_up(static_cast<int64_t>(address), kAlign) - static_cast<int64_t>(address));
  }
  static size_t slot_bytes() { return static_cast<size_t>(kMC * kNC * 4); }
  static size_t packed_a_bytes(int64_t m, int64_t k) {
    const int64_t mp = round_up(m, kMR);
    return static_cast<size_t>(round_up(mp * round_up(k, kG) * static_cast<int64_t>(sizeof(AElem)), kAlign) +
                               round_up(mp * 4, kAlign));
  }
  static int64_t a_panels_bytes(int64_t mp, int64_t kp) {
    return round_up(mp * kp * static_cast<int64_t>(sizeof(AElem)), kAlign);
  }
  static int64_t pack_b_chunks(int64_t n) { return ceil_div(ceil_div(n, kNR), kStripsPerPackChunk); }

  // Raw 8-bit value at index i of an operand, and its shifted-domain value.
  static int32_t raw(const void* data, bool is_signed, int64_t i) {
    return is_signed ? static_cast<int32_t>(static_cast<const int8_t*>(data)[i])
                     : static_cast<int32_t>(static_cast<const uint8_t*>(data)[i]);
  }
  static int32_t shifted(int32_t raw_value, bool is_signed) {
    return is_signed ? raw_value : raw_value - 128;
  }
  static int32_t zero_shifted(const void* zero, bool is_signed, bool per_index, int64_t i) {
    if (zero == nullptr) return shifted(0, is_signed);
    return shifted(raw(zero, is_signed, per_index ? i : 0), is_signed);
  }

  // Up to four strips of B and their column sums.
  static void pack_b_chunk(const void* b, bool b_signed, int64_t b_row, int64_t b_col, int64_t k, int64_t n,
                           std::byte* packed, int64_t chunk) {
    const int64_t np = round_up(n, kNR), kp = round_up(k, kG), strips = ceil_div(n, kNR);
    auto* col_sum = reinterpret_cast<int32_t*>(packed);
    auto* data = reinterpret_cast<BElem*>(packed + round_up(np * 4, kAlign));
    const int64_t end =
        (chunk + 1) * kStripsPerPackChunk < strips ? (chunk + 1) * kStripsPerPackChunk : strips;
    for (int64_t s = chunk * kStripsPerPackChunk; s < end; ++s) {
      BElem* strip = data + s * kp * kNR;
      for (int64_t j = 0; j < kNR; ++j) {
        const int64_t col = s * kNR + j;
        uint32_t sum = 0;
        for (int64_t p = 0; p < kp; ++p) {
          const int32_t v =
              col < n && p < k ? shifted(raw(b, b_signed, p * b_row + col * b_col), b_signed) : 0;
          strip[p / kG * kG * kNR + kG * j + p % kG] = static_cast<BElem>(v);
          sum += static_cast<uint32_t>(v);
        }
        col_sum[col] = static_cast<int32_t>(sum);
      }
    }
  }

  // Rows [block*mc, block*mc + mc) of A into their panels, and their row sums; a panel at a time.
  static void pack_a_block(const Int8GemmArgs& args, std::byte* packed, int64_t block) {
    const int64_t mp = round_up(args.m, kMR), kp = round_up(args.k, kG);
    auto* panels = reinterpret_cast<AElem*>(packed);
    auto* row_sum = reinterpret_cast<int32_t*>(packed + a_panels_bytes(mp, kp));
    const int64_t first = block * kMC, end = first + kMC < mp ? first + kMC : mp;
    for (int64_t i0 = first; i0 < end; i0 += kMR) {
      AElem* panel = panels + i0 / kMR * kp * kMR;
      uint32_t sum[kMR] = {};
      const int64_t rows = args.m - i0 < kMR ? args.m - i0 : kMR;
      if (args.conv != nullptr)
        pack_conv_panel(args, i0, rows, panel, sum);
      else
        pack_matrix_panel(args, i0, rows, panel, sum);
      // Padding: k beyond args.k in every row, and whole rows beyond m.
      for (int64_t p = args.k; p < kp; ++p) {
        for (int64_t r = 0; r < kMR; ++r) panel[slot(p) + kG * r] = 0;
      }
      for (int64_t r = rows; r < kMR; ++r) {
        for (int64_t p = 0; p < args.k; ++p) panel[slot(p) + kG * r] = 0;
      }
      for (int64_t r = 0; r < kMR; ++r) row_sum[i0 + r] = static_cast<int32_t>(sum[r]);
    }
  }

  // Where value (p, row 0) of a panel is; row r's is kG * r further.
  static constexpr int64_t slot(int64_t p) { return p / kG * kG * kMR + p % kG; }

  // The byte an A byte is XORed with to reach the panels' domain: flipping the top bit of a uint8 subtracts
  // 128 modulo 256, which read as int8 is A'; an int8 flipped and read as uint8 is A' + 128 (A''). A byte
  // already in the domain's signedness is read as it is (flip 0).
  static uint8_t a_flip(const Int8GemmArgs& args) { return args.a_signed == kUnsignedA ? 0x80 : 0; }
  // An A byte in the panels' domain.
  static AElem shifted_byte(uint8_t byte, uint8_t flip) {
    const auto v = static_cast<uint8_t>(byte ^ flip);
    if constexpr (kUnsignedA)
      return v;
    else
      return static_cast<AElem>(static_cast<int8_t>(v));
  }

  // Rows i0 .. i0 + rows - 1 of a strided A. Rows stored contiguously (a_col = 1) are shifted a run at a
  // time and copied a group of k (4 bytes) at a time; otherwise k by k, each k's rows adjacent in memory when
  // A is the input of a 1x1 convolution (a_row = 1).
  static void pack_matrix_panel(const Int8GemmArgs& args, int64_t i0, int64_t rows, AElem* panel,
                                uint32_t* sum) {
    const auto* a = static_cast<const uint8_t*>(args.a) + i0 * args.a_row;
    const uint8_t flip = a_flip(args);
    if (args.a_col == 1) {
      static_assert(kRun % kG == 0 && kG * sizeof(AElem) == 4, "a run is whole groups of 4 bytes");
      int64_t packed = 0;  // k values already in the panel (and in sum)
#if defined(__AVX512BW__)
      if constexpr (kMR == 12 && kG == 4 && sizeof(AElem) == 1) {
        if (rows == kMR) packed = pack_twelve_row_blocks(a, args.a_row, args.k, flip, panel, sum);
      }
#elif defined(__SSE4_1__)
      if constexpr (kMR % 4 == 0 && kG == 2 && sizeof(AElem) == 2) {
        if (rows == kMR) packed = pack_row_octets(a, args.a_row, args.k, flip, panel, sum);
      }
#endif
      AElem row[kRun];
      for (int64_t r = 0; r < rows; ++r) {
        const uint8_t* src = a + r * args.a_row;
        uint32_t s = sum[r];
        for (int64_t p0 = packed; p0 < args.k; p0 += kRun) {
          const int64_t len = args.k - p0 < kRun ? args.k - p0 : kRun;
          for (int64_t t = 0; t < len; ++t) {
            row[t] = shifted_byte(src[p0 + t], flip);
            s += static_cast<uint32_t>(static_cast<int32_t>(row[t]));
          }
          for (int64_t t = len; t < round_up(len, kG); ++t) row[t] = 0;
          AElem* dst = panel + slot(p0) + kG * r;
          for (int64_t q = 0; q < ceil_div(len, kG); ++q) std::memcpy(dst + q * kG * kMR, row + q * kG, 4);
        }
        sum[r] = s;
      }
      return;
    }
#if defined(__AVX512BW__)
    if (args.a_row == 1 && kMR == 12 && (kG == 2 || kG == 4))
      return pack_adjacent_rows(args, a, rows, panel, sum);
#elif defined(__SSE4_1__)
    if constexpr (kMR % 4 == 0 && kG == 2 && sizeof(AElem) == 2) {
      if (args.a_row == 1 && rows == kMR) {
        const uint8_t* tap = a;
        const auto next_tap = [&] {
          const uint8_t* current = tap;
          tap += args.a_col;
          return current;
        };
        return pack_rows(args.k, next_tap, 1, flip, panel, sum);
      }
    }
#endif
    for (int64_t p = 0; p < args.k; ++p) {
      AElem* dst = panel + slot(p);
      const uint8_t* src = a + p * args.a_col;
      for (int64_t r = 0; r < rows; ++r) {
        const AElem v = shifted_byte(src[r * args.a_row], flip);
        dst[kG * r] = v;
        sum[r] += static_cast<uint32_t>(static_cast<int32_t>(v));
      }
    }
  }

  // The input extent a convolution's windows cover, from -pad_top / -pad_left: out_h x out_w windows.
  static int64_t covered_h(const Int8GemmArgs& args) {
    const Int8ConvA& g = *args.conv;
    const int64_t out_h = g.out_w > 0 ? ceil_div(args.m, g.out_w) : 0;
    return (out_h - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
  }
  static int64_t covered_w(const Int8GemmArgs& args) {
    const Int8ConvA& g = *args.conv;
    return (g.out_w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
  }

  // Bytes of the padded copy of a convolution's input, 0 when every window lies inside the input.
  static int64_t padded_input_bytes(const Int8GemmArgs& args) {
    if (args.conv == nullptr || args.m <= 0) return 0;
    const Int8ConvA& g = *args.conv;
    const int64_t taps = g.kernel_h * g.kernel_w, h = covered_h(args), w = covered_w(args);
    const bool inside =
        g.pad_top <= 0 && g.pad_left <= 0 && h - g.pad_top <= g.in_h && w - g.pad_left <= g.in_w;
    return inside || taps <= 0 ? 0 : args.k / taps * h * w;
  }

  // Padded rows of width w: out[j] = in[j - pad_left] for x0 <= j < x1, `zero` elsewhere. AVX-512 takes 64
  // bytes per masked load and store instead of three library calls (a small convolution's rows are a few
  // dozen bytes), the masks of the first 64 columns computed once for all rows; the masked load reads only
  // the input's own bytes.
  struct RowPadder {
    int64_t pad_left, x0, x1, w;
    uint8_t zero;
#if defined(__AVX512BW__)
    __m512i fill = _mm512_set1_epi8(static_cast<char>(zero));
    __mmask64 first_load = lanes(x0, x1), first_store = lanes(0, w);

    static __mmask64 lanes(int64_t lo, int64_t hi) {  // lanes [lo, hi) of 64, clamped
      lo = lo < 0 ? 0 : lo, hi = hi > 64 ? 64 : hi;
      if (hi <= lo) return __mmask64{0};
      const uint64_t below_hi = hi == 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
      return static_cast<__mmask64>(below_hi & ~((uint64_t{1} << lo) - 1));
    }
#endif

    void operator()(const uint8_t* in, uint8_t* out) const {
#if defined(__AVX512BW__)
      for (int64_t j = 0; j < w; j += 64) {  // lane l is column j + l
        const auto* src = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(in) +
                                                        static_cast<uintptr_t>(j - pad_left));
        const __m512i v = _mm512_mask_loadu_epi8(fill, j == 0 ? first_load : lanes(x0 - j, x1 - j), src);
        _mm512_mask_storeu_epi8(out + j, j == 0 ? first_store : lanes(0, w - j), v);
      }
#else
      std::memset(out, zero, static_cast<size_t>(x0));
      std::memcpy(out + x0, in + (x0 - pad_left), static_cast<size_t>(x1 - x0));
      std::memset(out + x1, zero, static_cast<size_t>(w - x1));
#endif
    }
  };

  // Copies the covered part of the input to `dst`, the taps outside it holding A's zero point (which adds
  // nothing), and returns the geometry of the copy: no padding, so every panel reads without bounds checks.
  static Int8ConvA pad_input(const Int8GemmArgs& args, std::byte* dst) {
    const Int8ConvA& g = *args.conv;
    const int64_t h = covered_h(args), w = covered_w(args), channels = args.k / (g.kernel_h * g.kernel_w);
    const uint8_t zero = args.a_zero != nullptr ? *static_cast<const uint8_t*>(args.a_zero) : 0;
    const int64_t x0 = g.pad_left < 0 ? 0 : g.pad_left;  // first copied column of a padded row
    const int64_t x1 = w < g.in_w + g.pad_left ? w : g.in_w + g.pad_left;
    const auto* x = static_cast<const uint8_t*>(args.a);
    auto* out = reinterpret_cast<uint8_t*>(dst);
    const RowPadder pad_row{g.pad_left, x0, x1, w, zero};
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t y = 0; y < h; ++y, out += w) {
        const int64_t iy = y - g.pad_top;
        if (iy < 0 || iy >= g.in_h || x1 <= x0) {
          std::memset(out, zero, static_cast<size_t>(w));
          continue;
        }
        pad_row(x + (c * g.in_h + iy) * g.in_w, out);
      }
    }
    Int8ConvA padded = g;
    padded.in_h = h, padded.in_w = w, padded.pad_top = 0, padded.pad_left = 0;
    return padded;
  }

#if defined(__AVX512BW__)
  // A panel's rows as at most two runs of neighbouring output pixels of one output row each (the panel
  // crosses at most one row end): run u covers the rows whose bit is set in mask[u], in byte lanes (row r at
  // lane r * stride), and row r of it reads offset base[u] + r * stride from a tap.
  struct RowRuns {
    int count = 0;
    int64_t base[2] = {};
    uint32_t mask[2] = {};
  };

  // The runs of a panel of the 12-row kernels at stride 1 or 2; false when it needs more than two, or the
  // tile or stride is another.
  static bool row_runs(const Int8ConvA& g, const int64_t* corner, int64_t rows, RowRuns& runs) {
    if (kMR != 12 || (kG != 2 && kG != 4) || (g.stride_w != 1 && g.stride_w != 2)) return false;
    int64_t split = rows;  // the first row of a second run
    for (int64_t r = 1; r < rows; ++r) {
      if (corner[r] != corner[r - 1] + g.stride_w) {
        if (split != rows) return false;
        split = r;
      }
    }
    uint32_t first = 0, second = 0;  // in registers: this runs once per panel
    for (int64_t r = 0; r < rows; ++r) (r < split ? first : second) |= 1u << (r * g.stride_w);
    runs.count = split < rows ? 2 : 1;
    runs.base[0] = corner[0];
    runs.base[1] = split < rows ? corner[split] - split * g.stride_w : 0;
    runs.mask[0] = first, runs.mask[1] = second;
    return true;
  }

  // A panel row's bytes of one tap in lane r (unread lanes hold `flip`, which is 0 in the panels' domain).
  // The masked loads never touch a byte outside the rows' own taps.
  static __m128i load_rows(const uint8_t* tap, const RowRuns& runs, int64_t stride, uint8_t flip) {
    const auto at = [tap](int64_t offset) {
      return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(tap) + static_cast<uintptr_t>(offset));
    };
    if (stride == 1) {
      __m128i v = _mm_set1_epi8(static_cast<char>(flip));
      for (int u = 0; u < runs.count; ++u) v = _mm_mask_loadu_epi8(v, runs.mask[u], at(runs.base[u]));
      return v;
    }
    __m256i w = _mm256_set1_epi16(flip);  // stride 2: row r in the low byte of 16-bit lane r
    for (int u = 0; u < runs.count; ++u) w = _mm256_mask_loadu_epi8(w, runs.mask[u], at(runs.base[u]));
    return _mm256_cvtepi16_epi8(w);
  }

  // The whole blocks of 16 k of twelve contiguous rows (a_col = 1) for the VNNI kernel's unsigned quads:
  // rows 4u .. 4u + 3 of a block in one zmm (a row's 16 bytes per 128-bit lane), moved to the panels'
  // domain, its 4 x 4 quads transposed by one vpermd so that lane q holds group q of the four rows, and
  // stored a lane at a time; the row sums gather per lane (maddubs and madd with ones) and are folded at the
  // end. Returns how many k it packed.
  static int64_t pack_twelve_row_blocks(const uint8_t* a, int64_t a_row, int64_t k, uint8_t flip,
                                        AElem* panel, uint32_t* sum) {
    const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip));
    const __m512i byte_ones = _mm512_set1_epi8(1), pair_ones = _mm512_set1_epi16(1);
    const __m512i transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m512i sums[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    const int64_t blocks = k / 16 * 16;
    const auto load = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
    const auto store = [](AElem* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); };
    for (int64_t p = 0; p < blocks; p += 16, panel += 16 * kMR) {
      for (int u = 0; u < 3; ++u) {
        const uint8_t* row = a + 4 * u * a_row + p;
        __m512i v = _mm512_castsi128_si512(load(row));
        v = _mm512_inserti32x4(v, load(row + a_row), 1);
        v = _mm512_inserti32x4(v, load(row + 2 * a_row), 2);
        v = _mm512_inserti32x4(v, load(row + 3 * a_row), 3);
        v = _mm512_xor_si512(v, flips);
        sums[u] = _mm512_add_epi32(sums[u], _mm512_madd_epi16(_mm512_maddubs_epi16(v, byte_ones), pair_ones));
        const __m512i groups = _mm512_permutexvar_epi32(transpose, v);
        store(panel + 16 * u, _mm512_castsi512_si128(groups));
        store(panel + 4 * kMR + 16 * u, _mm512_extracti32x4_epi32(groups, 1));
        store(panel + 8 * kMR + 16 * u, _mm512_extracti32x4_epi32(groups, 2));
        store(panel + 12 * kMR + 16 * u, _mm512_extracti32x4_epi32(groups, 3));
      }
    }
    for (int u = 0; u < 3; ++u) {
      alignas(64) uint32_t lanes[16];
      _mm512_store_si512(lanes, sums[u]);
      for (int r = 0; r < 4; ++r)
        sum[4 * u + r] += lanes[4 * r] + lanes[4 * r + 1] + lanes[4 * r + 2] + lanes[4 * r + 3];
    }
    return blocks;
  }

  // pack_matrix_panel for rows adjacent in memory (a 1x1 convolution's input planes, a_row = 1): a k's rows
  // are one run, gathered as the convolutions' taps are.
  static void pack_adjacent_rows(const Int8GemmArgs& args, const uint8_t* a, int64_t rows, AElem* panel,
                                 uint32_t* sum) {
    RowRuns runs;
    runs.count = 1;
    runs.mask[0] = (1u << rows) - 1;
    const uint8_t* tap = a;
    const auto next_tap = [&] {
      const uint8_t* current = tap;
      tap += args.a_col;
      return current;
    };
    pack_tap_groups(args.k, next_tap, runs, 1, a_flip(args), panel, sum);
  }

  // A whole panel of the 12-row kernels without a raw buffer: next_tap() gives k's tap, from which the rows
  // read as `runs` says. Each group of kG taps is interleaved in registers into the panel's order (row r's kG
  // values side by side), moved to the panels' domain, stored, and summed per row in registers. A ragged last
  // group's missing taps and the padding rows read `flip`, which is 0 in the panels' domain.
  template <class NextTap>
  static void pack_tap_groups(int64_t k, const NextTap& next_tap, const RowRuns& runs, int64_t stride,
                              uint8_t flip, AElem* panel, uint32_t* sum) {
    static_assert(kMR == 12 && (kG == 2 || kG == 4), "the 12-row kernels");
    const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
    alignas(64) uint32_t row_sums[16];
    if constexpr (kG == 2) {  // int16 pairs: rows 0-11 in the low 24 bytes, widened to one zmm
      static_assert(sizeof(AElem) == 2, "pairs are int16");
      const __m512i ones = _mm512_set1_epi16(1);
      __m512i sums = _mm512_setzero_si512();
      for (int64_t p = 0; p < k; p += 2, panel += 2 * kMR) {
        const __m128i v0 = load_rows(next_tap(), runs, stride, flip);
        const __m128i v1 = p + 1 < k ? load_rows(next_tap(), runs, stride, flip) : flips;
        const __m256i bytes =
            _mm256_xor_si256(_mm256_set_m128i(_mm_unpackhi_epi8(v0, v1), _mm_unpacklo_epi8(v0, v1)),
                             _mm256_set1_epi8(static_cast<char>(flip)));
        const __m512i group = _mm512_cvtepi8_epi16(bytes);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(panel), _mm512_castsi512_si256(group));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(panel + 16), _mm512_extracti32x4_epi32(group, 2));
        sums = _mm512_add_epi32(sums, _mm512_madd_epi16(group, ones));
      }
      _mm512_store_si512(row_sums, sums);
    } else {  // unsigned bytes in quads: rows 0-3, 4-7 and 8-11 in three xmm
      static_assert(sizeof(AElem) == 1 && !std::is_signed_v<AElem>, "quads are unsigned bytes");
      const __m128i byte_ones = _mm_set1_epi8(1), pair_ones = _mm_set1_epi16(1);
      __m128i sums[3] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
      for (int64_t p = 0; p < k; p += 4, panel += 4 * kMR) {
        __m128i v[4];
        for (int64_t e = 0; e < 4; ++e) v[e] = p + e < k ? load_rows(next_tap(), runs, stride, flip) : flips;
        const __m128i lo = _mm_unpacklo_epi8(v[0], v[1]), hi = _mm_unpackhi_epi8(v[0], v[1]);
        const __m128i lo23 = _mm_unpacklo_epi8(v[2], v[3]), hi23 = _mm_unpackhi_epi8(v[2], v[3]);
        const __m128i quads[3] = {_mm_unpacklo_epi16(lo, lo23), _mm_unpackhi_epi16(lo, lo23),
                                  _mm_unpacklo_epi16(hi, hi23)};
        for (int u = 0; u < 3; ++u) {
          const __m128i group = _mm_xor_si128(quads[u], flips);
          _mm_storeu_si128(reinterpret_cast<__m128i*>(panel + 16 * u), group);
          sums[u] = _mm_add_epi32(sums[u], _mm_madd_epi16(_mm_maddubs_epi16(group, byte_ones), pair_ones));
        }
      }
      for (int u = 0; u < 3; ++u) _mm_store_si128(reinterpret_cast<__m128i*>(row_sums + 4 * u), sums[u]);
    }
    for (int64_t r = 0; r < kMR; ++r) sum[r] += row_sums[r];
  }
#endif

  // The taps of im2col's k in order (channel, kernel row, kernel column), from `channel`, the first
  // channel's tap (0, 0) plus an offset common to all taps.
  struct TapWalker {
    const Int8ConvA& g;
    const uint8_t* channel;
    // The tap of the next k: kernel row kh and column kw of `channel`, at `tap_row` + `tap_col` from it
    // (stepped, not multiplied out per k).
    int64_t kh = 0, kw = 0, tap_row = 0, tap_col = 0;

    const uint8_t* next() {
      const uint8_t* tap = channel + tap_row + tap_col;
      tap_col += g.dilation_w;
      if (++kw == g.kernel_w) {
        kw = 0, tap_col = 0, tap_row += g.dilation_h * g.in_w;
        if (++kh == g.kernel_h) kh = 0, tap_row = 0, channel += g.in_h * g.in_w;
      }
      return tap;
    }
  };

#if defined(__SSE4_1__)
  // Whether the panel's windows are one run along an input row, `stride` (1 or 2) bytes apart.
  static bool row_run(const int64_t* corner, int64_t stride) {
    if (stride != 1 && stride != 2) return false;
    for (int64_t r = 1; r < kMR; ++r) {
      if (corner[r] != corner[0] + r * stride) return false;
    }
    return true;
  }

  // Bytes p[0], p[stride], p[2 * stride], p[3 * stride] (stride 1 or 2) in lanes 0-3, reading no byte
  // outside p[0 .. 3 * stride].
  static __m128i load_four_rows(const uint8_t* p, int64_t stride) {
    const auto load32 = [](const uint8_t* q) {
      int32_t v;
      std::memcpy(&v, q, 4);
      return _mm_cvtsi32_si128(v);
    };
    if (stride == 1) return load32(p);
    const __m128i bytes = _mm_unpacklo_epi32(load32(p), load32(p + 3));  // bytes 0-3, then 3-6
    return _mm_shuffle_epi8(bytes, _mm_setr_epi8(0, 2, 5, 7, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  }

  // The whole octets of k of a panel's rows, each contiguous (a_col = 1), for the 128-bit path, four rows
  // at a time: a row's eight bytes are moved to the panels' domain and widened (four pairs, summed by pmaddwd
  // with ones), and the four rows' pairs are transposed as 32-bit lanes into their 16 bytes of four groups.
  // Returns how many k it packed.
  static int64_t pack_row_octets(const uint8_t* a, int64_t a_row, int64_t k, uint8_t flip, AElem* panel,
                                 uint32_t* sum) {
    static_assert(kMR % 4 == 0 && kG == 2 && sizeof(AElem) == 2, "quartets of rows of int16 pairs");
    constexpr int64_t kQuartets = kMR / 4;  // 16-byte vectors per group
    const __m128i flips = _mm_set1_epi8(static_cast<char>(flip)), ones = _mm_set1_epi16(1);
    __m128i sums[kMR] = {};
    const int64_t octets = k / 8 * 8;
    for (int64_t p = 0; p < octets; p += 8, panel += 8 * kMR) {
      for (int64_t h = 0; h < kQuartets; ++h) {
        __m128i pairs[4];
        for (int r = 0; r < 4; ++r) {
          const int64_t row = 4 * h + r;
          const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + row * a_row + p));
          pairs[r] = _mm_cvtepi8_epi16(_mm_xor_si128(bytes, flips));
          sums[row] = _mm_add_epi32(sums[row], _mm_madd_epi16(pairs[r], ones));
        }
        const __m128i low01 = _mm_unpacklo_epi32(pairs[0], pairs[1]),
                      low23 = _mm_unpacklo_epi32(pairs[2], pairs[3]);
        const __m128i high01 = _mm_unpackhi_epi32(pairs[0], pairs[1]),
                      high23 = _mm_unpackhi_epi32(pairs[2], pairs[3]);
        auto* dst = reinterpret_cast<__m128i*>(panel) + h;
        _mm_storeu_si128(dst, _mm_unpacklo_epi64(low01, low23));
        _mm_storeu_si128(dst + kQuartets, _mm_unpackhi_epi64(low01, low23));
        _mm_storeu_si128(dst + 2 * kQuartets, _mm_unpacklo_epi64(high01, high23));
        _mm_storeu_si128(dst + 3 * kQuartets, _mm_unpackhi_epi64(high01, high23));
      }
    }
    for (int r = 0; r < kMR; ++r) sum[r] += lane_sum(sums[r]);
    return octets;
  }

  static uint32_t lane_sum(__m128i v) {
    alignas(16) uint32_t lanes[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), v);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
  }

  // A whole panel of the 128-bit path (int16 pairs; wasm's, through Emscripten's SSE headers) without the
  // raw buffer: next_tap() gives k's tap, from which the rows' bytes are `stride` apart. Per quartet of rows,
  // each pair of k is interleaved, moved to the panels' domain and widened in registers, stored as its 16
  // bytes of the group, and summed per row by pmaddwd with ones. A ragged last group pairs its k with
  // `flip`, which is 0 in the panels' domain.
  template <class NextTap>
  static void pack_rows(int64_t k, const NextTap& next_tap, int64_t stride, uint8_t flip, AElem* panel,
                        uint32_t* sum) {
    static_assert(kMR % 4 == 0 && kG == 2 && sizeof(AElem) == 2, "quartets of rows of int16 pairs");
    constexpr int64_t kQuartets = kMR / 4;
    const __m128i flips = _mm_set1_epi8(static_cast<char>(flip)), ones = _mm_set1_epi16(1);
    __m128i sums[kQuartets] = {};
    for (int64_t p = 0; p < k; p += 2, panel += 2 * kMR) {
      const uint8_t* first = next_tap();
      const uint8_t* second = p + 1 < k ? next_tap() : nullptr;
      for (int64_t h = 0; h < kQuartets; ++h) {
        const int64_t offset = 4 * h * stride;
        const __m128i low = load_four_rows(first + offset, stride);
        const __m128i high = second != nullptr ? load_four_rows(second + offset, stride) : flips;
        const __m128i group = _mm_cvtepi8_epi16(_mm_xor_si128(_mm_unpacklo_epi8(low, high), flips));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(panel) + h, group);
        sums[h] = _mm_add_epi32(sums[h], _mm_madd_epi16(group, ones));
      }
    }
    for (int64_t h = 0; h < kQuartets; ++h) {
      alignas(16) uint32_t row_sums[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(row_sums), sums[h]);
      for (int r = 0; r < 4; ++r) sum[4 * h + r] += row_sums[r];
    }
  }
#endif

  // Rows i0 .. i0 + rows - 1 of the im2col matrix (output pixels), im2col fused into the packing: k walks
  // (channel, kernel row, kernel column) incrementally, every row reading its tap at a fixed offset from
  // its window's corner. Every window lies inside the input (gemm pads a copy of it otherwise). A run of k
  // is gathered as raw bytes in the panel's order first; one plain pass then shifts, widens and sums them,
  // which the compiler vectorises (the gather itself cannot be).
  static void pack_conv_panel(const Int8GemmArgs& args, int64_t i0, int64_t rows, AElem* panel,
                              uint32_t* sum) {
    const Int8ConvA& g = *args.conv;
    const uint8_t flip = a_flip(args);
    int64_t corner[kMR];
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      corner[r] = (i / g.out_w * g.stride_h - g.pad_top) * g.in_w + i % g.out_w * g.stride_w - g.pad_left;
    }
#if defined(__SSE4_1__)
    if constexpr (kMR % 4 == 0 && kG == 2 && sizeof(AElem) == 2) {
      if (rows == kMR && row_run(corner, g.stride_w)) {
        TapWalker taps{g, static_cast<const uint8_t*>(args.a) + corner[0]};
        return pack_rows(
            args.k, [&] { return taps.next(); }, g.stride_w, flip, panel, sum);
      }
    }
#endif
#if defined(__AVX512BW__)
    RowRuns runs;
    if (row_runs(g, corner, rows, runs)) {
      TapWalker taps{g, static_cast<const uint8_t*>(args.a)};
      return pack_tap_groups(
          args.k, [&] { return taps.next(); }, runs, g.stride_w, flip, panel, sum);
    }
#endif
    TapWalker taps{g, static_cast<const uint8_t*>(args.a)};
    uint8_t raw[kRun * kMR];
    uint32_t group_sum[kG * kMR] = {};
    for (int64_t p0 = 0; p0 < args.k; p0 += kRun) {
      const int64_t len = args.k - p0 < kRun ? args.k - p0 : kRun, groups = ceil_div(len, kG);
      // `flip` reads as 0 in the panels' domain: padding rows and a ragged last group add nothing.
      std::memset(raw, flip, static_cast<size_t>(groups * kG * kMR));
      for (int64_t t = 0; t < len; ++t) {
        uint8_t* dst = raw + t / kG * kG * kMR + t % kG;
        const uint8_t* tap = taps.next();
        if (rows == kMR) {  // a constant trip count: unrolled without a test per row
          for (int64_t r = 0; r < kMR; ++r) dst[kG * r] = tap[corner[r]];
        } else {
          for (int64_t r = 0; r < rows; ++r) dst[kG * r] = tap[corner[r]];
        }
      }
      shift_groups(raw, groups, flip, panel + slot(p0), group_sum);
    }
    add_group_sums(group_sum, rows, sum);
  }

  // Raw bytes of `groups` groups in the panel's order into the panel's domain at `dst`, each byte also added
  // to its position's sum: one plain pass, which the compiler vectorises.
  static void shift_groups(const uint8_t* raw, int64_t groups, uint8_t flip, AElem* dst,
                           uint32_t* group_sum) {
    for (int64_t q = 0; q < groups; ++q) {
      for (int64_t j = 0; j < kG * kMR; ++j) {
        const AElem v = shifted_byte(raw[q * kG * kMR + j], flip);
        dst[q * kG * kMR + j] = v;
        group_sum[j] += static_cast<uint32_t>(static_cast<int32_t>(v));
      }
    }
  }

  // The row sums from the sums per position of a group (row r's kG positions).
  static void add_group_sums(const uint32_t* group_sum, int64_t rows, uint32_t* sum) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t e = 0; e < kG; ++e) sum[r] += group_sum[kG * r + e];
    }
  }

  static void run_tiles(const Int8GemmArgs& args, const std::byte* a_data, const std::byte* b_data,
                        std::byte* slots, const ThreadContext& threads) {
    const int64_t tiles_n = ceil_div(args.n, kNC), tiles = ceil_div(args.m, kMC) * tiles_n;
    const double work_ns = static_cast<double>(args.m) * static_cast<double>(args.n) *
                           static_cast<double>(args.k) / kMulAddsPerNs;
    const auto body = [&](int64_t chunk, int slot) {
      auto* acc = reinterpret_cast<int32_t*>(slots + static_cast<size_t>(slot) * slot_bytes());
      compute_tile(args, a_data, b_data, chunk / tiles_n, chunk % tiles_n, acc);
    };
    parallel_for_slots(threads, tiles, body, work_ns);
  }

  // One chunk: the products of tile (ti, tj) in acc (kMC x kNC, row stride kNC), then its epilogue.
  static void compute_tile(const Int8GemmArgs& args, const std::byte* a_data, const std::byte* b_data,
                           int64_t ti, int64_t tj, int32_t* acc) {
    const int64_t mp = round_up(args.m, kMR), np = round_up(args.n, kNR), kp = round_up(args.k, kG);
    const auto* panels = reinterpret_cast<const AElem*>(a_data);
    const auto* strips = reinterpret_cast<const BElem*>(b_data + round_up(np * 4, kAlign));
    const int64_t i0 = ti * kMC, rows = mp - i0 < kMC ? mp - i0 : kMC;
    const int64_t j0 = tj * kNC, cols = np - j0 < kNC ? np - j0 : kNC;
    if (kp == 0) {
      for (int64_t x = 0; x < kMC * kNC; ++x) acc[x] = 0;
    }
    for (int64_t k0 = 0; k0 < kp; k0 += kKC) {
      const int64_t groups = (kp - k0 < kKC ? kp - k0 : kKC) / kG;
      for (int64_t jj = 0; jj < cols; jj += kNR) {
        const BElem* b_strip = strips + (j0 + jj) / kNR * kp * kNR + k0 * kNR;
        // Columns past n are never read, so a strip whose second half is all padding skips it.
        const bool narrow = kHasNarrow && args.n - (j0 + jj) <= kNR / 2;
        for (int64_t ii = 0; ii < rows; ii += kMR) {
          const AElem* a_panel = panels + (i0 + ii) / kMR * kp * kMR + k0 * kMR;
          int32_t* tile = acc + ii * kNC + jj;
          if constexpr (kHasNarrow) {
            if (narrow) {
              Dot::run_narrow(groups, a_panel, b_strip, tile, kNC, k0 == 0);
              continue;
            }
          }
          Dot::run(groups, a_panel, b_strip, tile, kNC, k0 == 0);
        }
      }
    }
    const auto* row_sum = reinterpret_cast<const int32_t*>(a_data + a_panels_bytes(mp, kp));
    epilogue(args, acc, row_sum + i0, reinterpret_cast<const int32_t*>(b_data) + j0, i0, j0);
  }

  // Zero-point correction and the output conversion of one tile; the same integer and float operations on
  // every path. The corrected tile is stored by rows, or by columns when C's columns are far apart and its
  // rows adjacent (a convolution's output, channel-major), so that stores run along memory.
  static void epilogue(const Int8GemmArgs& args, int32_t* acc, const int32_t* row_sum, const int32_t* col_sum,
                       int64_t i0, int64_t j0) {
    const int64_t rows = args.m - i0 < kMC ? args.m - i0 : kMC;
    const int64_t cols = args.n - j0 < kNC ? args.n - j0 : kNC;
    const Int8Output output = output_of(args);
    uint32_t zb[kNC];
    for (int64_t j = 0; j < cols; ++j)
      zb[j] = static_cast<uint32_t>(zero_shifted(args.b_zero, args.b_signed, args.b_zero_per_col, j0 + j));
    // Integer outputs are converted along the tile's rows (vectorised across the columns), then written by
    // rows or, by columns, transposed; a float output by columns converts column by column.
    const bool by_columns = args.c_row == 1 && args.c_col != 1;
    const bool integers = args.epilogue != Int8Epilogue::Float;
    if (integers) {
      // The tile widths of the common channel counts get a constant trip count: the row loop is then
      // straight vector code, without a loop set-up per row.
      if (cols == 16)
        convert_tile<16>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0);
      else if (cols == 32)
        convert_tile<32>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0);
      else if (cols == kNC)
        convert_tile<kNC>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0);
      else
        convert_tile<0>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0);
      if (by_columns) {
        output.write_integers_transposed(acc, kNC, rows, cols, i0 + j0 * args.c_col, args.c_col);
      } else {
        output.with_integer_output([&](auto* out) {
          for (int64_t i = 0; i < rows; ++i)
            Int8Output::write(out + (i0 + i) * args.c_row + j0 * args.c_col, args.c_col, acc + i * kNC, cols);
        });
      }
      return;
    }
#if defined(__AVX512BW__)
    if (args.c_col == 1) return float_tile(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0);
#else
    if (args.c_col == 1) {
      if (args.bias_f32 == nullptr)
        return args.exact ? float_rows<false, true>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0)
                          : float_rows<false, false>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0);
      return args.exact ? float_rows<true, true>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0)
                        : float_rows<true, false>(args, acc, rows, cols, row_sum, col_sum, zb, i0, j0);
    }
#endif
    for (int64_t i = 0; i < rows; ++i) {
      const RowZero r = row_zero(args, i0 + i, row_sum[i]);
      int32_t* y = acc + i * kNC;
      for (int64_t j = 0; j < cols; ++j) {
        y[j] = static_cast<int32_t>(static_cast<uint32_t>(y[j]) - r.za * static_cast<uint32_t>(col_sum[j]) -
                                    zb[j] * r.rs);
      }
      if (!by_columns) output.store(y, (i0 + i) * args.c_row + j0 * args.c_col, j0, cols);
    }
    if (!by_columns) return;
    int32_t column[kMC];
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t i = 0; i < rows; ++i) column[i] = acc[i * kNC + j];
      output.store_run(column, i0 + (j0 + j) * args.c_col, 1, rows, j0 + j, false);
    }
  }

#if !defined(__AVX512BW__)
  // The float epilogue of a tile with contiguous output rows in one pass per row, so that each path's
  // compiler vectorises it across the columns: zero-point correction, float(acc) * scale, + bias (kBias),
  // NaN made canonical (kExact), the operations and order of the general loop and Int8Output::store_run.
  // The per-column parameters are first copied to local arrays, so the loop needs no alias checks.
  template <bool kBias, bool kExact>
  static void float_rows(const Int8GemmArgs& args, const int32_t* acc, int64_t rows, int64_t cols,
                         const int32_t* row_sum, const int32_t* col_sum, const uint32_t* zb, int64_t i0,
                         int64_t j0) {
    // At most kNC columns: int indices keep wasm32's address arithmetic in 32 bits.
    const int n = static_cast<int>(cols);
    uint32_t sum_b[kNC];
    float scale[kNC], bias[kNC];
    for (int j = 0; j < n; ++j) {
      sum_b[j] = static_cast<uint32_t>(col_sum[j]);
      scale[j] = args.scale[args.scale_per_col ? j0 + j : 0];
      bias[j] = kBias ? args.bias_f32[j0 + j] : 0.0f;
    }
    float* c = static_cast<float*>(args.c) + i0 * args.c_row + j0;
    for (int64_t i = 0; i < rows; ++i) {
      const RowZero r = row_zero(args, i0 + i, row_sum[i]);
      const int32_t* y = acc + i * kNC;
      float* out = c + i * args.c_row;
      for (int j = 0; j < n; ++j) {
        const auto sum = static_cast<int32_t>(static_cast<uint32_t>(y[j]) - r.za * sum_b[j] - zb[j] * r.rs);
        float v = static_cast<float>(sum) * scale[j];
        if constexpr (kBias) v = v + bias[j];
        if constexpr (kExact) v = v != v ? Int8Output::canonical_nan() : v;
        out[j] = v;
      }
    }
  }
#endif

  // Row i's A zero point in the panels' domain and its part of the correction, row_sum - k * za.
  struct RowZero {
    uint32_t za, rs;
  };
  static RowZero row_zero(const Int8GemmArgs& args, int64_t i, int32_t row_sum) {
    const auto za =
        static_cast<uint32_t>(zero_shifted(args.a_zero, args.a_signed, args.a_zero_per_row, i)) + kAOffset;
    return {za, static_cast<uint32_t>(row_sum) - static_cast<uint32_t>(args.k) * za};
  }

  // The integer epilogue of a tile in one pass per row: zero-point correction, bias, then (Requantize)
  // Int8Output::requantize, the same integer and float operations as Int8Output::convert_integers. The
  // per-column parameters are first copied to local arrays (a missing bias is 0, which adds nothing), so
  // that the column loop vectorises without alias checks. kCols is the tile's width, or 0 when it is only
  // known at run time.
  template <int64_t kCols>
  static void convert_tile(const Int8GemmArgs& args, int32_t* acc, int64_t rows, int64_t cols,
                           const int32_t* row_sum, const int32_t* col_sum, const uint32_t* zb, int64_t i0,
                           int64_t j0) {
    const int64_t n = kCols > 0 ? kCols : cols;
    uint32_t sum_b[kNC], bias[kNC];
    float mult[kNC];
    for (int64_t j = 0; j < n; ++j) {
      sum_b[j] = static_cast<uint32_t>(col_sum[j]);
      bias[j] = args.bias_i32 != nullptr ? static_cast<uint32_t>(args.bias_i32[j0 + j]) : 0u;
      if (args.epilogue == Int8Epilogue::Requantize) mult[j] = args.mult[args.mult_per_col ? j0 + j : 0];
    }
    const bool requantize = args.epilogue == Int8Epilogue::Requantize;
#if defined(__AVX512BW__)
    if (requantize) return requantize_tile(args, acc, rows, n, row_sum, sum_b, zb, bias, mult, i0);
#endif
    const int32_t lowest = args.y_signed ? -128 : 0, highest = args.y_signed ? 127 : 255;
    for (int64_t i = 0; i < rows; ++i) {
      const RowZero r = row_zero(args, i0 + i, row_sum[i]);
      int32_t* y = acc + i * kNC;
      const auto corrected = [&](int64_t j) {
        return static_cast<int32_t>(static_cast<uint32_t>(y[j]) - r.za * sum_b[j] - zb[j] * r.rs + bias[j]);
      };
      if (requantize) {
#if defined(ONEMODEL_INT8_VECTOR_REQUANTIZE)
        // The 128-bit path (wasm's): the corrected sums first, then Int8Output's explicit vectors.
        for (int64_t j = 0; j < n; ++j) y[j] = corrected(j);
        const int64_t done =
            Int8Output::requantize_vectors(y, n, nullptr, false, mult, true, args.y_zero, args.y_signed);
        for (int64_t j = done; j < n; ++j)
          y[j] = Int8Output::requantize(static_cast<float>(y[j]) * mult[j], args.y_zero, lowest, highest);
#else
        for (int64_t j = 0; j < n; ++j)
          y[j] = Int8Output::requantize(static_cast<float>(corrected(j)) * mult[j], args.y_zero, lowest,
                                        highest);
#endif
      } else {
        for (int64_t j = 0; j < n; ++j) y[j] = corrected(j);
      }
    }
  }

#if defined(__AVX512BW__)
  // The zero-point correction of a tile's rows in explicit vectors, 16 columns at a time, plus `bias` (an
  // int32 per column): finish(i, j, lanes, corrected) takes each vector of row i from column j. The sums
  // wrap, so their terms may be grouped at will: the parts that do not vary by row, bias - za(i0) * colSum,
  // are added per column, a row's change of za (a_zero_per_row) and the zB term only when they can be
  // nonzero.
  template <class Finish>
  static void correct_rows(const Int8GemmArgs& args, const int32_t* acc, int64_t rows, int64_t n,
                           const int32_t* row_sum, const uint32_t* sum_b, const uint32_t* zb,
                           const uint32_t* bias, int64_t i0, const Finish& finish) {
    const uint32_t za0 = row_zero(args, i0, 0).za;
    uint32_t column_offset[kNC];
    bool zb_zero = true;
    for (int64_t j = 0; j < n; ++j) {
      column_offset[j] = bias[j] - za0 * sum_b[j];
      zb_zero = zb_zero && zb[j] == 0;
    }
    const bool row_terms = args.a_zero_per_row || !zb_zero;
    for (int64_t i = 0; i < rows; ++i) {
      const RowZero r = row_terms ? row_zero(args, i0 + i, row_sum[i]) : RowZero{za0, 0};
      const __m512i rs = _mm512_set1_epi32(static_cast<int32_t>(r.rs));
      const __m512i za_change = _mm512_set1_epi32(static_cast<int32_t>(r.za - za0));
      const int32_t* y = acc + i * kNC;
      for (int64_t j = 0; j < n; j += 16) {
        const auto lanes = static_cast<__mmask16>(n - j >= 16 ? 0xFFFF : (1u << (n - j)) - 1);
        const auto column = [&](const uint32_t* values) {
          return _mm512_maskz_loadu_epi32(lanes, values + j);
        };
        __m512i c = _mm512_add_epi32(_mm512_maskz_loadu_epi32(lanes, y + j), column(column_offset));
        if (args.a_zero_per_row) c = _mm512_sub_epi32(c, _mm512_mullo_epi32(za_change, column(sum_b)));
        if (!zb_zero) c = _mm512_sub_epi32(c, _mm512_mullo_epi32(column(zb), rs));
        finish(i, j, lanes, c);
      }
    }
  }

  // convert_tile's requantization: correction and requantization in one pass.
  static void requantize_tile(const Int8GemmArgs& args, int32_t* acc, int64_t rows, int64_t n,
                              const int32_t* row_sum, const uint32_t* sum_b, const uint32_t* zb,
                              const uint32_t* bias, const float* mult, int64_t i0) {
    const Int8Output::VectorRequantizer requantizer(args.y_zero, args.y_signed);
    correct_rows(args, acc, rows, n, row_sum, sum_b, zb, bias, i0,
                 [&](int64_t i, int64_t j, __mmask16 lanes, __m512i c) {
                   const __m512i q = requantizer(c, _mm512_maskz_loadu_ps(lanes, mult + j));
                   _mm512_mask_storeu_epi32(acc + i * kNC + j, lanes, q);
                 });
  }

  // The float epilogue of a tile whose C rows are contiguous, in one pass: correction, then Int8Output's
  // float steps (float(acc) * scale, + bias, NaN made canonical in exact mode), stored straight into C.
  static void float_tile(const Int8GemmArgs& args, const int32_t* acc, int64_t rows, int64_t cols,
                         const int32_t* row_sum, const int32_t* col_sum, const uint32_t* zb, int64_t i0,
                         int64_t j0) {
    uint32_t sum_b[kNC], no_bias[kNC];
    float scale[kNC], bias[kNC];
    for (int64_t j = 0; j < cols; ++j) {
      sum_b[j] = static_cast<uint32_t>(col_sum[j]);
      no_bias[j] = 0;
      scale[j] = args.scale[args.scale_per_col ? j0 + j : 0];
      bias[j] = args.bias_f32 != nullptr ? args.bias_f32[j0 + j] : 0.0f;
    }
    const __m512 canonical_nan = _mm512_set1_ps(Int8Output::canonical_nan());
    float* c = static_cast<float*>(args.c) + i0 * args.c_row + j0;
    correct_rows(args, acc, rows, cols, row_sum, sum_b, zb, no_bias, i0,
                 [&](int64_t i, int64_t j, __mmask16 lanes, __m512i sums) {
                   __m512 v =
                       _mm512_mul_ps(_mm512_cvtepi32_ps(sums), _mm512_maskz_loadu_ps(lanes, scale + j));
                   if (args.bias_f32 != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(lanes, bias + j));
                   if (args.exact)
                     v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), canonical_nan);
                   _mm512_mask_storeu_ps(c + i * args.c_row + j, lanes, v);
                 });
  }
#endif

  static Int8Output output_of(const Int8GemmArgs& args) {
    Int8Output out;
    out.epilogue = args.epilogue;
    out.c = args.c, out.c_col = args.c_col;
    out.bias_i32 = args.bias_i32, out.bias_f32 = args.bias_f32;
    out.mult = args.mult, out.mult_per_col = args.mult_per_col;
    out.y_zero = args.y_zero, out.y_signed = args.y_signed;
    out.scale = args.scale, out.scale_per_col = args.scale_per_col;
    out.exact = args.exact;
    return out;
  }
};

// The product kernel of a path: its pair-product microkernel.
template <KernelPath P>
struct Int8GemmImpl : Int8GemmCore<Int8PairDot<P>> {};

// A path with two microkernels: `Extended` where the CPU has its instructions (`has`, decided once per
// process), else `Plain`. Every entry follows the same choice, so a weight packed at session creation is read
// by the kernel it was packed for even when the two pack differently. Both give the same integers, hence the
// same bits.
template <class Plain, class Extended, bool (*has)()>
struct Int8GemmChoice {
  static size_t packed_b_bytes(int64_t k, int64_t n) {
    return has() ? Extended::packed_b_bytes(k, n) : Plain::packed_b_bytes(k, n);
  }
  static size_t scratch_bytes(const Int8GemmArgs& args, bool b_packed, const ThreadContext& threads) {
    return has() ? Extended::scratch_bytes(args, b_packed, threads)
                 : Plain::scratch_bytes(args, b_packed, threads);
  }
  static void pack_b(const void* b, bool b_signed, int64_t b_row, int64_t b_col, int64_t k, int64_t n,
                     void* packed) {
    if (has())
      Extended::pack_b(b, b_signed, b_row, b_col, k, n, packed);
    else
      Plain::pack_b(b, b_signed, b_row, b_col, k, n, packed);
  }
  static void gemm(const Int8GemmArgs& args, const Int8PackedB* packed_b, void* scratch,
                   const ThreadContext& threads) {
    if (has())
      Extended::gemm(args, packed_b, scratch, threads);
    else
      Plain::gemm(args, packed_b, scratch, threads);
  }
};

#if defined(__AVX512BW__)
// The AVX-512 path takes the vpdpbusd kernel where the CPU has AVX512-VNNI (same tile; the two pack
// differently).
inline bool int8_has_vnni() {
  static const bool has = cpu_has_avx512_vnni();
  return has;
}

template <>
struct Int8GemmImpl<KernelPath::Avx512> : Int8GemmChoice<Int8GemmCore<Int8PairDot<KernelPath::Avx512>>,
                                                         Int8GemmCore<Int8VnniDot>, int8_has_vnni> {};
#endif

#if defined(__aarch64__)
// arm64's 128-bit path takes the dot-product kernel where the CPU has it (Linux: HWCAP_ASIMDDP), else the
// vmlal pair kernel; the two pack differently.
inline bool int8_has_dotprod() {
#if defined(__linux__) && defined(HWCAP_ASIMDDP)
  static const bool has = (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
  return has;
#else
  return false;
#endif
}

template <>
struct Int8GemmImpl<KernelPath::V128> : Int8GemmChoice<Int8GemmCore<Int8PairDot<KernelPath::V128>>,
                                                       Int8GemmCore<Int8SdotDot>, int8_has_dotprod> {};
#endif

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
