// NonMaxSuppression, RoiAlign, GridSample and MaxUnpool beyond the ONNX backend cases: NonMaxSuppression
// against a plain greedy reference on random boxes, the same bits in both modes and at 1 and 2 threads;
// MaxUnpool with a run-time output_shape and out-of-range indices; refusals of bad attributes and inputs,
// and of exact mode for the fast-only RoiAlign and GridSample.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

ModelBuilder nms_model(int64_t center = 0) {
  ModelBuilder m(11);
  m.input("boxes", DType::F32, {-1, -1, 4})
      .input("scores", DType::F32, {-1, -1, -1})
      .input("max", DType::I64, {1})
      .input("iou", DType::F32, {1})
      .input("score", DType::F32, {1})
      .output("selected", DType::I64)
      .node("NonMaxSuppression", {"boxes", "scores", "max", "iou", "score"}, {"selected"},
            {Attr::i("center_point_box", center)}, "nms");
  return m;
}

std::vector<NamedTensor> nms_feeds(const std::vector<float>& boxes, const std::vector<float>& scores,
                                   int64_t batches, int64_t classes, int64_t n, int64_t max, float iou,
                                   float score) {
  return {{"boxes", Tensor::from<float>(boxes, {batches, n, 4})},
          {"scores", Tensor::from<float>(scores, {batches, classes, n})},
          {"max", Tensor::from<int64_t>(std::vector<int64_t>{max}, {1})},
          {"iou", Tensor::from<float>(std::vector<float>{iou}, {1})},
          {"score", Tensor::from<float>(std::vector<float>{score}, {1})}};
}

// Greedy selection written from the operator text, in double: intersection over union of corner boxes.
std::vector<int64_t> nms_reference(const std::vector<float>& boxes, const std::vector<float>& scores,
                                   int64_t batches, int64_t classes, int64_t n, int64_t max, float iou,
                                   float score) {
  std::vector<int64_t> out;
  auto area_iou = [&](const float* a, const float* b) {
    const double ay0 = std::min(a[0], a[2]), ay1 = std::max(a[0], a[2]), ax0 = std::min(a[1], a[3]),
                 ax1 = std::max(a[1], a[3]);
    const double by0 = std::min(b[0], b[2]), by1 = std::max(b[0], b[2]), bx0 = std::min(b[1], b[3]),
                 bx1 = std::max(b[1], b[3]);
    const double h = std::min(ay1, by1) - std::max(ay0, by0), w = std::min(ax1, bx1) - std::max(ax0, bx0);
    if (h <= 0 || w <= 0) return 0.0;
    const double inter = h * w;
    return inter / ((ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - inter);
  };
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores.data() + (b * classes + c) * n;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < n; ++i) {
        if (s[i] > score) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return s[i] > s[j]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max) break;
        bool drop = false;
        for (int64_t k : kept)
          drop = drop || area_iou(&boxes[(b * n + k) * 4], &boxes[(b * n + i) * 4]) > iou;
        if (drop) continue;
        kept.push_back(i);
        out.insert(out.end(), {b, c, i});
      }
    }
  }
  return out;
}

TEST(NonMaxSuppressionOp, MatchesTheGreedyReferenceInBothModesAndThreadCounts) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(0.0f, 10.0f), size(0.5f, 4.0f), prob(0.0f, 1.0f);
  const int64_t batches = 2, classes = 3, n = 40;
  std::vector<float> boxes, scores;
  for (int64_t i = 0; i < batches * n; ++i) {
    const float y = pos(rng), x = pos(rng), h = size(rng), w = size(rng);
    // Half the boxes give their corners in the other order.
    if (i % 2 == 0) {
      boxes.insert(boxes.end(), {y, x, y + h, x + w});
    } else {
      boxes.insert(boxes.end(), {y + h, x + w, y, x});
    }
  }
  for (int64_t i = 0; i < batches * classes * n; ++i) scores.push_back(std::round(prob(rng) * 20.0f) / 20.0f);
  const auto feeds = nms_feeds(boxes, scores, batches, classes, n, 7, 0.3f, 0.2f);
  const std::vector<int64_t> want = nms_reference(boxes, scores, batches, classes, n, 7, 0.3f, 0.2f);
  ASSERT_GT(want.size(), 30u);
  const Tensor first = nms_model().run(feeds, options(ExecutionMode::Fast, {}, 1))[0];
  EXPECT_EQ(elements_of<int64_t>(first), want);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (int threads : {1, 2}) {
      EXPECT_TRUE(same_bytes(nms_model().run(feeds, options(mode, {}, threads))[0], first));
    }
  }
}

