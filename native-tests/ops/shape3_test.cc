// Scatter, ScatterElements, Compress, Unique, ReverseSequence, DepthToSpace and SpaceToDepth through Session:
// their ONNX backend node cases, and what the data misses (reductions folding in index order, NaN in Unique,
// conditions read at run time, bad indices and attributes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Tensor floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return Tensor::from<float>(v, dims);
}
Tensor i64s(const std::vector<int64_t>& dims, const std::vector<int64_t>& v) {
  return Tensor::from<int64_t>(v, dims);
}
Tensor bools(const std::vector<uint8_t>& v) {
  return tensor_of<uint8_t>(DType::Bool, {static_cast<int64_t>(v.size())}, v);
}
std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

TEST(Shape3Ops, BackendCasesPassInBothModes) {
  EXPECT_EQ(check_backend_cases({"test_scatter_elements", "test_scatter_with", "test_scatter_without",
                                 "test_compress", "test_unique", "test_reversesequence", "test_depthtospace",
                                 "test_spacetodepth"}),
            2 * 23);
}

// --- ScatterElements

ModelBuilder scatter_model(int64_t opset, const std::vector<int64_t>& data_dims,
                           const std::vector<int64_t>& index_dims, const std::vector<Attr>& attrs,
                           std::string_view op = "ScatterElements") {
  ModelBuilder m(opset);
  m.input("data", DType::F32, data_dims).input("indices", DType::I64, index_dims);
  m.input("updates", DType::F32, index_dims).output("y", DType::F32);
  m.node(op, {"data", "indices", "updates"}, {"y"}, attrs, "scatter_node");
  return m;
}

std::vector<float> scatter_1d(const std::vector<Attr>& attrs, const std::vector<float>& data,
                              const std::vector<int64_t>& indices, const std::vector<float>& updates,
                              int64_t opset = 18) {
  const int64_t n = static_cast<int64_t>(data.size()), k = static_cast<int64_t>(indices.size());
  return scatter_model(opset, {n}, {k}, attrs)
      .run({{"data", floats({n}, data)}, {"indices", i64s({k}, indices)}, {"updates", floats({k}, updates)}})
      .at(0)
      .to_vector<float>();
}

TEST(Shape3Ops, ScatterElementsFoldsRepeatedIndicesInOrder) {
  using V = std::vector<float>;
  // Without a reduction the last update wins; negative indices count from the end.
  EXPECT_EQ(scatter_1d({}, {0, 0, 0}, {1, -2, 2}, {5, 6, 7}), (V{0, 6, 7}));
  EXPECT_EQ(scatter_1d({Attr::s("reduction", "add")}, {1, 1, 1}, {0, 0, 2}, {2, 3, 4}), (V{6, 1, 5}));
  EXPECT_EQ(scatter_1d({Attr::s("reduction", "mul")}, {1, 2, 1}, {1, 1}, {3, 4}), (V{1, 24, 1}));
  EXPECT_EQ(scatter_1d({Attr::s("reduction", "max")}, {1, 5, 1}, {1, 1, 0}, {3, 7, -1}), (V{1, 7, 1}));
  EXPECT_EQ(scatter_1d({Attr::s("reduction", "min")}, {1, 5, 1}, {1, 1, 0}, {3, 7, -1}), (V{-1, 3, 1}));
  // The fold order shows in rounding: (1e8 + 1) + -1e8 rounds the 1 away, the other order keeps it.
  EXPECT_EQ(scatter_1d({Attr::s("reduction", "add")}, {1e8f}, {0, 0}, {1, -1e8f}), (V{0}));
  EXPECT_EQ(scatter_1d({Attr::s("reduction", "add")}, {1e8f}, {0, 0}, {-1e8f, 1}), (V{1}));
  // max is `u < o ? o : u`, so a NaN in either operand lets the update through (ops-shape-indexing.md).
  EXPECT_EQ(scatter_1d({Attr::s("reduction", "max")}, {kNaN}, {0}, {3}), (V{3}));
  EXPECT_TRUE(std::isnan(scatter_1d({Attr::s("reduction", "max")}, {1}, {0}, {kNaN})[0]));
}

