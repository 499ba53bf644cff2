// The GEMM kernel family: C = A * B in float32, written once over a lanes type L and a tile shape Tile and
// instantiated per kernel path by src/kernels/paths/instantiate.inc.
//
// Contract (kernels-gemm.md, exact-mode.md)
//
// Result. Output (i, j) is one accumulator that starts at +0 and adds A(i,p)*B(p,j) for p = 0, 1, ..., k-1 in
// that order. Exact flavour: every product and every sum rounds on its own and a NaN output is stored as
// 0x7FC00000, which is exact-mode.md's definition bit for bit. Fast flavour: L::fma in the same order, so a
// path with FMA rounds once per step. k = 0 stores +0. With args.accumulate the accumulator starts at C's
// value instead of +0, so consecutive calls over consecutive ranges of k form one unbroken sequence (storing
// and reloading a float is exact). Tile shape, block size, vector width and thread count never enter a
// result.
//
// Sizes. Tile::mr x Tile::nr is the register microkernel (nr a multiple of L::width); Tile::mc x Tile::nc is
// the tile of C that forms one chunk of work; k is cut into blocks of kKC = 256.
//
// Packed B, for all of k and n, once per call (gemm) or once per weight (pack_b + gemm_packed). Block b holds
// rows [256b, 256b + kc) and starts at float 256b * padded_n (n rounded up to nr). In a block, strip s
// (columns [s*nr, s*nr + nr)) starts at s*kc*nr and holds element (p, j) at p*nr + j; columns past n are +0.
// One packing chunk is 8 strips of one block.
//
// A in place. When A's columns are adjacent (a_col = 1: MatMul, Linear, Conv's weights) and the path's tile
// asks for it (Tile::a_in_place: the AVX paths; on wasm it was slower), a strip of mr whole rows is read
// where it is: the microkernel broadcasts A(i0 + r, p) from row r, the mr rows advancing together. Packing
// such a strip was a scalar transposing copy that took a tenth of a transformer encoder's product time at
// sequence 128 (k = 128 or 512); reading in place costs the microkernel less than that. The values and their
// order are the same, so the bits are. A last strip of one row or a multiple of kRowStep rows (fewer than mr)
// is read in place too, by a microkernel of exactly that many rows.
//
// Packed A otherwise (a_col != 1, and other short last strips), per tile and k-block, in the running thread's
// slot. Strip t (tile rows [t*mr, t*mr + mr)) starts at t*kc*mr and holds element (p, r) at p*mr + r; rows
// past the tile are +0. When k has at most kKeptBlocks blocks, a slot keeps every block of the tile row it
// last packed, and a later tile of the same row run by the same thread uses them as they are (chunks are
// numbered along tile rows). Packing is a plain copy, so this only saves time: with nc = 128, a 1024-wide
// product would otherwise pack all of A eight times.
//
// Order of work. A tile runs its k-blocks in increasing order. Per block it packs (or finds) its A block,
// then for each B strip runs the microkernel down the A strips. The first block starts the accumulators at
// +0 (at C with args.accumulate); a later one reloads what the block before stored in C, so the additions
// form one unbroken sequence. NaN is replaced when the last block stores (a NaN accumulator stays NaN, so
// earlier would change nothing). With args.epilogue, the tile's chunk then hands the finished tile to it (k =
// 0: each tile of zeros).
//
// Safety rules.
// - C is written only inside the m x n window (c, ldc) and must not overlap A or B; A and B are read only at
//   valid (i, p) and (p, j).
// - A microkernel on a ragged edge (fewer than mr rows or nr columns left) runs on the slot's edge tile, with
//   the valid part copied in and out, so padding never reaches C; one whose rows are one or a multiple of
//   kRowStep and whose columns are all there writes C directly with a register tile of just those rows.
// - Every output belongs to exactly one chunk and k is never split, so chunks never share an output.
// - Scratch, from the caller's pointer aligned up to 64 bytes: [packed B (gemm only)], then per thread a
//   slot [edge tile mr x nr][tag: the tile row whose A blocks it holds][A blocks of mc x 256]. Slots come
//   from parallel_for_slots, so two running chunks never share one; each call clears the tags first.
// - Only members of this template and of L touch floats: a shared inline helper such as std::fill<float*> is
//   compiled with every path's flags and the linker keeps one copy for all paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "kernels/kernel_table.h"
#include "kernels/simd.h"
#include "threading/parallel_for.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

