// Slice, Expand, Tile, Pad, ConstantOfShape, Range, Split, Size, Dropout, GatherElements, GatherND,
// ScatterND, Trilu, OneHot, NonZero and TopK through Session, against
// expectations worked out here from ops-shape-indexing.md, plus their ONNX backend node cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

Tensor bool_scalar(bool v) {
  Tensor t(DType::Bool, {});
  *static_cast<uint8_t*>(t.raw()) = v ? 1 : 0;
  return t;
}

Tensor i64s(const std::vector<int64_t>& v) {
  return Tensor::from<int64_t>(v, {static_cast<int64_t>(v.size())});
}

// --- Slice

std::vector<float> slice_1d(int64_t n, int64_t start, int64_t end, int64_t step) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {n}).output("y", DType::F32);
  m.initializer("s", i64s({start})).initializer("e", i64s({end})).initializer("a", i64s({0}));
  m.initializer("p", i64s({step}));
  m.node("Slice", {"x", "s", "e", "a", "p"}, {"y"});
  return m.run({{"x", Tensor::from<float>(iota(static_cast<size_t>(n)), {n})}})[0].to_vector<float>();
}

TEST(Shape2Ops, SliceClampsAndCounts) {
  using V = std::vector<float>;
  EXPECT_EQ(slice_1d(5, -100, 3, 1), (V{0, 1, 2}));
  EXPECT_EQ(slice_1d(5, 1, 1000, 2), (V{1, 3}));
  EXPECT_EQ(slice_1d(5, -1, kI64Min, -2), (V{4, 2, 0}));
  EXPECT_EQ(slice_1d(5, 3, 1, 1), V{});
  EXPECT_EQ(slice_1d(5, 1, 1000, kI64Max), V{1});      // a huge step selects one element
  EXPECT_EQ(slice_1d(5, 10, 0, -1), (V{4, 3, 2, 1}));  // start clamps to n-1
  EXPECT_EQ(slice_1d(0, 0, 5, 1), V{});
  EXPECT_EQ(slice_1d(0, 0, -5, -1), V{});
}

TEST(Shape2Ops, SliceEndSentinelsWithNegativeStepReachTheFront) {
  using V = std::vector<float>;
  EXPECT_EQ(slice_1d(5, kI64Max, kI32Max, -1), (V{4, 3, 2, 1, 0}));
  EXPECT_EQ(slice_1d(5, kI64Max, kI64Max, -1), (V{4, 3, 2, 1, 0}));
  EXPECT_EQ(slice_1d(5, kI64Max, 100, -1), V{});  // an ordinary large end clamps to n-1
}

TEST(Shape2Ops, SliceRejectsZeroStepAndRepeatedAxes) {
  EXPECT_EQ(error_kind([] { slice_1d(5, 0, 5, 0); }), Kind::InvalidInput);
  ModelBuilder m(13);
  m.input("x", DType::F32, {2, 2}).output("y", DType::F32);
  m.initializer("s", i64s({0, 0})).initializer("e", i64s({1, 1})).initializer("a", i64s({1, -1}));
  m.node("Slice", {"x", "s", "e", "a"}, {"y"});
  EXPECT_EQ(error_kind([&] { m.run({{"x", Tensor::from<float>(iota(4), {2, 2})}}); }), Kind::InvalidInput);
}

TEST(Shape2Ops, SliceOfAComputedWindowIsShapedEveryRunAndKeepsNanBits) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {2, 3}).input("s", DType::I32, {1}).output("y", DType::F32);
  m.initializer("e", Tensor::from<int32_t>({3}, {1})).initializer("a", Tensor::from<int32_t>({1}, {1}));
  m.node("Slice", {"x", "s", "e", "a"}, {"y"});
  Session s = m.session(options(ExecutionMode::Exact));
  const float payload_nan = __builtin_bit_cast(float, uint32_t{0xFFC00123u});
  const Tensor x = Tensor::from<float>({0, -0.0f, payload_nan, 3, 4, 5}, {2, 3});
  for (int32_t start : {1, 2}) {
    const Tensor y = s.run({{"x", x}, {"s", Tensor::from<int32_t>({start}, {1})}})[0];
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3 - start}));
    if (start == 1) {
      EXPECT_EQ(bits_of(y.data<float>()[0]), 0x80000000u);
      EXPECT_EQ(bits_of(y.data<float>()[1]), 0xFFC00123u);
    }
  }
}

