#include "golden/golden_kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/bits.h"
#include "core/sha256.h"
#include "kernels/kernel_table.h"
#include "kernels/math/golden_sweep.h"
#include "onemodel/error.h"

namespace onemodel::golden {
namespace {

uint32_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

// Mostly values in [-4, 4] with inexact decimal fractions; every 61st element a special value (NaN with
// payloads, infinities, signed zeros, subnormals, huge magnitudes) so overflow, NaN and gradual underflow all
// take part.
std::vector<float> generate(size_t count, uint64_t seed, bool specials) {
  static constexpr uint32_t kSpecial[] = {0x7FC00000, 0xFFC00001, 0x7F800000, 0xFF800000,
                                          0x00000000, 0x80000000, 0x00000001, 0x807FFFFF,
                                          0x00400000, 0x7F7FFFFF, 0x5F000000, 0x1F800000};
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t h = mix(seed * 0x9E3779B97F4A7C15ULL + i);
    if (specials && h % 61 == 0) {
      v[i] = from_bits(kSpecial[(h / 61) % std::size(kSpecial)]);
    } else {
      v[i] = static_cast<float>(static_cast<int32_t>(h % 8001) - 4000) / 1000.0f;
    }
  }
  return v;
}

const KernelTable& table_for(const std::string& name) {
  KernelPath path = best_kernel_path();
  if (!name.empty() && !parse_kernel_path(name, path)) {
    throw SessionError(SessionError::Kind::InvalidInput, "unknown kernel path '" + name + "'");
  }
  const KernelTable* t = kernel_table(path);
  if (!t)
    throw SessionError(SessionError::Kind::Unsupported, "kernel path '" + name + "' is not available here");
  return *t;
}

struct Gemm {
  int64_t m, n, k;
  bool trans_a, trans_b;
};

void run_gemm(const KernelTable& kt, const ThreadContext& threads, const Gemm& g, uint64_t seed,
              Sha256& hash) {
  std::vector<float> a = generate(static_cast<size_t>(g.m * g.k), seed, true);
  std::vector<float> b = generate(static_cast<size_t>(g.k * g.n), seed + 1, true);
  std::vector<float> c(static_cast<size_t>(g.m * g.n), -1.0f);
  GemmArgs args;
  args.m = g.m;
  args.n = g.n;
  args.k = g.k;
  args.a = a.data();
  args.a_row = g.trans_a ? 1 : g.k;
  args.a_col = g.trans_a ? g.m : 1;
  args.b = b.data();
  args.b_row = g.trans_b ? 1 : g.n;
  args.b_col = g.trans_b ? g.k : 1;
  args.c = c.data();
  args.ldc = g.n;
  args.exact = true;
  std::vector<float> scratch(kt.gemm_scratch_floats(args, threads));
  kt.gemm(args, scratch.data(), threads);
  int64_t dims[3] = {g.m, g.n, g.k};
  hash.update(dims, sizeof dims);
  hash.update(c.data(), c.size() * sizeof(float));
}

std::string line(const std::string& name, Sha256& hash) {
  return name + " " + hash.hex();
}

}  // namespace

std::vector<std::string> kernel_lines(const std::string& kernels, int threads) {
  const KernelTable& kt = table_for(kernels);
  ThreadContext tc{threads <= 0 ? hardware_threads() : threads};
  std::vector<std::string> lines;

  // Every value 0..70 of each dimension, the other two from fixed integer sequences in 0..70.
  const char* sweep_names[3] = {"gemm/sweep-m", "gemm/sweep-n", "gemm/sweep-k"};
  for (int axis = 0; axis < 3; ++axis) {
    Sha256 hash;
    for (int64_t s = 0; s <= 70; ++s) {
      int64_t p = (s * 37 + 11) % 71, q = (s * 53 + 29) % 71;
      Gemm g = axis == 0   ? Gemm{s, p, q, false, false}
               : axis == 1 ? Gemm{p, s, q, false, false}
                           : Gemm{p, q, s, false, false};
      g.trans_a = s % 3 == 1;
      g.trans_b = s % 4 == 2;
      run_gemm(kt, tc, g, static_cast<uint64_t>(axis * 1000 + s), hash);
    }
    lines.push_back(line(sweep_names[axis], hash));
  }
  {
    Sha256 hash;
    const Gemm large[] = {{129, 257, 300, false, false},
                          {200, 100, 513, true, false},
                          {1, 1000, 300, false, true},
                          {300, 1, 300, false, false},
                          {97, 130, 1025, true, true}};
    uint64_t seed = 5000;
    for (const Gemm& g : large) run_gemm(kt, tc, g, seed++, hash);
    lines.push_back(line("gemm/large", hash));
  }

  const std::vector<float> sweep = golden::transcendental_sweep_inputs();
  const std::pair<UnaryFn, const char*> functions[] = {
      {UnaryFn::Exp, "exp"},           {UnaryFn::Log, "log"},         {UnaryFn::Tanh, "tanh"},
      {UnaryFn::Erf, "erf"},           {UnaryFn::Sigmoid, "sigmoid"}, {UnaryFn::GeluErf, "gelu-erf"},
      {UnaryFn::GeluTanh, "gelu-tanh"}};
  std::vector<float> out(sweep.size());
  for (const auto& [fn, name] : functions) {
    kt.unary(fn, true, sweep.data(), out.data(), sweep.size());
    Sha256 hash;
    hash.update(out.data(), out.size() * sizeof(float));
    lines.push_back(line(std::string("transcendental/") + name, hash));
  }

  {
    Sha256 hash;
    for (size_t n = 0; n <= 70; ++n) {
      const size_t rows = 3;
      std::vector<float> x = generate(rows * n, 9000 + n, n % 5 == 4);
      std::vector<float> y(x.size());
      kt.softmax_rows(true, x.data(), y.data(), rows, n);
      hash.update(y.data(), y.size() * sizeof(float));
    }
    for (size_t n : {1000u, 4099u}) {
      std::vector<float> x = generate(2 * n, 9100 + n, false);
      for (float& v : x) v *= 8.0f;
      std::vector<float> y(x.size());
      kt.softmax_rows(true, x.data(), y.data(), 2, n);
      hash.update(y.data(), y.size() * sizeof(float));
    }
    // Rows that are all -inf, hold +inf, or hold NaN.
    const float inf = from_bits(0x7F800000), nan = from_bits(0x7FC00000);
    std::vector<float> special = {-inf, -inf, -inf, 1.0f, inf, 2.0f, 0.5f, nan, 3.0f};
    std::vector<float> y(special.size());
    kt.softmax_rows(true, special.data(), y.data(), 3, 3);
    hash.update(y.data(), y.size() * sizeof(float));
    lines.push_back(line("softmax/rows", hash));
  }
  return lines;
}

}  // namespace onemodel::golden