template <class L, class Tile>
struct GemmImpl {
  using F = typename L::F;
  static constexpr int kW = L::width;
  static constexpr int kMR = Tile::mr, kNR = Tile::nr, kVecs = Tile::nr / L::width;
  static constexpr int64_t kMC = Tile::mc, kNC = Tile::nc, kKC = 256;
  static constexpr int64_t kStripsPerPackChunk = 8;
  static constexpr int kRowStep = Tile::mr % 4 == 0 ? 4 : Tile::mr;  // row counts of the edge microkernels
  static constexpr int64_t kAlignFloats = 16;                        // 64 bytes
  static_assert(Tile::nr % L::width == 0, "nr must be a whole number of vectors");
  static_assert(Tile::mc % Tile::mr == 0 && Tile::nc % Tile::nr == 0, "tiles must be whole microkernels");

  // Work estimates of kernels-gemm.md, in nanoseconds on one thread.
  static constexpr double kMulAddsPerNs = 40.0, kNsPerPackedFloat = 0.5;

  static constexpr int64_t round_up(int64_t x, int64_t multiple) {
    return (x + multiple - 1) / multiple * multiple;
  }
  static constexpr int64_t ceil_div(int64_t x, int64_t d) { return (x + d - 1) / d; }
  // A slot keeps the packed A blocks of one tile row when k has at most this many blocks (1.5 MB at mc = 96).
  static constexpr int64_t kKeptBlocks = 16;
  static constexpr int64_t kEdgeFloats = round_up(kMR * kNR, kAlignFloats), kTagFloats = kAlignFloats;

  static constexpr bool keeps_blocks(int64_t k) { return ceil_div(k, kKC) <= kKeptBlocks; }
  static constexpr int64_t slot_a_blocks(int64_t k) { return keeps_blocks(k) ? ceil_div(k, kKC) : 1; }
  static constexpr int64_t slot_floats(int64_t k) {
    return kEdgeFloats + kTagFloats + slot_a_blocks(k) * kMC * kKC;
  }

  static size_t packed_b_floats(int64_t k, int64_t n) {
    if (k <= 0 || n <= 0) return 0;
    return static_cast<size_t>(k * round_up(n, kNR));
  }

  static size_t packed_scratch_floats(const GemmArgs& args, const ThreadContext& threads) {
    if (args.m <= 0 || args.n <= 0 || args.k <= 0) return 0;
    return static_cast<size_t>(kAlignFloats + thread_slots(threads) * slot_floats(args.k));
  }

  static size_t scratch_floats(const GemmArgs& args, const ThreadContext& threads) {
    if (args.m <= 0 || args.n <= 0 || args.k <= 0) return 0;
    return packed_scratch_floats(args, threads) + round_up(packed_b_floats(args.k, args.n), kAlignFloats);
  }

  static void pack_b(const float* b, int64_t b_row, int64_t b_col, int64_t k, int64_t n, float* packed) {
    if (k <= 0 || n <= 0) return;
    const int64_t chunks = pack_chunks(k, n);
    for (int64_t chunk = 0; chunk < chunks; ++chunk) pack_b_chunk(b, b_row, b_col, k, n, packed, chunk);
  }

  static void gemm(const GemmArgs& args, float* scratch, const ThreadContext& threads) {
    if (args.m <= 0 || args.n <= 0) return;
    if (args.k <= 0) return store_zeros(args);
    std::unique_ptr<float[]> owned;
    if (scratch == nullptr) {
      owned.reset(new float[scratch_floats(args, threads)]);
      scratch = owned.get();
    }
    float* packed = align(scratch);
    const int64_t k = args.k, n = args.n;
    const auto pack_body = [&](int64_t chunk) {
      pack_b_chunk(args.b, args.b_row, args.b_col, k, n, packed, chunk);
    };
    parallel_for(threads, pack_chunks(k, n), pack_body,
                 kNsPerPackedFloat * static_cast<double>(k * round_up(n, kNR)));
    run_tiles(args, packed, packed + round_up(packed_b_floats(k, n), kAlignFloats), threads);
  }

  static void gemm_packed(const GemmArgs& args, const PackedB& b, float* scratch,
                          const ThreadContext& threads) {
    if (b.k != args.k || b.n != args.n)
      throw std::invalid_argument("gemm_packed: packed B has another shape");
    if (args.m <= 0 || args.n <= 0) return;
    if (args.k <= 0) return store_zeros(args);
    std::unique_ptr<float[]> owned;
    if (scratch == nullptr) {
      owned.reset(new float[packed_scratch_floats(args, threads)]);
      scratch = owned.get();
    }
    run_tiles(args, b.data, align(scratch), threads);
  }