// --- Expand and Tile

TEST(Shape2Ops, ExpandBroadcastsBothWays) {
  ModelBuilder m(13);
  m.input("x", DType::I32, {3, 1}).output("y", DType::I32);
  m.initializer("s", i64s({2, 1, 4}));
  m.node("Expand", {"x", "s"}, {"y"});
  const Tensor y = m.run({{"x", Tensor::from<int32_t>({7, 8, 9}, {3, 1})}})[0];
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{2, 3, 4}));  // the input's 3 exceeds the shape's 1
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(y.data<int32_t>()[i], 7 + (i / 4) % 3);
}

TEST(Shape2Ops, TileRepeatsAndZeroEmpties) {
  ModelBuilder m(13);
  m.input("x", DType::U8, {2, 2}).output("y", DType::U8);
  m.initializer("r", i64s({2, 3}));
  m.node("Tile", {"x", "r"}, {"y"});
  const Tensor y = m.run({{"x", Tensor::from<uint8_t>({1, 2, 3, 4}, {2, 2})}})[0];
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{4, 6}));
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 6; ++c) EXPECT_EQ(y.data<uint8_t>()[r * 6 + c], 1 + (r % 2) * 2 + c % 2);
  }
  ModelBuilder z(13);
  z.input("x", DType::F32, {2, 2}).output("y", DType::F32);
  z.initializer("r", i64s({0, 3}));
  z.node("Tile", {"x", "r"}, {"y"});
  EXPECT_EQ(z.run({{"x", Tensor::from<float>(iota(4), {2, 2})}})[0].shape(), (std::vector<int64_t>{0, 6}));
}

// --- Pad

Tensor pad_1d(const std::vector<float>& x, std::string_view mode, int64_t before, int64_t after,
              int opset = 19) {
  ModelBuilder m(opset);
  const auto n = static_cast<int64_t>(x.size());
  m.input("x", DType::F32, {n}).output("y", DType::F32);
  m.initializer("p", i64s({before, after})).initializer("v", Tensor::from<float>({9.5f}, {}));
  m.node("Pad", {"x", "p", "v"}, {"y"}, {Attr::s("mode", mode)});
  return m.run({{"x", Tensor::from<float>(x, {n})}})[0];
}

