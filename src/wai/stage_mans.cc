// E8 mans_decode (wai-ops/1 §5E): a two-state masked table-ANS decode that reads a backward 64-bit bit window
// from the end of the stream. Both modes, `sgm` (latents, tables built from probability rows) and `fac`
// (hyper-latents, tables built from cumulative counts), share the window and the four-position grouping.
#include <array>
#include <string>

#include "onemodel/wai_stage.h"

namespace onemodel::wai {
namespace {

constexpr int64_t kMaxPositions = int64_t(1) << 26;

[[noreturn]] void condition(const std::string& what) {
  throw StageError(Refusal::ModelMismatch, -1, "mans_decode: " + what);
}

// wrap16 of §2.
int64_t wrap16(int64_t a) {
  return ((a + 32768) & 0xFFFF) - 32768;
}

// A table entry: nb * 2^24 + base * 2^16 + symbol bits, from the state `next` the slot leads to (1..511).
uint32_t entry(uint32_t next, uint32_t symbol_bits) {
  uint32_t nb = 0;
  while ((next << nb) < 256) ++nb;
  return (nb << 24) | (((next << nb) ^ 256u) << 16) | symbol_bits;
}

// The window over M = 8 zero bytes followed by the stream. Every refusal is stream_exhausted at `at`, the
// position the decoder has set for the step being made (§14.1).
class Window {
 public:
  explicit Window(std::span<const uint8_t> stream) : stream_(stream), p_(stream.size()) {
    h_ = le64(p_);
    if (h_ == 0) refuse("the stream ends in eight zero bytes (no sentinel bit)");
    b_ = 63 - __builtin_clzll(h_);
    h_ -= uint64_t(1) << b_;
    state_[0] = read(8);
    state_[1] = read(8);
    flush();
  }

  int64_t at = 0;

  uint32_t read(int k) {
    if (k > b_) refuse("a read needs more bits than the window holds");
    b_ -= k;
    const uint64_t r = h_ >> b_;
    h_ -= r << b_;
    return uint32_t(r);
  }

  void flush() {
    const uint64_t d = uint64_t(7 ^ (b_ / 8));
    if (d > p_) refuse("a flush needs bytes before the start of the stream");
    p_ -= d;
    b_ = 56 + b_ % 8;
    h_ = le64(p_) & ((uint64_t(1) << b_) - 1);
  }

  // in(which, i) with the slot's table entry chosen by `entry_of(state)`; returns the entry.
  template <class EntryOf>
  uint32_t step(int which, EntryOf entry_of) {
    const uint32_t t = entry_of(state_[which]);
    state_[which] = ((t >> 16) | read(int(t >> 24))) & 0xFF;
    return t;
  }

 private:
  [[noreturn]] void refuse(const char* why) const {
    throw StageError(Refusal::StreamExhausted, at, std::string("mans_decode: ") + why);
  }
  uint64_t le64(size_t i) const {
    uint64_t v = 0;
    for (size_t k = 0; k < 8; ++k) {
      const size_t j = i + k;  // index into M
      if (j >= 8) v |= uint64_t(stream_[j - 8]) << (8 * k);
    }
    return v;
  }

  std::span<const uint8_t> stream_;
  size_t p_;
  uint64_t h_ = 0;
  int b_ = 0;
  std::array<uint32_t, 2> state_{};
};

// The four-position grouping both modes share, for one span or row of `n` positions numbered from `first`.
// `in(i, which)` and `out(i)` decode position i; sgm flushes after a group's in steps, fac after its out
// steps; the remainders and the row's end follow each mode's own rule.
enum class Mode { Sgm, Fac };
template <class In, class Out>
void decode_run(Window& w, Mode mode, int64_t first, int64_t n, In in, Out out) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int j = 0; j < 4; ++j) w.at = first + i + j, in(i + j, j % 2);
    if (mode == Mode::Sgm) w.at = first + i + 3, w.flush();
    for (int j = 0; j < 4; ++j) w.at = first + i + j, out(i + j);
    if (mode == Mode::Fac) w.at = first + i + 3, w.flush();
  }
  if (n - i >= 2) {
    for (int j = 0; j < 2; ++j) w.at = first + i + j, in(i + j, j), out(i + j);
    if (mode == Mode::Sgm) w.flush();
    i += 2;
  }
  if (n - i == 1) {
    w.at = first + i, in(i, 0), out(i);
    if (mode == Mode::Sgm) w.flush();
  }
  if (mode == Mode::Fac && n > 0) w.at = first + n - 1, w.flush();
}

// The 256-entry table T_y of one probability row (Building the latent tables).
std::array<uint32_t, 256> latent_table(const std::vector<int64_t>& P) {
  std::array<uint32_t, 256> table{};
  int64_t C = 0;
  for (size_t k = 0; k < P.size() && C < 256; ++k) {
    const int64_t C1 = C + P[k];
    const int64_t F = C - C / 2, F1 = C1 - C1 / 2, G = C / 2 + 128, G1 = C1 / 2 + 128;
    const int64_t sym = k % 2 == 0 ? int64_t(k / 2) : -int64_t((k + 1) / 2);
    const uint32_t bits = uint32_t(sym) & 0xFFFF;
    for (int64_t u = F; u < F1; ++u) table[size_t(u)] = entry(uint32_t(P[k] + (u - F)), bits);
    for (int64_t u = G; u < G1; ++u) table[size_t(u)] = entry(uint32_t(P[k] + (F1 - F) + (u - G)), bits);
    C = C1;
  }
  return table;
}

}  // namespace