TEST(NonMaxSuppressionOp, CenterFormatMatchesTheCornerFormat) {
  const std::vector<float> corners = {0, 0, 2, 2, 0.5f, 0.5f, 2.5f, 2.5f, 5, 5, 6, 6};
  std::vector<float> centered;
  for (size_t i = 0; i < corners.size(); i += 4) {
    // [x_center, y_center, width, height] of [y1, x1, y2, x2].
    centered.insert(centered.end(), {(corners[i + 1] + corners[i + 3]) / 2, (corners[i] + corners[i + 2]) / 2,
                                     corners[i + 3] - corners[i + 1], corners[i + 2] - corners[i]});
  }
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f};
  // Boxes 0 and 1 overlap with IoU 2.25 / 5.75 = 0.39.
  const auto a = nms_model(0).run(nms_feeds(corners, scores, 1, 1, 3, 10, 0.3f, 0.0f))[0];
  const auto b = nms_model(1).run(nms_feeds(centered, scores, 1, 1, 3, 10, 0.3f, 0.0f))[0];
  EXPECT_EQ(elements_of<int64_t>(a), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
  EXPECT_TRUE(same_bytes(a, b));
}

TEST(NonMaxSuppressionOp, WithoutThresholdsEveryScoreCountsAndAnyOverlapSuppresses) {
  ModelBuilder m(11);
  m.input("boxes", DType::F32, {1, 3, 4})
      .input("scores", DType::F32, {1, 1, 3})
      .input("max", DType::I64, {1})
      .output("selected", DType::I64)
      .node("NonMaxSuppression", {"boxes", "scores", "max"}, {"selected"});
  // Box 1 touches box 0 with a sliver of overlap; box 2 is apart. Scores are negative.
  const auto y =
      m.run({{"boxes",
              Tensor::from<float>(std::vector<float>{0, 0, 1, 1, 0.99f, 0.99f, 2, 2, 5, 5, 6, 6}, {1, 3, 4})},
             {"scores", Tensor::from<float>(std::vector<float>{-1.0f, -0.5f, -3.0f}, {1, 1, 3})},
             {"max", Tensor::from<int64_t>(std::vector<int64_t>{5}, {1})}})[0];
  EXPECT_EQ(elements_of<int64_t>(y), (std::vector<int64_t>{0, 0, 1, 0, 0, 2}));
}

TEST(NonMaxSuppressionOp, RefusesBadInputs) {
  std::string message, node;
  const std::vector<float> box = {0, 0, 1, 1};
  EXPECT_EQ(
      error_kind([&] { nms_model().run(nms_feeds(box, {0.5f}, 1, 1, 1, 1, 1.5f, 0.0f)); }, &message, &node),
      Kind::InvalidInput);
  EXPECT_NE(message.find("iou_threshold"), std::string::npos) << message;
  EXPECT_EQ(node, "nms");
  // Scores for two boxes where boxes holds one.
  EXPECT_EQ(error_kind([&] {
              nms_model().run(nms_feeds(box, {0.5f, 0.4f}, 1, 1, 2, 1, 0.5f, 0.0f));
            }),
            Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { nms_model(2).session(); }), Kind::InvalidModel);
}