TEST(Shape2Ops, PadModes) {
  using V = std::vector<float>;
  EXPECT_EQ(pad_1d({1, 2, 3}, "constant", 2, 1).to_vector<float>(), (V{9.5f, 9.5f, 1, 2, 3, 9.5f}));
  EXPECT_EQ(pad_1d({1, 2, 3}, "edge", 2, 2).to_vector<float>(), (V{1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(pad_1d({1, 2, 3}, "reflect", 2, 2).to_vector<float>(), (V{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(pad_1d({1, 2, 3}, "wrap", 2, 4).to_vector<float>(), (V{2, 3, 1, 2, 3, 1, 2, 3, 1}));
  EXPECT_EQ(pad_1d({1, 2, 3}, "constant", -1, -1).to_vector<float>(), (V{2}));  // negative pads crop
  EXPECT_EQ(pad_1d({}, "constant", 1, 1).to_vector<float>(), (V{9.5f, 9.5f}));
}

TEST(Shape2Ops, PadReflectContinuesPeriodically) {
  using V = std::vector<float>;
  // Period 2*(3-1) = 4: ... 2 3 2 [1 2 3] 2 1 2 3 2 1
  EXPECT_EQ(pad_1d({1, 2, 3}, "reflect", 3, 6).to_vector<float>(), (V{2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(pad_1d({7}, "reflect", 2, 1).to_vector<float>(), (V{7, 7, 7, 7}));  // extent 1 repeats
  EXPECT_EQ(error_kind([] { pad_1d({}, "edge", 1, 0); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { pad_1d({1, 2}, "constant", -2, -1); }), Kind::InvalidInput);
}

TEST(Shape2Ops, PadModesActOnTheCroppedAxis) {
  // Found by the oracle cases (Pad/wrap with a negative pad): a crop comes first, so the wrap period is
  // what is left, [2 3 4] here, as in ONNX Runtime.
  using V = std::vector<float>;
  EXPECT_EQ(pad_1d({1, 2, 3, 4}, "wrap", -1, 2).to_vector<float>(), (V{2, 3, 4, 2, 3}));
  EXPECT_EQ(pad_1d({1, 2, 3, 4}, "wrap", 3, -2).to_vector<float>(), (V{2, 1, 2, 1, 2}));
  EXPECT_EQ(pad_1d({1, 2, 3, 4}, "reflect", 4, -1).to_vector<float>(), (V{1, 2, 3, 2, 1, 2, 3}));
  EXPECT_EQ(pad_1d({1, 2, 3, 4}, "edge", -3, 2).to_vector<float>(), (V{4, 4, 4}));
  // Nothing left to read from: only constant mode can pad.
  EXPECT_EQ(error_kind([] { pad_1d({1, 2}, "edge", -2, 1); }), Kind::InvalidInput);
  EXPECT_EQ(pad_1d({1, 2}, "constant", -2, 1).to_vector<float>(), (V{9.5f}));
}

TEST(Shape2Ops, PadWithAxesAndBeforeOpset11) {
  ModelBuilder m(18);
  m.input("x", DType::I64, {2, 2}).output("y", DType::I64);
  m.initializer("p", i64s({1, 0})).initializer("a", i64s({-1}));
  m.node("Pad", {"x", "p", "", "a"}, {"y"});
  const Tensor y = m.run({{"x", Tensor::from<int64_t>({1, 2, 3, 4}, {2, 2})}})[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 0, 3, 4}));

  ModelBuilder old(7);
  old.input("x", DType::I32, {2}).output("y", DType::I32);
  old.node("Pad", {"x"}, {"y"}, {Attr::ints("pads", {1, 2}), Attr::f("value", -3.7f)});
  EXPECT_EQ(old.run({{"x", Tensor::from<int32_t>({5, 6}, {2})}})[0].to_vector<int32_t>(),
            (std::vector<int32_t>{-3, 5, 6, -3, -3}));  // the float value truncates like Cast
}

// --- ConstantOfShape, Range, Size

TEST(Shape2Ops, ConstantOfShapeFillsTheValue) {
  ModelBuilder m(9);
  m.input("s", DType::I64, {2}).output("y", DType::I16);
  m.node("ConstantOfShape", {"s"}, {"y"}, {Attr::tensor("value", Tensor::from<int16_t>({-5}, {1}))});
  const Tensor y = m.run({{"s", i64s({2, 3})}})[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(y.to_vector<int16_t>(), std::vector<int16_t>(6, -5));

  ModelBuilder d(9);
  d.input("s", DType::I64, {1}).output("y", DType::F32);
  d.node("ConstantOfShape", {"s"}, {"y"});
  EXPECT_EQ(d.run({{"s", i64s({0})}})[0].shape(), (std::vector<int64_t>{0}));
  EXPECT_EQ(error_kind([&] { d.run({{"s", i64s({-1})}}); }), Kind::InvalidInput);
}

template <class T>
Tensor range(T start, T limit, T delta) {
  ModelBuilder m(11);
  m.input("a", dtype_of<T>(), {}).input("b", dtype_of<T>(), {}).input("c", dtype_of<T>(), {});
  m.output("y", dtype_of<T>()).node("Range", {"a", "b", "c"}, {"y"});
  return m.run({{"a", Tensor::from<T>({start}, {})},
                {"b", Tensor::from<T>({limit}, {})},
                {"c", Tensor::from<T>({delta}, {})}})[0];
}

TEST(Shape2Ops, RangeCountsInDouble) {
  // 0.3f - 0 over 0.1f in double is 2.9999999...something above 3 -> 4 elements.
  const double q = static_cast<double>(0.3f) / static_cast<double>(0.1f);
  const Tensor y = range<float>(0.0f, 0.3f, 0.1f);
  ASSERT_EQ(y.size(), static_cast<int64_t>(std::ceil(q)));
  EXPECT_EQ(y.size(), 4);
  for (int64_t i = 0; i < y.size(); ++i) EXPECT_EQ(y.data<float>()[i], 0.0f + static_cast<float>(i) * 0.1f);
  EXPECT_EQ(range<int32_t>(10, 4, -3).to_vector<int32_t>(), (std::vector<int32_t>{10, 7}));
  EXPECT_EQ(range<int64_t>(5, 5, 1).size(), 0);
  EXPECT_EQ(range<int64_t>(5, 1, 1).size(), 0);
  EXPECT_EQ(error_kind([] { range<int32_t>(0, 4, 0); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { range<float>(0, INFINITY, 1); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { range<float>(INFINITY, 0, 1); }), Kind::InvalidInput);  // a count of -inf
  EXPECT_EQ(error_kind([] { range<float>(0, NAN, 1); }), Kind::InvalidInput);
}

TEST(Shape2Ops, SizeIsAnInt64Scalar) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {3, 0, 2})
      .input("z", DType::F32, {2, 5})
      .output("a", DType::I64)
      .output("b", DType::I64);
  m.node("Size", {"x"}, {"a"}).node("Size", {"z"}, {"b"});
  const auto out = m.run({{"x", Tensor(DType::F32, {3, 0, 2})}, {"z", Tensor(DType::F32, {2, 5})}});
  EXPECT_TRUE(out[0].shape().empty());
  EXPECT_EQ(out[0].to_vector<int64_t>(), std::vector<int64_t>{0});
  EXPECT_EQ(out[1].to_vector<int64_t>(), std::vector<int64_t>{10});
}

// --- Split

std::vector<Tensor> split(int opset, int64_t extent, int outputs, std::vector<int64_t> sizes = {},
                          std::vector<Attr> attrs = {}) {
  ModelBuilder m(opset);
  m.input("x", DType::F32, {2, extent});
  for (int i = 0; i < outputs; ++i) m.output("y" + std::to_string(i), DType::F32);
  attrs.push_back(Attr::i("axis", -1));
  const bool with_sizes = !sizes.empty();
  if (with_sizes) m.initializer("s", i64s(sizes));
  // The node's lists are initializer lists, so each output count is spelled out.
  if (outputs == 2 && with_sizes) m.node("Split", {"x", "s"}, {"y0", "y1"}, attrs);
  if (outputs == 2 && !with_sizes) m.node("Split", {"x"}, {"y0", "y1"}, attrs);
  if (outputs == 3 && with_sizes) m.node("Split", {"x", "s"}, {"y0", "y1", "y2"}, attrs);
  if (outputs == 3 && !with_sizes) m.node("Split", {"x"}, {"y0", "y1", "y2"}, attrs);
  if (outputs == 4) m.node("Split", {"x"}, {"y0", "y1", "y2", "y3"}, attrs);
  return m.run({{"x", Tensor::from<float>(iota(static_cast<size_t>(2 * extent)), {2, extent})}});
}

TEST(Shape2Ops, SplitSizesAndEqualParts) {
  auto parts = split(13, 5, 3, {1, 0, 4});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].to_vector<float>(), (std::vector<float>{0, 5}));
  EXPECT_EQ(parts[1].shape(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(parts[2].to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 6, 7, 8, 9}));
  EXPECT_EQ(split(13, 6, 3)[2].to_vector<float>(), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(error_kind([] { split(13, 7, 3); }), Kind::InvalidInput);  // must divide before opset 18
  EXPECT_EQ(error_kind([] { split(13, 5, 2, {2, 2}); }), Kind::InvalidInput);
}

TEST(Shape2Ops, SplitOpset18CeilParts) {
  // 7 into 4: parts of ceil(7/4) = 2, the last takes the remaining 1.
  const auto parts = split(18, 7, 4, {}, {Attr::i("num_outputs", 4)});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(parts[static_cast<size_t>(i)].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(parts[3].to_vector<float>(), (std::vector<float>{6, 13}));
  EXPECT_EQ(split(18, 6, 3)[1].to_vector<float>(),
            (std::vector<float>{2, 3, 8, 9}));  // default: output count
}

// --- Dropout

TEST(Shape2Ops, DropoutPassesThroughWithAllTrueMask) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {3}).output("y", DType::F32).output("mask", DType::Bool);
  m.initializer("r", Tensor::from<float>({0.9f}, {}));
  m.node("Dropout", {"x", "r"}, {"y", "mask"});
  const auto out = m.run({{"x", Tensor::from<float>({1, -0.0f, 3}, {3})}});
  EXPECT_EQ(bits_of(out[0].data<float>()[1]), 0x80000000u);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0, 3}));
  EXPECT_EQ(out[1].to_vector<bool>(), (std::vector<bool>{true, true, true}));

  ModelBuilder t(13);
  t.input("x", DType::F32, {3}).input("train", DType::Bool, {}).output("y", DType::F32);
  t.node("Dropout", {"x", "", "train"}, {"y"});
  Session s = t.session();
  const Tensor x = Tensor::from<float>({1, 2, 3}, {3});
  EXPECT_EQ(s.run({{"x", x}, {"train", bool_scalar(false)}})[0].to_vector<float>(), x.to_vector<float>());
  // Training with the default ratio 0.5: each element is dropped or doubled (random_test.cc has the rest).
  for (float v : s.run({{"x", x}, {"train", bool_scalar(true)}})[0].to_vector<float>()) {
    EXPECT_TRUE(v == 0 || v == 2 || v == 4 || v == 6) << v;
  }
}

TEST(Shape2Ops, DropoutMaskBeforeOpset10HasTheInputType) {
  // Found by the oracle cases (Dropout/mask at opset 7 and 9): the mask is served, all "true" = 1.0.
  ModelBuilder m(7);
  m.input("x", DType::F64, {2}).output("y", DType::F64).output("mask", DType::F64);
  m.node("Dropout", {"x"}, {"y", "mask"}, {Attr::f("ratio", 0.5f)});
  const auto out = m.run({{"x", Tensor::from<double>({-2.5, 4}, {2})}});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{-2.5, 4}));
  ASSERT_EQ(out[1].dtype(), DType::F64);
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{1, 1}));
}