 private:
  static float* align(float* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    return p +
           (round_up(static_cast<int64_t>(address), kAlignFloats * 4) - static_cast<int64_t>(address)) / 4;
  }

  static void store_zeros(const GemmArgs& args) {
    for (int64_t i = 0; i < args.m && !args.accumulate; ++i) {
      float* row = args.c + i * args.ldc;
      for (int64_t j = 0; j < args.n; ++j) row[j] = 0.0f;
    }
    if (args.epilogue == nullptr) return;
    for (int64_t i0 = 0; i0 < args.m; i0 += kMC) {
      for (int64_t j0 = 0; j0 < args.n; j0 += kNC) finish_tile(args, i0, j0);
    }
  }

  // Hands the finished tile at (i0, j0) to the epilogue.
  static void finish_tile(const GemmArgs& args, int64_t i0, int64_t j0) {
    const int64_t rows = args.m - i0 < kMC ? args.m - i0 : kMC, cols = args.n - j0 < kNC ? args.n - j0 : kNC;
    args.epilogue->apply(args.c + i0 * args.ldc + j0, args.ldc, i0, j0, rows, cols);
  }

  static int64_t pack_chunks(int64_t k, int64_t n) {
    return ceil_div(k, kKC) * ceil_div(ceil_div(n, kNR), kStripsPerPackChunk);
  }