TEST(MaxUnpoolOp, RebasesIndicesIntoARunTimeOutputShape) {
  ModelBuilder m(11);
  m.input("x", DType::F32, {1, 1, 2, 2})
      .input("i", DType::I64, {1, 1, 2, 2})
      .input("shape", DType::I64, {4})
      .output("y", DType::F32)
      .node("MaxUnpool", {"x", "i", "shape"}, {"y"},
            {Attr::ints("kernel_shape", {2, 2}), Attr::ints("strides", {2, 2})}, "unpool");
  const Tensor x = Tensor::from<float>(std::vector<float>{1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor i = Tensor::from<int64_t>(std::vector<int64_t>{0, 3, 12, 15}, {1, 1, 2, 2});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto y =
        m.run({{"x", x}, {"i", i}, {"shape", Tensor::from<int64_t>(std::vector<int64_t>{1, 1, 5, 4}, {4})}},
              options(mode))[0];
    ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 5, 4}));
    std::vector<float> want(20, 0.0f);
    want[0] = 1, want[3] = 2, want[12] = 3, want[15] = 4;  // rows 0 and 3 of the 4x4 shape keep their places
    EXPECT_EQ(y.to_vector<float>(), want);
  }
  // An output_shape narrower than a recorded position, and an index beyond the implied 4x4 shape.
  std::string message;
  EXPECT_EQ(error_kind(
                [&] {
                  m.run({{"x", x},
                         {"i", i},
                         {"shape", Tensor::from<int64_t>(std::vector<int64_t>{1, 1, 4, 3}, {4})}});
                },
                &message),
            Kind::InvalidInput);
  EXPECT_NE(message.find("outside output_shape"), std::string::npos) << message;
  EXPECT_EQ(error_kind(
                [&] {
                  m.run({{"x", x},
                         {"i", Tensor::from<int64_t>(std::vector<int64_t>{0, 3, 12, 16}, {1, 1, 2, 2})},
                         {"shape", Tensor::from<int64_t>(std::vector<int64_t>{1, 1, 5, 5}, {4})}});
                },
                &message),
            Kind::InvalidInput);
  EXPECT_NE(message.find("index 16"), std::string::npos) << message;
}

TEST(MaxUnpoolOp, RefusesBadAttributes) {
  for (const std::vector<Attr>& attrs :
       {std::vector<Attr>{}, std::vector<Attr>{Attr::ints("kernel_shape", {2, 0})},
        std::vector<Attr>{Attr::ints("kernel_shape", {2, 2}), Attr::ints("pads", {1})},
        std::vector<Attr>{Attr::ints("kernel_shape", {2, 2}), Attr::ints("strides", {2, -1})}}) {
    ModelBuilder m(11);
    m.input("x", DType::F32, {1, 1, 2, 2}).input("i", DType::I64, {1, 1, 2, 2}).output("y", DType::F32);
    m.node("MaxUnpool", {"x", "i"}, {"y"}, attrs);
    EXPECT_EQ(error_kind([&] { m.session(); }), Kind::InvalidModel);
  }
}

ModelBuilder roi_align_model(std::vector<Attr> attrs = {}) {
  ModelBuilder m(16);
  m.input("x", DType::F32, {2, 1, 4, 4})
      .input("rois", DType::F32, {1, 4})
      .input("b", DType::I64, {1})
      .output("y", DType::F32)
      .node("RoiAlign", {"x", "rois", "b"}, {"y"}, attrs, "roi");
  return m;
}

