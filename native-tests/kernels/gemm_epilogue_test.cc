// The GEMM tile epilogue (GemmArgs::epilogue, graph-passes.md "Tile epilogue") on every kernel path: called
// once per tile with the tile already final (equal to the product without an epilogue), the tiles cover C
// exactly once, the tiling is the same for every thread count, the epilogue's writes land, and nothing
// outside C's window is touched. Both entry points (gemm, gemm_packed), both modes, and k = 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"

namespace onemodel {
namespace {

constexpr float kSentinel = -12345.0f;  // in the padding columns past n

struct Tile {
  int64_t row0, col0, rows, cols;
  bool operator<(const Tile& o) const {
    return std::tie(row0, col0, rows, cols) < std::tie(o.row0, o.col0, o.rows, o.cols);
  }
  bool operator==(const Tile& o) const = default;
};

// Checks each tile against the plain product, records it, then rewrites it as 2c + 1.
class RecordingEpilogue final : public GemmTileEpilogue {
 public:
  RecordingEpilogue(const std::vector<float>& expected, int64_t ldc) : expected_(expected), ldc_(ldc) {}

  void apply(float* tile, int64_t ldc, int64_t row0, int64_t col0, int64_t rows,
             int64_t cols) const override {
    bool finished = ldc == ldc_;
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        float& v = tile[i * ldc + j];
        const float want = expected_[static_cast<size_t>((row0 + i) * ldc_ + col0 + j)];
        finished = finished && std::memcmp(&v, &want, sizeof v) == 0;
        v = 2.0f * v + 1.0f;
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    all_finished_ = all_finished_ && finished;
    tiles_.push_back({row0, col0, rows, cols});
  }

  std::vector<Tile> sorted_tiles() const {
    std::vector<Tile> t = tiles_;
    std::sort(t.begin(), t.end());
    return t;
  }
  bool all_finished() const { return all_finished_; }

 private:
  const std::vector<float>& expected_;
  int64_t ldc_;
  mutable std::mutex mutex_;
  mutable std::vector<Tile> tiles_;
  mutable bool all_finished_ = true;
};

TEST(GemmEpilogue, EachFinishedTileOnceWithTheSameTilesForEveryThreadCount) {
  struct Shape {
    int64_t m, n, k;
  };
  for (KernelPath path : {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512}) {
    const KernelTable* t = kernel_table(path);
    if (t == nullptr) continue;
    for (const Shape s : {Shape{200, 300, 290}, Shape{7, 5, 3}, Shape{130, 70, 0}}) {
      std::mt19937 rng(static_cast<uint32_t>(s.m * 7 + s.n));
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
      for (float& v : a) v = d(rng);
      for (float& v : b) v = d(rng);
      const int64_t ldc = s.n + 3;
      std::vector<float> packed(t->packed_b_floats(s.k, s.n) + 1);
      t->pack_b(b.data(), s.n, 1, s.k, s.n, packed.data());
      for (bool exact : {false, true}) {
        GemmArgs args;
        args.m = s.m, args.n = s.n, args.k = s.k;
        args.a = a.data(), args.a_row = s.k;
        args.b = b.data(), args.b_row = s.n;
        args.ldc = ldc, args.exact = exact;
        std::vector<float> plain(static_cast<size_t>(s.m * ldc), kSentinel);
        args.c = plain.data();
        t->gemm(args, nullptr, ThreadContext{1});
        std::vector<Tile> first;
        for (int threads : {1, 2, 3}) {
          for (bool use_packed : {false, true}) {
            const RecordingEpilogue epilogue(plain, ldc);
            std::vector<float> c(plain.size(), kSentinel);
            GemmArgs with = args;
            with.c = c.data();
            with.epilogue = &epilogue;
            if (use_packed)
              t->gemm_packed(with, PackedB{packed.data(), s.k, s.n}, nullptr, ThreadContext{threads});
            else
              t->gemm(with, nullptr, ThreadContext{threads});
            const std::string label = std::string(t->name) + " " + std::to_string(s.m) + "x" +
                                      std::to_string(s.n) + "x" + std::to_string(s.k) +
                                      (exact ? " exact" : " fast") + " threads " + std::to_string(threads) +
                                      (use_packed ? " packed" : "");
            EXPECT_TRUE(epilogue.all_finished()) << label;
            // Every element written once by the epilogue, the padding untouched.
            std::vector<int> cover(plain.size(), 0);
            const std::vector<Tile> tiles = epilogue.sorted_tiles();
            for (const Tile& tile : tiles) {
              for (int64_t i = 0; i < tile.rows; ++i) {
                for (int64_t j = 0; j < tile.cols; ++j)
                  ++cover[static_cast<size_t>((tile.row0 + i) * ldc + tile.col0 + j)];
              }
            }
            for (int64_t i = 0; i < s.m; ++i) {
              for (int64_t j = 0; j < ldc; ++j) {
                const size_t at = static_cast<size_t>(i * ldc + j);
                const float want = j < s.n ? 2.0f * plain[at] + 1.0f : kSentinel;
                ASSERT_EQ(cover[at], j < s.n ? 1 : 0) << label << " at " << i << "," << j;
                ASSERT_EQ(std::memcmp(&c[at], &want, sizeof want), 0) << label << " at " << i << "," << j;
              }
            }
            if (first.empty()) first = tiles;
            EXPECT_EQ(tiles, first) << label;
          }
        }
        EXPECT_GE(first.size(), s.m > 100 ? 2u : 1u) << t->name;  // several tiles where the shape has them
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
