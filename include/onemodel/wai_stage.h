// wai-ops/1 stage operators (§5E, docs/wai-ops.md): the integer steps a capability's driver runs outside any
// graph, on symbols, streams and samples. Implemented are the ones the text defines completely: E2
// dequantize, E3 bucket, E4 coded, E5 scale_index, E6 block_stat, E7 band_lookup, E8 mans_decode, E9
// residual_step and E13 coding_order. E1 rans64_decode, E10 mc_predict, E11 up2_predict and E12 rate_predict
// are defined by payload texts this build does not have; check_stage_supported refuses them with
// model_mismatch.
//
// Every function computes its exact integers (wider intermediates where the operator's own width would not
// hold them) and throws StageError on a refusal, never crashes.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/wai.h"

namespace onemodel::wai {

// A refused stage operator: the code, and §14.1's refusal index `at` (-1 for an operand, mode or table that
// breaks the operator's conditions, before anything is decoded; otherwise where the decode stopped).
class StageError : public Error {
 public:
  StageError(Refusal code, int64_t at, std::string message);
  Refusal code() const { return code_; }
  int64_t at() const { return at_; }
  std::string_view kind_name() const override;

 private:
  Refusal code_;
  int64_t at_;
};

// Throws StageError(ModelMismatch, -1) unless `op` names an implemented stage operator (§5E's spelling).
void check_stage_supported(std::string_view op);

// E2: sym * 2^f + base. field_range (at 0) when f is not in 0..62 or the value does not fit i64.
int64_t dequantize(int64_t sym, int64_t f, int64_t base);

// E3. `ceil` takes the edges e_0..e_{N-1} (N >= 1); `floor` takes e_1..e_{N-1} (N - 1 >= 1, non-decreasing).
// Returns the table index in [0, N - 1].
enum class BucketRule : uint8_t { Ceil, Floor };
int64_t bucket(int64_t sigma, std::span<const int64_t> edges, BucketRule rule);

// E4: whether a position is coded.
inline bool coded(int64_t v, int64_t thr) {
  return v > thr;
}

// E5: clamp(R_half_up(v, s), 0, n - 1), for s in 0..127 and n >= 1.
int64_t scale_index(int64_t v, int64_t s, int64_t n);

// E6: each b x b block of each channel plane (partial at the right and bottom) takes
// clamp(R_half_up(block sum, s), lo, hi). The result has x's shape.
IntTensor block_stat(const IntTensor& x, int64_t b, int64_t s, int64_t lo, int64_t hi);

// E7: table[row][#{k : v >= edges[k]}], every row holding edges.size() + 1 entries.
int64_t band_lookup(int64_t v, std::span<const int64_t> edges, const std::vector<std::vector<int64_t>>& table,
                    int64_t row);

// E9: clamp(pred + r * q, lo, hi), for lo < hi, pred in [lo, hi], q in 1..65535 and r fitting i32.
int64_t residual_step(int64_t pred, int64_t r, int64_t q, int64_t lo, int64_t hi);

// E13: the CHW positions (c * H + y) * W + x of a [C, H, W] tensor in coding order: raster, or for a
// checkerboard the positions with (y + x) even when `anchor` is set and odd otherwise, in raster order.
std::vector<int64_t> coding_order(const std::array<int64_t, 3>& shape, bool checkerboard, bool anchor);

// E8, latent mode `sgm`: `pmf` are the rows P[sigma] (one width, each summing to 256), `bounds` the unsigned
// bounds B_y. Each span gives its mask and its distribution per position. Returns one array per span, 0 at
// unmasked positions. A window that runs out is stream_exhausted, with `at` the position (§14.1).
struct MansSpan {
  std::vector<bool> mask;
  std::vector<int64_t> sigma;
};
std::vector<std::vector<int64_t>> mans_decode_sgm(std::span<const uint8_t> memory,
                                                  const std::vector<std::vector<int64_t>>& pmf,
                                                  std::span<const int64_t> bounds,
                                                  const std::vector<MansSpan>& spans);

// E8, hyper-latent mode `fac`: `rows` are the 63 cumulative counts of each row's table, `lengths` the number
// of symbols each row decodes.
std::vector<std::vector<int64_t>> mans_decode_fac(std::span<const uint8_t> memory,
                                                  const std::vector<std::vector<int64_t>>& rows,
                                                  std::span<const int64_t> lengths);

}  // namespace onemodel::wai