TEST(Shape3Ops, ScatterElementsAlongAnInnerAxisWithSmallerIndices) {
  // data [2, 3], indices [1, 2] along axis 1: row 0 only, columns named by the indices.
  ModelBuilder m = scatter_model(16, {2, 3}, {1, 2}, {Attr::i("axis", 1)});
  const auto y = m.run({{"data", floats({2, 3}, iota(6))},
                        {"indices", i64s({1, 2}, {2, 0})},
                        {"updates", floats({1, 2}, {10, 20})}});
  EXPECT_EQ(y.at(0).to_vector<float>(), (std::vector<float>{20, 1, 10, 3, 4, 5}));
}

TEST(Shape3Ops, ScatterRejectsBadIndicesAndAttributes) {
  std::string message, node;
  EXPECT_EQ(error_kind([] { scatter_1d({}, {0, 0, 0}, {3}, {1}); }, &message, &node), Kind::InvalidInput);
  EXPECT_EQ(node, "scatter_node");
  EXPECT_NE(message.find("index 3 is outside [-3, 3)"), std::string::npos) << message;
  EXPECT_EQ(error_kind([] { scatter_1d({}, {0, 0, 0}, {-4}, {1}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { scatter_1d({Attr::s("reduction", "avg")}, {0}, {0}, {1}); }), Kind::InvalidModel);
  // max and min exist from opset 18.
  EXPECT_EQ(error_kind([] { scatter_1d({Attr::s("reduction", "max")}, {0}, {0}, {1}, 16); }),
            Kind::InvalidModel);
  // Shapes are checked when the plan is made (the first run).
  auto run_2x3 = [](const std::vector<int64_t>& index_dims, int64_t axis) {
    const int64_t k = index_dims[0] * index_dims[1];
    scatter_model(16, {2, 3}, index_dims, {Attr::i("axis", axis)})
        .run({{"data", floats({2, 3}, iota(6))},
              {"indices", i64s(index_dims, std::vector<int64_t>(static_cast<size_t>(k)))},
              {"updates", floats(index_dims, iota(static_cast<size_t>(k)))}});
  };
  EXPECT_EQ(error_kind([&] { run_2x3({1, 2}, 2); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { run_2x3({3, 1}, 1); }), Kind::InvalidInput);
  // A reduction on a type the fold does not cover.
  ModelBuilder bytes(16);
  bytes.input("data", DType::I8, {2}).input("indices", DType::I64, {1}).input("updates", DType::I8, {1});
  bytes.output("y", DType::I8)
      .node("ScatterElements", {"data", "indices", "updates"}, {"y"}, {Attr::s("reduction", "add")});
  EXPECT_EQ(error_kind([&] {
              bytes.run({{"data", tensor_of<int8_t>(DType::I8, {2}, {1, 2})},
                         {"indices", i64s({1}, {0})},
                         {"updates", tensor_of<int8_t>(DType::I8, {1}, {3})}});
            }),
            Kind::Unsupported);
}

TEST(Shape3Ops, ScatterIsTheOpset10NameOfScatterElements) {
  ModelBuilder m = scatter_model(10, {3}, {2}, {}, "Scatter");
  const auto y = m.run(
      {{"data", floats({3}, {0, 0, 0})}, {"indices", i64s({2}, {2, -3})}, {"updates", floats({2}, {1, 2})}});
  EXPECT_EQ(y.at(0).to_vector<float>(), (std::vector<float>{2, 0, 1}));
  // From opset 11 only ScatterElements exists.
  EXPECT_EQ(error_kind([] { scatter_model(11, {3}, {2}, {}, "Scatter").session(); }),
            Kind::UnsupportedOperator);
}

// --- Compress

TEST(Shape3Ops, CompressReadsAConditionFedAtRunTime) {
  ModelBuilder m(11);
  m.input("x", DType::F32, {3, 2}).input("c", DType::Bool, {-1}).output("y", DType::F32);
  m.node("Compress", {"x", "c"}, {"y"}, {Attr::i("axis", -2)}, "compress_node");
  Session s = m.session();
  const Tensor x = floats({3, 2}, iota(6));
  auto run = [&](const std::vector<uint8_t>& c) { return s.run({{"x", x}, {"c", bools(c)}}).at(0); };
  EXPECT_EQ(run({0, 1, 1}).to_vector<float>(), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(run({1}).to_vector<float>(), (std::vector<float>{0, 1}));  // a short condition drops the rest
  EXPECT_EQ(run({0, 0, 0, 0}).shape(), (std::vector<int64_t>{0, 2}));  // false past the end is fine
  std::string message, node;
  EXPECT_EQ(error_kind([&] { run({0, 0, 0, 1}); }, &message, &node), Kind::InvalidInput);
  EXPECT_EQ(node, "compress_node");
}

TEST(Shape3Ops, CompressFlattensWithoutAxisAndChecksItsInputs) {
  ModelBuilder m(11);
  m.input("x", DType::I32, {2, 2}).initializer("c", bools({1, 0, 0, 1})).output("y", DType::I32);
  m.node("Compress", {"x", "c"}, {"y"});
  const auto y = m.run({{"x", Tensor::from<int32_t>({7, 8, 9, 10}, {2, 2})}});
  EXPECT_EQ(y.at(0).to_vector<int32_t>(), (std::vector<int32_t>{7, 10}));
  ModelBuilder bad_axis(11);
  bad_axis.input("x", DType::F32, {2}).input("c", DType::Bool, {2}).output("y", DType::F32);
  bad_axis.node("Compress", {"x", "c"}, {"y"}, {Attr::i("axis", 1)});
  EXPECT_EQ(error_kind([&] {
              bad_axis.run({{"x", floats({2}, {1, 2})}, {"c", bools({1, 1})}});
            }),
            Kind::InvalidInput);
  ModelBuilder not_bool(11);
  not_bool.input("x", DType::F32, {2}).input("c", DType::I64, {2}).output("y", DType::F32);
  not_bool.node("Compress", {"x", "c"}, {"y"});
  EXPECT_EQ(error_kind([&] {
              not_bool.run({{"x", floats({2}, {1, 2})}, {"c", i64s({2}, {1, 1})}});
            }),
            Kind::InvalidInput);
}

// --- Unique

std::vector<Tensor> unique_of(const Tensor& x, const std::vector<Attr>& attrs) {
  ModelBuilder m(11);
  m.input("x", x.dtype(), x.shape()).output("y", x.dtype());
  m.output("indices", DType::I64).output("inverse", DType::I64).output("counts", DType::I64);
  m.node("Unique", {"x"}, {"y", "indices", "inverse", "counts"}, attrs);
  return m.run({{"x", x}});
}

TEST(Shape3Ops, UniqueKeepsEveryNanApartAndTiesSignedZeros) {
  using I = std::vector<int64_t>;
  const Tensor x = floats({5}, {kNaN, 1, kNaN, -0.0f, 0.0f});
  const auto sorted = unique_of(x, {});
  const auto y = sorted.at(0).to_vector<float>();
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(bits_of(y[0]), bits_of(-0.0f));  // the first occurrence represents +-0
  EXPECT_EQ(y[1], 1);
  EXPECT_TRUE(std::isnan(y[2]) && std::isnan(y[3]));
  EXPECT_EQ(sorted.at(1).to_vector<int64_t>(), (I{3, 1, 0, 2}));
  EXPECT_EQ(sorted.at(2).to_vector<int64_t>(), (I{2, 1, 3, 0, 0}));
  EXPECT_EQ(sorted.at(3).to_vector<int64_t>(), (I{2, 1, 1, 1}));
  const auto first_seen = unique_of(x, {Attr::i("sorted", 0)});
  EXPECT_EQ(first_seen.at(1).to_vector<int64_t>(), (I{0, 1, 2, 3}));
  EXPECT_EQ(first_seen.at(2).to_vector<int64_t>(), (I{0, 1, 2, 3, 3}));
  EXPECT_EQ(first_seen.at(3).to_vector<int64_t>(), (I{1, 1, 1, 2}));
}

TEST(Shape3Ops, UniqueSlicesOfAnIntegerTensorAndOptionalOutputs) {
  // x [2, 3] int64, unique columns (axis 1): columns (1,4), (0,2), (1,4).
  const Tensor x = i64s({2, 3}, {1, 0, 1, 4, 2, 4});
  const auto out = unique_of(x, {Attr::i("axis", 1)});
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out.at(0).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 4}));
  EXPECT_EQ(out.at(2).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  // Only Y asked for.
  ModelBuilder m(11);
  m.input("x", DType::F32, {4}).output("y", DType::F32);
  m.node("Unique", {"x"}, {"y"}, {Attr::i("sorted", 0)});
  EXPECT_EQ(m.run({{"x", floats({4}, {3, 3, 1, 3})}}).at(0).to_vector<float>(), (std::vector<float>{3, 1}));
  EXPECT_EQ(error_kind([&] { unique_of(x, {Attr::i("axis", 2)}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { unique_of(x, {Attr::i("sorted", 2)}); }), Kind::InvalidModel);
}

// --- ReverseSequence

TEST(Shape3Ops, ReverseSequenceChecksLengthsAndAxes) {
  ModelBuilder m(10);
  m.input("x", DType::F32, {2, 3}).input("lens", DType::I64, {2}).output("y", DType::F32);
  m.node("ReverseSequence", {"x", "lens"}, {"y"}, {Attr::i("batch_axis", 0), Attr::i("time_axis", 1)},
         "reverse_node");
  Session s = m.session();
  const Tensor x = floats({2, 3}, iota(6));
  EXPECT_EQ(s.run({{"x", x}, {"lens", i64s({2}, {0, 2})}}).at(0).to_vector<float>(),
            (std::vector<float>{0, 1, 2, 4, 3, 5}));
  for (int64_t bad : {4, -1}) {
    std::string node;
    EXPECT_EQ(error_kind(
                  [&] {
                    s.run({{"x", x}, {"lens", i64s({2}, {1, bad})}});
                  },
                  nullptr, &node),
              Kind::InvalidInput);
    EXPECT_EQ(node, "reverse_node");
  }
  ModelBuilder same(10);
  same.input("x", DType::F32, {2, 3}).input("lens", DType::I64, {2}).output("y", DType::F32);
  same.node("ReverseSequence", {"x", "lens"}, {"y"}, {Attr::i("batch_axis", 1), Attr::i("time_axis", 1)});
  EXPECT_EQ(error_kind([&] { same.session(); }), Kind::InvalidModel);
}

// --- DepthToSpace, SpaceToDepth

TEST(Shape3Ops, SpaceToDepthThenDepthToSpaceDcrIsTheIdentity) {
  ModelBuilder m(13);
  m.input("x", DType::F16, {2, 3, 4, 6}).output("y", DType::F16);
  m.node("SpaceToDepth", {"x"}, {"d"}, {Attr::i("blocksize", 2)});
  m.node("DepthToSpace", {"d"}, {"y"}, {Attr::i("blocksize", 2)});
  std::vector<uint16_t> bits(2 * 3 * 4 * 6);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(0x3C00 + i);
  const Tensor x = tensor_of<uint16_t>(DType::F16, {2, 3, 4, 6}, bits);
  EXPECT_TRUE(same_bytes(m.run({{"x", x}}).at(0), x));
}

TEST(Shape3Ops, DepthToSpaceRejectsBadBlocksAndModes) {
  auto model = [](std::vector<int64_t> dims, std::vector<Attr> attrs) {
    ModelBuilder m(13);
    m.input("x", DType::F32, dims).output("y", DType::F32);
    m.node("DepthToSpace", {"x"}, {"y"}, attrs);
    return m;
  };
  // Shapes are checked when the plan is made (the first run), attributes when the session is created.
  EXPECT_EQ(error_kind([&] {
              model({1, 6, 2, 2}, {Attr::i("blocksize", 2)}).run({{"x", floats({1, 6, 2, 2}, iota(24))}});
            }),
            Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] {
              model({1, 8, 2}, {Attr::i("blocksize", 2)}).run({{"x", floats({1, 8, 2}, iota(16))}});
            }),
            Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { model({1, 8, 2, 2}, {}).session(); }), Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] {
              model({1, 8, 2, 2}, {Attr::i("blocksize", 0)}).session();
            }),
            Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] {
              model({1, 8, 2, 2}, {Attr::i("blocksize", 2), Attr::s("mode", "RDC")}).session();
            }),
            Kind::InvalidModel);
}

}  // namespace
}  // namespace onemodel::test