std::vector<std::vector<int64_t>> mans_decode_sgm(std::span<const uint8_t> memory,
                                                  const std::vector<std::vector<int64_t>>& pmf,
                                                  std::span<const int64_t> bounds,
                                                  const std::vector<MansSpan>& spans) {
  for (const auto& row : pmf) {
    if (row.empty() || row.size() != pmf[0].size())
      condition("the pmf rows do not share one width of at least 1");
    int64_t sum = 0;
    for (int64_t p : row) {
      if (p < 0 || p > 256) condition("a pmf entry is negative or above 256");
      sum += p;
    }
    if (sum != 256) condition("a pmf row does not sum to 256");
  }
  for (int64_t beta : bounds)
    if (beta < 0 || beta > 255) condition("a bound is not in 0..255");
  int64_t total = 0;
  for (const MansSpan& s : spans) {
    if (s.mask.size() != s.sigma.size()) condition("a span's mask and distributions differ in length");
    for (int64_t sigma : s.sigma)
      if (sigma < 0 || sigma >= int64_t(pmf.size()) || sigma >= int64_t(bounds.size()))
        condition("a distribution names no table row or no bound");
    total += int64_t(s.mask.size());
    if (total > kMaxPositions) condition("the spans pass 2^26 positions");
  }
  std::vector<std::array<uint32_t, 256>> tables;
  for (const auto& row : pmf) tables.push_back(latent_table(row));

  Window w(memory);
  std::vector<std::vector<int64_t>> result;
  int64_t first = 0;
  for (const MansSpan& s : spans) {
    std::vector<int64_t> sym(s.mask.size(), 0);
    auto in = [&](int64_t i, int which) {
      if (!s.mask[size_t(i)]) return;
      const auto& table = tables[size_t(s.sigma[size_t(i)])];
      sym[size_t(i)] = wrap16(w.step(which, [&](uint32_t st) { return table[st]; }) & 0xFFFF);
    };
    auto out = [&](int64_t i) {
      if (!s.mask[size_t(i)]) return;
      const int64_t beta = bounds[size_t(s.sigma[size_t(i)])];
      if (sym[size_t(i)] + beta != 0) return;
      const uint32_t v = w.read(w.read(1) == 1 ? 3 : 16);
      const int64_t half = v / 2;
      sym[size_t(i)] = wrap16(v % 2 == 0 ? half + beta : -half - beta);
      w.flush();
    };
    decode_run(w, Mode::Sgm, first, int64_t(s.mask.size()), in, out);
    first += int64_t(s.mask.size());
    result.push_back(std::move(sym));
  }
  return result;
}

std::vector<std::vector<int64_t>> mans_decode_fac(std::span<const uint8_t> memory,
                                                  const std::vector<std::vector<int64_t>>& rows,
                                                  std::span<const int64_t> lengths) {
  if (rows.size() != lengths.size()) condition("the rows and their lengths differ in number");
  int64_t total = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != 63) condition("a row does not hold 63 cumulative counts");
    for (size_t a = 0; a < 63; ++a)
      if (rows[r][a] < (a == 0 ? 0 : rows[r][a - 1]) || rows[r][a] > 255)
        condition("a row's counts are not non-decreasing within 0..255");
    if (lengths[r] < 0) condition("a row length is negative");
    total += lengths[r];
    if (total > kMaxPositions) condition("the rows pass 2^26 symbols");
  }
  // Zp of the preprocessing table, for i from 511 down to 1.
  std::array<uint32_t, 512> zp{};
  uint32_t nb = 0;
  for (uint32_t i = 511; i >= 1; --i) {
    if ((i << nb) < 256) ++nb;
    zp[i] = ((i << nb) ^ 256u) + 256 * nb;
  }
  std::array<uint32_t, 256> table{};

  Window w(memory);
  std::vector<std::vector<int64_t>> result;
  int64_t first = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    int64_t prev = 0;
    for (uint32_t a = 0; a < 63; ++a) {
      const int64_t c = rows[r][a], k = c - prev;
      for (int64_t j = prev; j < c; ++j) table[size_t(j)] = (zp[size_t(k + j - prev)] << 16) + a;
      prev = c;
    }
    table[255] = (zp[1] << 16) + 63;
    std::vector<int64_t> sym(size_t(lengths[r]), 0);
    auto in = [&](int64_t i, int which) {
      sym[size_t(i)] = w.step(which, [&](uint32_t st) { return table[st]; }) & 0xFF;
    };
    auto out = [&](int64_t i) {
      if (sym[size_t(i)] == 63) sym[size_t(i)] = w.read(6);
    };
    decode_run(w, Mode::Fac, first, lengths[r], in, out);
    first += lengths[r];
    result.push_back(std::move(sym));
  }
  return result;
}

}  // namespace onemodel::wai