// --- GatherElements, GatherND, ScatterND

TEST(Shape2Ops, GatherElementsWithSmallerIndicesAndBadIndex) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {3, 3}).input("i", DType::I32, {2, 2}).output("y", DType::F32);
  m.node("GatherElements", {"x", "i"}, {"y"}, {Attr::i("axis", 0)}, "pick");
  Session s = m.session();
  const Tensor x = Tensor::from<float>(iota(9), {3, 3});
  // y[r][c] = x[i[r][c]][c]
  const Tensor y = s.run({{"x", x}, {"i", Tensor::from<int32_t>({2, -3, 1, 0}, {2, 2})}})[0];
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{6, 1, 3, 1}));
  std::string node;
  EXPECT_EQ(error_kind(
                [&] {
                  s.run({{"x", x}, {"i", Tensor::from<int32_t>({0, 3, 0, 0}, {2, 2})}});
                },
                nullptr, &node),
            Kind::InvalidInput);
  EXPECT_EQ(node, "pick");
}

TEST(Shape2Ops, GatherNDWithBatchDims) {
  ModelBuilder m(13);
  m.input("x", DType::I64, {2, 2, 2}).input("i", DType::I64, {2, 1, 1}).output("y", DType::I64);
  m.node("GatherND", {"x", "i"}, {"y"}, {Attr::i("batch_dims", 1)});
  const Tensor x = Tensor::from<int64_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
  const Tensor y = m.run({{"x", x}, {"i", Tensor::from<int64_t>({1, -2}, {2, 1, 1})}})[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{2, 3, 4, 5}));  // batch 0 row 1, batch 1 row 0
}