  // One packing chunk: up to 8 strips of one k-block.
  static void pack_b_chunk(const float* b, int64_t b_row, int64_t b_col, int64_t k, int64_t n, float* packed,
                           int64_t chunk) {
    const int64_t strips = ceil_div(n, kNR), chunks_per_block = ceil_div(strips, kStripsPerPackChunk);
    const int64_t k0 = chunk / chunks_per_block * kKC, kc = k - k0 < kKC ? k - k0 : kKC;
    const int64_t first = chunk % chunks_per_block * kStripsPerPackChunk;
    const int64_t end = first + kStripsPerPackChunk < strips ? first + kStripsPerPackChunk : strips;
    if (b_col == 1 && end * kNR <= n) {
      // Whole strips of adjacent columns: row by row across the chunk's strips, so each row's run of B is
      // read once and in order (strip by strip, a B whose row stride is a multiple of 4 KiB, a 1x1
      // convolution's input of 160x160, keeps every row in the same few cache sets).
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = b + (k0 + p) * b_row + first * kNR;
        float* dst = packed + k0 * round_up(n, kNR) + first * kc * kNR + p * kNR;
        for (int64_t s = first; s < end; ++s, src += kNR, dst += kc * kNR) {
          for (int v = 0; v < kVecs; ++v) L::store(dst + v * kW, L::load(src + v * kW));
        }
      }
      return;
    }
    for (int64_t s = first; s < end; ++s) {
      const int64_t j0 = s * kNR, width = n - j0 < kNR ? n - j0 : kNR;
      float* dst = packed + k0 * round_up(n, kNR) + s * kc * kNR;
      for (int64_t p = 0; p < kc; ++p, dst += kNR) {
        const float* src = b + (k0 + p) * b_row + j0 * b_col;
        if (width == kNR && b_col == 1) {
          for (int v = 0; v < kVecs; ++v) L::store(dst + v * kW, L::load(src + v * kW));
        } else {
          for (int64_t j = 0; j < width; ++j) dst[j] = src[j * b_col];
          for (int64_t j = width; j < kNR; ++j) dst[j] = 0.0f;
        }
      }
    }
  }

  // Whether the microkernel reads strips of mr whole rows of A where they are ("A in place" above).
  static bool reads_a_in_place(const GemmArgs& args) { return Tile::a_in_place && args.a_col == 1; }

  // Whether a strip of `height` rows has a microkernel of exactly that many rows (microkernel_rows): mr, one,
  // or a multiple of kRowStep. Such a strip writes C directly and, with A in place, reads A directly too: a
  // sequence of 128 leaves 8 rows after ten strips of 12, and cls's 1x1 convolutions have 8, 16, 40 or 200
  // output channels.
  static constexpr bool exact_rows(int64_t height) {
    return height == kMR || height == 1 || height % kRowStep == 0;
  }
  static bool strip_in_place(const GemmArgs& args, int64_t height) {
    return reads_a_in_place(args) && exact_rows(height);
  }

  // Packs rows [i0, i0 + rows) x columns [k0, k0 + kc) of A into mr-row strips, except the strips read in
  // place.
  static void pack_a(const GemmArgs& args, int64_t i0, int64_t rows, int64_t k0, int64_t kc, float* dst) {
    for (int64_t r0 = 0; r0 < rows; r0 += kMR, dst += kc * kMR) {
      const int64_t height = rows - r0 < kMR ? rows - r0 : kMR;
      if (strip_in_place(args, height)) continue;
      const float* src = args.a + (i0 + r0) * args.a_row + k0 * args.a_col;
      if (height == kMR && args.a_col == 1) {
        // A full strip of adjacent columns on a path that packs it: a fixed-size transposing copy.
        const int64_t a_row = args.a_row;
        int64_t p = 0;
#if defined(__SSE__)
        // Four rows on 4-lane vectors (the v128 path, natively and in wasm): four columns at a time, as one
        // 4 x 4 transpose of four row loads; the element copy took 4 % of the wasm encoder's time.
        if constexpr (kMR == 4 && kW == 4) {
          for (; p + 4 <= kc; p += 4) {
            __m128 r0 = _mm_loadu_ps(src + p), r1 = _mm_loadu_ps(src + a_row + p);
            __m128 r2 = _mm_loadu_ps(src + 2 * a_row + p), r3 = _mm_loadu_ps(src + 3 * a_row + p);
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps(dst + p * kMR, r0);
            _mm_storeu_ps(dst + p * kMR + 4, r1);
            _mm_storeu_ps(dst + p * kMR + 8, r2);
            _mm_storeu_ps(dst + p * kMR + 12, r3);
          }
        }
#endif
        for (; p < kc; ++p) {
#pragma GCC unroll 16
          for (int r = 0; r < kMR; ++r) dst[p * kMR + r] = src[r * a_row + p];
        }
      } else {
        for (int64_t p = 0; p < kc; ++p) {
          for (int64_t r = 0; r < height; ++r) dst[p * kMR + r] = src[r * args.a_row + p * args.a_col];
          for (int64_t r = height; r < kMR; ++r) dst[p * kMR + r] = 0.0f;
        }
      }
    }
  }

  static void copy_block(const float* src, int64_t src_ld, float* dst, int64_t dst_ld, int64_t rows,
                         int64_t cols) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) dst[i * dst_ld + j] = src[i * src_ld + j];
    }
  }

  // The register tile of the first kRows rows of an A strip by nr: c (row stride ldc) = (first ? +0 : c) +
  // a_strip * b_strip over kc steps. The A strip is packed (element (p, r) at p*mr + r; lda unused) or, with
  // kInPlace, A itself (at r*lda + p). Each output's sequence of operations does not depend on kRows.
  template <bool kExact, bool kInPlace, int kRows = kMR>
  static void microkernel(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                          bool first, bool canonical_nan) {
    static_assert(kRows > 0 && kRows <= kMR, "a register tile has 1 to mr rows");
    F acc[kRows][kVecs];
#pragma GCC unroll 32
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) acc[r][v] = first ? L::splat(0.0f) : L::load(c + r * ldc + v * kW);
    }
    for (int64_t p = 0; p < kc; ++p, a += kInPlace ? 1 : kMR, b += kNR) {
      F bv[kVecs];
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) bv[v] = L::load(b + v * kW);
#pragma GCC unroll 32
      for (int r = 0; r < kRows; ++r) {
        const F av = L::splat(kInPlace ? a[r * lda] : a[r]);
#pragma GCC unroll 8
        for (int v = 0; v < kVecs; ++v) {
          if constexpr (kExact)
            acc[r][v] = acc[r][v] + av * bv[v];
          else
            acc[r][v] = L::fma(av, bv[v], acc[r][v]);
        }
      }
    }