TEST(RoiAlignOp, AveragesAndTakesMaxima) {
  std::vector<float> x(32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const auto feeds = [&](int64_t b) {
    return std::vector<NamedTensor>{{"x", Tensor::from<float>(x, {2, 1, 4, 4})},
                                    {"rois", Tensor::from<float>(std::vector<float>{0, 0, 4, 4}, {1, 4})},
                                    {"b", Tensor::from<int64_t>(std::vector<int64_t>{b}, {1})}};
  };
  // One bin over the whole second image, one sample at its centre (2, 2) with half_pixel: the mean of
  // pixels (1..2, 1..2) of image 1.
  const auto avg = roi_align_model({Attr::i("sampling_ratio", 1)}).run(feeds(1))[0].to_vector<float>();
  EXPECT_FLOAT_EQ(avg[0], 16.0f + (5 + 6 + 9 + 10) / 4.0f);
  // Max mode: the largest of the four weighted neighbours, 0.25 * 26.
  const auto max = roi_align_model({Attr::i("sampling_ratio", 1), Attr::s("mode", "max")}).run(feeds(1))[0];
  EXPECT_FLOAT_EQ(max.to_vector<float>()[0], 0.25f * 26.0f);
  // A region with a NaN corner samples nothing.
  auto nan_feeds = feeds(0);
  nan_feeds[1].tensor = Tensor::from<float>(std::vector<float>{0, std::nanf(""), 4, 4}, {1, 4});
  EXPECT_EQ(roi_align_model({Attr::i("sampling_ratio", 2)}).run(nan_feeds)[0].to_vector<float>(),
            std::vector<float>{0.0f});
  std::string message, node;
  EXPECT_EQ(error_kind([&] { roi_align_model().run(feeds(2)); }, &message, &node), Kind::InvalidInput);
  EXPECT_NE(message.find("batch index 2"), std::string::npos) << message;
  EXPECT_EQ(node, "roi");
  EXPECT_EQ(error_kind([&] { roi_align_model().session(options(ExecutionMode::Exact)); }, &message),
            Kind::ExactModeUnavailable);
  EXPECT_NE(message.find("RoiAlign"), std::string::npos) << message;
  EXPECT_EQ(error_kind([&] { roi_align_model({Attr::s("mode", "median")}).session(); }), Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] { roi_align_model({Attr::i("output_height", 0)}).session(); }),
            Kind::InvalidModel);
}

ModelBuilder grid_sample_model(std::vector<Attr> attrs, std::vector<int64_t> x_dims = {1, 1, 2, 3}) {
  ModelBuilder m(16);
  m.input("x", DType::F32, x_dims).input("grid", DType::F32, {1, 1, 4, 2}).output("y", DType::F32);
  m.node("GridSample", {"x", "grid"}, {"y"}, std::move(attrs), "gs");
  return m;
}

TEST(GridSampleOp, SamplesCornersAndPadsOutside) {
  const Tensor x = Tensor::from<float>(std::vector<float>{1, 2, 3, 4, 5, 6}, {1, 1, 2, 3});
  // The four corners with align_corners, then one point beyond the right edge.
  const Tensor grid = Tensor::from<float>(std::vector<float>{-1, -1, 1, 1, 0, 0, 3, 0}, {1, 1, 4, 2});
  for (const char* mode : {"nearest", "bilinear", "bicubic"}) {
    const auto zeros = grid_sample_model({Attr::s("mode", mode), Attr::i("align_corners", 1)})
                           .run({{"x", x}, {"grid", grid}})[0]
                           .to_vector<float>();
    EXPECT_FLOAT_EQ(zeros[0], 1.0f) << mode;
    EXPECT_FLOAT_EQ(zeros[1], 6.0f) << mode;
    const auto border = grid_sample_model({Attr::s("mode", mode), Attr::i("align_corners", 1),
                                           Attr::s("padding_mode", "border")})
                            .run({{"x", x}, {"grid", grid}})[0]
                            .to_vector<float>();
    // x = 3 lies beyond the right edge: border repeats the edge column at y = 0.5, between its rows (nearest
    // rounds 0.5 to the even row 0).
    EXPECT_FLOAT_EQ(border[3], std::string(mode) == "nearest" ? 3.0f : 4.5f) << mode;
  }
  std::string message;
  EXPECT_EQ(error_kind([&] { grid_sample_model({}).session(options(ExecutionMode::Exact)); }, &message),
            Kind::ExactModeUnavailable);
  EXPECT_NE(message.find("GridSample"), std::string::npos) << message;
  EXPECT_EQ(error_kind([&] { grid_sample_model({Attr::s("mode", "area")}).session(); }), Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] { grid_sample_model({Attr::s("padding_mode", "wrap")}).session(); }),
            Kind::InvalidModel);
  const Tensor volume = Tensor::from<float>(std::vector<float>(6, 1.0f), {1, 1, 2, 3, 1});
  EXPECT_EQ(error_kind([&] {
              grid_sample_model({}, {1, 1, 2, 3, 1}).run({{"x", volume}, {"grid", grid}});
            }),
            Kind::Unsupported);
}

}  // namespace
}  // namespace onemodel::test