std::vector<float> scatter_nd(std::string_view reduction, const std::vector<float>& data,
                              const std::vector<int64_t>& index, const std::vector<float>& updates) {
  ModelBuilder m(18);
  const auto n = static_cast<int64_t>(data.size()), k = static_cast<int64_t>(index.size());
  m.input("x", DType::F32, {n})
      .input("i", DType::I64, {k, 1})
      .input("u", DType::F32, {k})
      .output("y", DType::F32);
  m.node("ScatterND", {"x", "i", "u"}, {"y"}, {Attr::s("reduction", reduction)});
  return m
      .run({{"x", Tensor::from<float>(data, {n})},
            {"i", Tensor::from<int64_t>(index, {k, 1})},
            {"u", Tensor::from<float>(updates, {k})}})[0]
      .to_vector<float>();
}

TEST(Shape2Ops, ScatterNDAppliesUpdatesInOrder) {
  using V = std::vector<float>;
  EXPECT_EQ(scatter_nd("none", {1, 2, 3}, {2, 0, 2}, {7, 8, 9}), (V{8, 2, 9}));  // the last write wins
  EXPECT_EQ(scatter_nd("add", {1, 2, 3}, {2, 0, 2}, {7, 8, 9}), (V{9, 2, 19}));
  EXPECT_EQ(scatter_nd("mul", {1, 2, 3}, {-1, -1}, {2, 5}), (V{1, 2, 30}));
  EXPECT_EQ(scatter_nd("min", {1, 2, 3}, {1, 1}, {5, 0}), (V{1, 0, 3}));
  // max(u, o) as u < o ? o : u: a NaN on either side makes the update win.
  const V with_nan = scatter_nd("max", {1, NAN, 3}, {0, 1, 2}, {NAN, 0.5f, 2});
  EXPECT_TRUE(std::isnan(with_nan[0]));
  EXPECT_EQ(with_nan[1], 0.5f);
  EXPECT_EQ(with_nan[2], 3.0f);
  EXPECT_EQ(error_kind([] { scatter_nd("none", {1, 2}, {2}, {0}); }), Kind::InvalidInput);
}