#pragma GCC unroll 32
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) {
        L::store(c + r * ldc + v * kW, canonical_nan ? simd::canonicalize_nan<L>(acc[r][v]) : acc[r][v]);
      }
    }
  }

  // The microkernel of the fewest rows, one or a multiple of kRowStep, that covers `rows` (at most mr). With
  // kInPlace, `rows` must be exact_rows: A has no padding rows to read.
  template <bool kExact, bool kInPlace, int kRows = 1>
  static void microkernel_rows(int64_t rows, int64_t kc, const float* a, int64_t lda, const float* b,
                               float* c, int64_t ldc, bool first, bool canonical_nan) {
    constexpr int kNext = kRows == 1 ? kRowStep : kRows + kRowStep;
    if constexpr (kRows >= kMR)
      microkernel<kExact, kInPlace>(kc, a, lda, b, c, ldc, first, canonical_nan);
    else if (rows <= kRows)
      microkernel<kExact, kInPlace, kRows>(kc, a, lda, b, c, ldc, first, canonical_nan);
    else
      microkernel_rows<kExact, kInPlace, kNext>(rows, kc, a, lda, b, c, ldc, first, canonical_nan);
  }

  // The tile row whose packed A blocks a slot holds (-1: none), kept in the slot's own floats.
  static int64_t slot_tag(const float* slot) {
    int64_t tag;
    std::memcpy(&tag, slot + kEdgeFloats, sizeof tag);
    return tag;
  }
  static void set_slot_tag(float* slot, int64_t tag) {
    std::memcpy(slot + kEdgeFloats, &tag, sizeof tag);
  }

  // One chunk: the mc x nc tile (ti, tj) of C over all of k.
  template <bool kExact>
  static void compute_tile(const GemmArgs& args, const float* packed_b, int64_t ti, int64_t tj, float* slot) {
    float* edge = slot;
    const bool keep_blocks = keeps_blocks(args.k);
    const bool reuse_blocks = keep_blocks && slot_tag(slot) == ti;
    set_slot_tag(slot, keep_blocks ? ti : -1);
    const int64_t i0 = ti * kMC, rows = args.m - i0 < kMC ? args.m - i0 : kMC;
    const int64_t j0 = tj * kNC, cols = args.n - j0 < kNC ? args.n - j0 : kNC;
    const int64_t padded_n = round_up(args.n, kNR);
    for (int64_t k0 = 0; k0 < args.k; k0 += kKC) {
      const int64_t kc = args.k - k0 < kKC ? args.k - k0 : kKC;
      const bool first = k0 == 0 && !args.accumulate, canonical_nan = kExact && k0 + kc == args.k;
      float* a_pack = slot + kEdgeFloats + kTagFloats + (keep_blocks ? k0 / kKC * kMC * kKC : 0);
      if (!reuse_blocks) pack_a(args, i0, rows, k0, kc, a_pack);
      for (int64_t jj = 0; jj < cols; jj += kNR) {
        const float* b_strip = packed_b + k0 * padded_n + (j0 + jj) / kNR * kc * kNR;
        const int64_t width = cols - jj < kNR ? cols - jj : kNR;
        for (int64_t ii = 0; ii < rows; ii += kMR) {
          float* c = args.c + (i0 + ii) * args.ldc + j0 + jj;
          const int64_t height = rows - ii < kMR ? rows - ii : kMR;
          const bool in_place = strip_in_place(args, height);
          const float* a_strip =
              in_place ? args.a + (i0 + ii) * args.a_row + k0 : a_pack + ii / kMR * kc * kMR;
          const auto run_microkernel = [&](float* out, int64_t ldo) {
            if constexpr (Tile::a_in_place) {
              if (in_place) {
                microkernel_rows<kExact, true>(height, kc, a_strip, args.a_row, b_strip, out, ldo, first,
                                               canonical_nan);
                return;
              }
            }
            microkernel_rows<kExact, false>(height, kc, a_strip, 0, b_strip, out, ldo, first, canonical_nan);
          };
          if (exact_rows(height) && width == kNR) {
            run_microkernel(c, args.ldc);
          } else {
            if (!first) copy_block(c, args.ldc, edge, kNR, height, width);
            run_microkernel(edge, kNR);
            copy_block(edge, kNR, c, args.ldc, height, width);
          }
        }
      }
    }
    if (args.epilogue != nullptr) finish_tile(args, i0, j0);
  }

  static void run_tiles(const GemmArgs& args, const float* packed_b, float* slots,
                        const ThreadContext& threads) {
    const int64_t tiles_n = ceil_div(args.n, kNC), tiles = ceil_div(args.m, kMC) * tiles_n;
    const int64_t slot_size = slot_floats(args.k);
    for (int s = 0; s < thread_slots(threads); ++s) set_slot_tag(slots + s * slot_size, -1);
    const double mul_adds =
        static_cast<double>(args.m) * static_cast<double>(args.n) * static_cast<double>(args.k);
    const double a_packed = static_cast<double>(args.m) * static_cast<double>(args.k) *
                            static_cast<double>(keeps_blocks(args.k) ? 1 : tiles_n);
    const double work_ns = mul_adds / kMulAddsPerNs + a_packed * kNsPerPackedFloat;
    const auto body = [&](int64_t chunk, int slot) {
      float* slot_floats = slots + slot * slot_size;
      if (args.exact)
        compute_tile<true>(args, packed_b, chunk / tiles_n, chunk % tiles_n, slot_floats);
      else
        compute_tile<false>(args, packed_b, chunk / tiles_n, chunk % tiles_n, slot_floats);
    };
    parallel_for_slots(threads, tiles, body, work_ns);
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
