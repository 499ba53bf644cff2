// The comparison and small-arithmetic stage operators of wai-ops/1 §5E (E2-E7, E9, E13). Each checks its
// conditions before it computes anything (refused with `at` = -1), then forms its values exactly in 128 bits.
#include <algorithm>
#include <string>

#include "onemodel/wai_stage.h"
#include "wai/arith.h"

namespace onemodel::wai {

StageError::StageError(Refusal code, int64_t at, std::string message)
    : Error(std::move(message)), code_(code), at_(at) {}

std::string_view StageError::kind_name() const {
  return to_string(code_);
}

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 26;

// An operand, mode or table that breaks its operator's conditions (§5E).
[[noreturn]] void condition(const std::string& op, const std::string& what) {
  throw StageError(Refusal::ModelMismatch, -1, op + ": " + what);
}

bool fits_i32(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX;
}

// The element count of a shape whose every side is at least 1, or -1 past the tensor cap (§3).
int64_t checked_elements(const std::array<int64_t, 3>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 1 || d > kMaxElements) return -1;
    n *= d;
    if (n > kMaxElements) return -1;
  }
  return n;
}

}  // namespace

void check_stage_supported(std::string_view op) {
  static constexpr std::string_view kImplemented[] = {"dequantize",  "bucket",        "coded",
                                                      "scale_index", "block_stat",    "band_lookup",
                                                      "mans_decode", "residual_step", "coding_order"};
  if (std::find(std::begin(kImplemented), std::end(kImplemented), op) != std::end(kImplemented)) return;
  static constexpr std::string_view kElsewhere[] = {"rans64_decode", "mc_predict", "up2_predict",
                                                    "rate_predict"};
  const bool elsewhere = std::find(std::begin(kElsewhere), std::end(kElsewhere), op) != std::end(kElsewhere);
  throw StageError(
      Refusal::ModelMismatch, -1,
      "stage operator " + std::string(op) +
          (elsewhere ? " is not supported: it is defined by a payload text this build does not have"
                     : " is not a wai-ops/1 stage operator"));
}

int64_t dequantize(int64_t sym, int64_t f, int64_t base) {
  if (f < 0 || f > 62) throw StageError(Refusal::FieldRange, 0, "dequantize: f is not in 0..62");
  const i128 value = i128(sym) * (i128(1) << f) + base;  // |sym| * 2^62 + |base| < 2^126
  if (value < INT64_MIN || value > INT64_MAX)
    throw StageError(Refusal::FieldRange, 0, "dequantize: the value does not fit i64");
  return int64_t(value);
}

int64_t bucket(int64_t sigma, std::span<const int64_t> edges, BucketRule rule) {
  if (rule == BucketRule::Ceil) {
    if (edges.empty()) condition("bucket", "ceil needs at least one edge");
    const int64_t s = std::max(sigma, edges[0]);
    const int64_t n = int64_t(edges.size());
    return (n - 1) - std::count_if(edges.begin(), edges.end() - 1, [&](int64_t e) { return s <= e; });
  }
  if (edges.empty()) condition("bucket", "floor needs at least one edge");
  if (!std::is_sorted(edges.begin(), edges.end())) condition("bucket", "floor edges must not decrease");
  return std::count_if(edges.begin(), edges.end(), [&](int64_t e) { return e <= sigma; });
}

int64_t scale_index(int64_t v, int64_t s, int64_t n) {
  if (s < 0 || s > 127) condition("scale_index", "s is not in 0..127");
  if (n < 1) condition("scale_index", "n is less than 1");
  return int64_t(std::clamp<i128>(round_shift(v, int(s), Round::HalfUp), 0, n - 1));
}

IntTensor block_stat(const IntTensor& x, int64_t b, int64_t s, int64_t lo, int64_t hi) {
  const int64_t n = checked_elements(x.shape);
  if (n < 0 || size_t(n) != x.data.size()) condition("block_stat", "x is not a tensor of its shape");
  if (b < 1) condition("block_stat", "b is less than 1");
  if (s < 0 || s > 127) condition("block_stat", "s is not in 0..127");
  if (lo > hi) condition("block_stat", "lo is greater than hi");
  const int64_t C = x.shape[0], H = x.shape[1], W = x.shape[2];
  IntTensor out{x.shape, std::vector<int64_t>(x.data.size())};
  for (int64_t c = 0; c < C; ++c) {
    const int64_t plane = c * H * W;
    for (int64_t by = 0; by < H; by += b) {
      for (int64_t bx = 0; bx < W; bx += b) {
        const int64_t ye = std::min(H, by + b), xe = std::min(W, bx + b);
        i128 sum = 0;  // at most 2^26 terms of magnitude 2^63
        for (int64_t y = by; y < ye; ++y)
          for (int64_t xx = bx; xx < xe; ++xx) sum += x.data[size_t(plane + y * W + xx)];
        const int64_t v = int64_t(std::clamp<i128>(round_shift(sum, int(s), Round::HalfUp), lo, hi));
        for (int64_t y = by; y < ye; ++y)
          for (int64_t xx = bx; xx < xe; ++xx) out.data[size_t(plane + y * W + xx)] = v;
      }
    }
  }
  return out;
}

int64_t band_lookup(int64_t v, std::span<const int64_t> edges, const std::vector<std::vector<int64_t>>& table,
                    int64_t row) {
  if (row < 0 || row >= int64_t(table.size())) condition("band_lookup", "row is not a row of the table");
  for (const auto& r : table)
    if (r.size() != edges.size() + 1)
      condition("band_lookup", "a table row does not hold one entry per band");
  const auto band = std::count_if(edges.begin(), edges.end(), [&](int64_t e) { return v >= e; });
  return table[size_t(row)][size_t(band)];
}

int64_t residual_step(int64_t pred, int64_t r, int64_t q, int64_t lo, int64_t hi) {
  if (lo >= hi) condition("residual_step", "lo is not less than hi");
  if (pred < lo || pred > hi) condition("residual_step", "pred is outside [lo, hi]");
  if (q < 1 || q > 65535) condition("residual_step", "q is not in 1..65535");
  if (!fits_i32(r)) condition("residual_step", "r does not fit i32");
  return int64_t(std::clamp<i128>(i128(pred) + i128(r) * q, lo, hi));
}

std::vector<int64_t> coding_order(const std::array<int64_t, 3>& shape, bool checkerboard, bool anchor) {
  const int64_t n = checked_elements(shape);
  if (n < 0) condition("coding_order", "the shape has an empty side or passes 2^26 elements");
  std::vector<int64_t> order;
  order.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t y = (i / shape[2]) % shape[1], x = i % shape[2];
    if (!checkerboard || ((y + x) % 2 == 0) == anchor) order.push_back(i);
  }
  return order;
}

}  // namespace onemodel::wai