// --- Trilu

TEST(Shape2Ops, TriluUpperAndLowerWithK) {
  auto trilu = [](int64_t upper, int64_t k) {
    ModelBuilder m(14);
    m.input("x", DType::I32, {2, 3, 4})
        .output("y", DType::I32)
        .initializer("k", Tensor::from<int64_t>({k}, {}));
    m.node("Trilu", {"x", "k"}, {"y"}, {Attr::i("upper", upper)});
    std::vector<int32_t> x(24);
    std::iota(x.begin(), x.end(), 1);
    return m.run({{"x", Tensor::from<int32_t>(x, {2, 3, 4})}})[0].to_vector<int32_t>();
  };
  for (int64_t upper : {0, 1}) {
    for (int64_t k : {kI64Min, int64_t{-2}, int64_t{0}, int64_t{1}, int64_t{5}, kI64Max}) {
      const auto y = trilu(upper, k);
      for (int64_t i = 0; i < 24; ++i) {
        const int64_t r = (i / 4) % 3, c = i % 4;
        // Compare c - r with k in double so the extreme k need no overflow care here.
        const double diff = static_cast<double>(c - r), kk = static_cast<double>(k);
        const bool kept = upper == 1 ? diff >= kk : diff <= kk;
        EXPECT_EQ(y[static_cast<size_t>(i)], kept ? i + 1 : 0)
            << "upper " << upper << " k " << k << " at " << i;
      }
    }
  }
}

// --- OneHot

TEST(Shape2Ops, OneHotOffRowsForNanAndOutOfRange) {
  ModelBuilder m(11);
  m.input("i", DType::F32, {5}).output("y", DType::I64);
  m.initializer("d", Tensor::from<float>({3.0f}, {})).initializer("v", Tensor::from<int64_t>({-1, 7}, {2}));
  m.node("OneHot", {"i", "d", "v"}, {"y"}, {Attr::i("axis", 0)});
  const Tensor y = m.run({{"i", Tensor::from<float>({0, -1, NAN, 3, -4}, {5})}})[0];
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{3, 5}));                          // axis 0: the depth leads
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{7, -1, -1, -1, -1,   //
                                                          -1, -1, -1, -1, -1,  //
                                                          -1, 7, -1, -1, -1}));
  ModelBuilder scalar(11);
  scalar.input("i", DType::I32, {}).output("y", DType::F32);
  scalar.initializer("d", Tensor::from<int64_t>({4}, {})).initializer("v", Tensor::from<float>({0, 1}, {2}));
  scalar.node("OneHot", {"i", "d", "v"}, {"y"});
  EXPECT_EQ(scalar.run({{"i", Tensor::from<int32_t>({2}, {})}})[0].to_vector<float>(),
            (std::vector<float>{0, 0, 1, 0}));
}

// --- NonZero

TEST(Shape2Ops, NonZeroCountsNanButNotNegativeZero) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {2, 3}).output("y", DType::I64);
  m.node("NonZero", {"x"}, {"y"});
  Session s = m.session(options(ExecutionMode::Exact));
  const Tensor y = s.run({{"x", Tensor::from<float>({0, -0.0f, NAN, 1, 0, -2}, {2, 3})}})[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 2, 0, 2}));
  EXPECT_EQ(s.run({{"x", Tensor(DType::F32, {2, 3})}})[0].shape(), (std::vector<int64_t>{2, 0}));

  ModelBuilder scalar(13);
  scalar.input("x", DType::I8, {}).output("y", DType::I64);
  scalar.node("NonZero", {"x"}, {"y"});
  const Tensor one = scalar.run({{"x", Tensor::from<int8_t>({-3}, {})}})[0];
  EXPECT_EQ(one.shape(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(one.to_vector<int64_t>(), std::vector<int64_t>{0});
}

// --- TopK

// Reference: stable order of the row by value (NaN above every number), ties by index.
std::vector<int64_t> reference_order(const std::vector<float>& row, bool largest) {
  std::vector<int64_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int64_t i) {
    return std::isnan(row[static_cast<size_t>(i)]) ? INFINITY : row[static_cast<size_t>(i)];
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const bool na = std::isnan(row[static_cast<size_t>(a)]), nb = std::isnan(row[static_cast<size_t>(b)]);
    if (na != nb) return largest ? na : nb;
    return largest ? key(a) > key(b) : key(a) < key(b);
  });
  return order;
}

TEST(Shape2Ops, TopKIsStableWithNanFirstWhenLargest) {
  std::vector<float> row;
  for (int i = 0; i < 40; ++i) row.push_back(static_cast<float>((i * 7) % 5));  // many ties
  row[3] = NAN;
  row[17] = NAN;
  row[20] = -0.0f;
  const auto n = static_cast<int64_t>(row.size());
  for (int64_t k : {int64_t{1}, int64_t{5}, int64_t{16}, int64_t{17}, n}) {
    for (int64_t largest : {0, 1}) {
      ModelBuilder m(11);
      m.input("x", DType::F32, {1, n}).output("v", DType::F32).output("i", DType::I64);
      m.initializer("k", i64s({k}));
      m.node("TopK", {"x", "k"}, {"v", "i"}, {Attr::i("largest", largest)});
      const auto out = m.run({{"x", Tensor::from<float>(row, {1, n})}});
      const auto want = reference_order(row, largest == 1);
      ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{1, k}));
      for (int64_t j = 0; j < k; ++j) {
        EXPECT_EQ(out[1].data<int64_t>()[j], want[static_cast<size_t>(j)])
            << "k " << k << " largest " << largest;
        EXPECT_EQ(bits_of(out[0].data<float>()[j]),
                  bits_of(row[static_cast<size_t>(want[static_cast<size_t>(j)])]));
      }
    }
  }
}

TEST(Shape2Ops, TopKAlongAMiddleAxisAndBadK) {
  ModelBuilder m(10);
  m.input("x", DType::I32, {2, 3, 2}).output("v", DType::I32).output("i", DType::I64);
  m.initializer("k", i64s({2}));
  m.node("TopK", {"x", "k"}, {"v", "i"}, {Attr::i("axis", 1)});
  const auto out = m.run({{"x", Tensor::from<int32_t>({1, 6, 5, 2, 3, 4, 9, 7, 8, 8, 7, 9}, {2, 3, 2})}});
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{5, 6, 3, 4, 9, 9, 8, 8}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 2, 2, 0, 2, 1, 1}));
  ModelBuilder bad(10);
  bad.input("x", DType::F32, {3}).output("v", DType::F32).output("i", DType::I64);
  bad.initializer("k", i64s({4}));
  bad.node("TopK", {"x", "k"}, {"v", "i"});
  EXPECT_EQ(error_kind([&] { bad.run({{"x", Tensor::from<float>(iota(3), {3})}}); }), Kind::InvalidInput);
}

// --- The attribute forms of the older opsets

TEST(Shape2Ops, AttributeFormsBeforeInputs) {
  ModelBuilder slice(7);
  slice.input("x", DType::F32, {2, 4}).output("y", DType::F32);
  slice.node("Slice", {"x"}, {"y"},
             {Attr::ints("starts", {1, -3}), Attr::ints("ends", {1000, -1}), Attr::ints("axes", {0, 1})});
  EXPECT_EQ(slice.run({{"x", Tensor::from<float>(iota(8), {2, 4})}})[0].to_vector<float>(),
            (std::vector<float>{5, 6}));

  ModelBuilder top(7);
  top.input("x", DType::F64, {4}).output("v", DType::F64).output("i", DType::I64);
  top.node("TopK", {"x"}, {"v", "i"}, {Attr::i("k", 2)});
  const auto out = top.run({{"x", Tensor::from<double>({1, 4, 4, 2}, {4})}});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{4, 4}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));

  ModelBuilder split(11);
  split.input("x", DType::F32, {2, 3}).output("a", DType::F32).output("b", DType::F32);
  split.node("Split", {"x"}, {"a", "b"}, {Attr::ints("split", {2, 1}), Attr::i("axis", -1)});
  const auto parts = split.run({{"x", Tensor::from<float>(iota(6), {2, 3})}});
  EXPECT_EQ(parts[0].to_vector<float>(), (std::vector<float>{0, 1, 3, 4}));
  EXPECT_EQ(parts[1].to_vector<float>(), (std::vector<float>{2, 5}));
}

// --- ONNX backend node cases

TEST(Shape2Ops, BackendNodeCases) {
  check_backend_cases({"test_slice", "test_expand", "test_tile", "test_constant_pad", "test_edge_pad",
                       "test_reflect_pad", "test_constantofshape", "test_range", "test_split", "test_size",
                       "test_dropout", "test_gather_elements", "test_gathernd", "test_scatternd", "test_tril",
                       "test_triu", "test_onehot", "test_nonzero", "test_top_k"});
}

}  // namespace
}  // namespace onemodel::test
