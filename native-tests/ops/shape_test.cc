// Shape and indexing operators through Session: views (Reshape, Identity, Flatten, Squeeze, Unsqueeze),
// Constant, Shape, Transpose, Gather and Concat against expectations computed here from the operator
// definitions, plus the ONNX backend node cases in fast and exact mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

std::vector<float> iota_floats(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

int64_t product(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

Tensor iota_tensor(const std::vector<int64_t>& dims) {
  return Tensor::from<float>(iota_floats(static_cast<size_t>(product(dims))), dims);
}

// Row-major strides of `dims`, in elements.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t a = dims.size(); a-- > 1;) s[a - 1] = s[a] * dims[a];
  return s;
}

// The multi-index of flat position `flat` in `dims`.
std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t a = dims.size(); a-- > 0;) {
    index[a] = flat % dims[a];
    flat /= dims[a];
  }
  return index;
}

// --- Views

Tensor reshape(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& shape,
               int64_t allow_zero = 0) {
  ModelBuilder m(14);
  m.input("x", DType::F32, in_dims).output("y", DType::F32);
  m.initializer("s", Tensor::from<int64_t>(shape, {static_cast<int64_t>(shape.size())}));
  m.node("Reshape", {"x", "s"}, {"y"}, {Attr::i("allowzero", allow_zero)});
  return m.run({{"x", iota_tensor(in_dims)}})[0];
}

TEST(ShapeOps, ReshapeCopiesZerosAndInfersMinusOne) {
  EXPECT_EQ(reshape({2, 3, 4}, {0, -1}).shape(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(reshape({2, 3, 4}, {-1, 0, 2}).shape(), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(reshape({2, 3, 4}, {24}).shape(), (std::vector<int64_t>{24}));
  EXPECT_EQ(reshape({2, 3, 4}, {4, 6}).to_vector<float>(), iota_floats(24));  // the bytes are unchanged
  // allowzero=1: a 0 is a real zero extent.
  EXPECT_EQ(reshape({0, 3}, {3, 0}, 1).shape(), (std::vector<int64_t>{3, 0}));
}

TEST(ShapeOps, ReshapeRejectsBadShapes) {
  EXPECT_EQ(error_kind([] { reshape({2, 3}, {-1, -1}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { reshape({2, 3}, {4, -1}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { reshape({2, 3}, {5}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { reshape({2, 3}, {-2, 3}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([] { reshape({2, 3}, {0, 0, 0}); }), Kind::InvalidInput);  // copies an extent x lacks
  EXPECT_EQ(error_kind([] { reshape({0, 3}, {0, -1}, 1); }), Kind::InvalidInput);
}

TEST(ShapeOps, ReshapeWithAComputedShapeIsShapedEveryRun) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {-1}).input("s", DType::I64, {2}).output("y", DType::F32);
  m.node("Reshape", {"x", "s"}, {"y"});
  Session s = m.session();
  for (int64_t rows : {2, 3, 6}) {
    auto out = s.run({{"x", iota_tensor({12})}, {"s", Tensor::from<int64_t>({rows, -1}, {2})}});
    EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{rows, 12 / rows}));
    EXPECT_EQ(out[0].to_vector<float>(), iota_floats(12));
  }
}

TEST(ShapeOps, FlattenAndIdentity) {
  const std::vector<int64_t> dims = {2, 3, 4};
  for (int64_t axis : {0, 1, 2, 3, -1, -3}) {
    ModelBuilder m(13);
    m.input("x", DType::I32, dims).output("y", DType::I32);
    m.node("Flatten", {"x"}, {"t"}, {Attr::i("axis", axis)}).node("Identity", {"t"}, {"y"});
    std::vector<int32_t> v(24);
    std::iota(v.begin(), v.end(), 0);
    const Tensor y = m.run({{"x", Tensor::from<int32_t>(v, dims)}})[0];
    const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
    const int64_t rows = std::accumulate(dims.begin(), dims.begin() + a, int64_t{1}, std::multiplies<>());
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{rows, 24 / rows})) << axis;
    EXPECT_EQ(y.to_vector<int32_t>(), v);
  }
  ModelBuilder bad(13);
  bad.input("x", DType::F32, dims)
      .output("y", DType::F32)
      .node("Flatten", {"x"}, {"y"}, {Attr::i("axis", 4)});
  EXPECT_EQ(error_kind([&] { bad.run({{"x", iota_tensor(dims)}}); }), Kind::InvalidInput);
}

// Squeeze or Unsqueeze with axes as an attribute (opset < 13) or a constant input (13+); no axes when
// nullopt.
Tensor axes_op(std::string_view op, int64_t opset, const std::vector<int64_t>& dims,
               std::optional<std::vector<int64_t>> axes) {
  ModelBuilder m(opset);
  m.input("x", DType::F32, dims).output("y", DType::F32);
  if (!axes) {
    m.node(op, {"x"}, {"y"});
  } else if (opset >= 13) {
    m.initializer("a", Tensor::from<int64_t>(*axes, {static_cast<int64_t>(axes->size())}));
    m.node(op, {"x", "a"}, {"y"});
  } else {
    m.node(op, {"x"}, {"y"}, {Attr::ints("axes", *axes)});
  }
  return m.run({{"x", iota_tensor(dims)}})[0];
}

TEST(ShapeOps, SqueezeAndUnsqueezeInBothAxesForms) {
  for (int64_t opset : {11, 13}) {
    EXPECT_EQ(axes_op("Squeeze", opset, {1, 3, 1, 2}, std::nullopt).shape(), (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(axes_op("Squeeze", opset, {1, 3, 1, 2}, {{-2}}).shape(), (std::vector<int64_t>{1, 3, 2}));
    EXPECT_EQ(axes_op("Unsqueeze", opset, {3, 2}, {{0, 3}}).shape(), (std::vector<int64_t>{1, 3, 2, 1}));
    EXPECT_EQ(axes_op("Unsqueeze", opset, {3, 2}, {{-1, 1}}).shape(), (std::vector<int64_t>{3, 1, 2, 1}));
    EXPECT_EQ(axes_op("Unsqueeze", opset, {}, {{0}}).shape(), (std::vector<int64_t>{1}));
    EXPECT_EQ(axes_op("Unsqueeze", opset, {3, 2}, {{2, 0}}).to_vector<float>(), iota_floats(6));
    EXPECT_EQ(error_kind([&] { axes_op("Squeeze", opset, {1, 3}, {{1}}); }), Kind::InvalidInput);
    EXPECT_EQ(error_kind([&] { axes_op("Squeeze", opset, {1, 3}, {{0, -2}}); }), Kind::InvalidInput);
    EXPECT_EQ(error_kind([&] { axes_op("Unsqueeze", opset, {3}, {{0, 0}}); }), Kind::InvalidInput);
    EXPECT_EQ(error_kind([&] { axes_op("Unsqueeze", opset, {3}, {{3}}); }), Kind::InvalidInput);
  }
  EXPECT_EQ(error_kind([] {
              axes_op("Unsqueeze", 13, {2, 1, 1, 1, 1, 1, 1, 1}, {{0}});
            }),
            Kind::InvalidInput);
}

TEST(ShapeOps, UnsqueezeWithComputedAxesIsShapedEveryRun) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {2, 3}).input("a", DType::I64, {1}).output("y", DType::F32);
  m.node("Unsqueeze", {"x", "a"}, {"y"});
  Session s = m.session();
  const std::vector<std::vector<int64_t>> want = {{1, 2, 3}, {2, 1, 3}, {2, 3, 1}};
  for (int64_t axis = 0; axis < 3; ++axis) {
    auto out = s.run({{"x", iota_tensor({2, 3})}, {"a", Tensor::from<int64_t>({axis}, {1})}});
    EXPECT_EQ(out[0].shape(), want[static_cast<size_t>(axis)]);
  }
}

// --- Constant and Shape

Tensor constant(const Attr& value, DType dtype) {
  ModelBuilder m(13);
  m.output("y", dtype).node("Constant", {}, {"y"}, {value});
  return m.run({})[0];
}

TEST(ShapeOps, ConstantServesEveryValueForm) {
  const Tensor f = Tensor::from<float>({1.5f, -2.0f, 0.25f, 8.0f}, {2, 2});
  EXPECT_TRUE(same_bytes(constant(Attr::tensor("value", f), DType::F32), f));
  const Tensor d = Tensor::from<double>({1e300, -0.0}, {2});
  EXPECT_TRUE(same_bytes(constant(Attr::tensor("value", d), DType::F64), d));
  const Tensor u = Tensor::from<uint8_t>({1, 2, 255}, {3, 1});
  EXPECT_TRUE(same_bytes(constant(Attr::tensor("value", u), DType::U8), u));
  const Tensor empty = Tensor::from<float>(std::vector<float>{}, {0, 3});
  EXPECT_TRUE(same_bytes(constant(Attr::tensor("value", empty), DType::F32), empty));
  EXPECT_TRUE(
      same_bytes(constant(Attr::f("value_float", 2.5f), DType::F32), Tensor::from<float>({2.5f}, {})));
  EXPECT_TRUE(same_bytes(constant(Attr::floats("value_floats", {1, 2}), DType::F32),
                         Tensor::from<float>({1, 2}, {2})));
  EXPECT_TRUE(same_bytes(constant(Attr::i("value_int", -7), DType::I64), Tensor::from<int64_t>({-7}, {})));
  EXPECT_TRUE(same_bytes(constant(Attr::ints("value_ints", {3, -4, 5}), DType::I64),
                         Tensor::from<int64_t>({3, -4, 5}, {3})));
  const Tensor hi = constant(Attr::s("value_string", "hi"), DType::String);
  EXPECT_EQ(hi.shape(), std::vector<int64_t>{});
  EXPECT_EQ(hi.strings(), std::vector<std::string>{"hi"});
  EXPECT_EQ(constant(Attr::strings("value_strings", {"a", ""}), DType::String).strings(),
            (std::vector<std::string>{"a", ""}));
}

// Python slice semantics of dims[start:end], the definition of Shape's start/end.
std::vector<int64_t> slice_dims(const std::vector<int64_t>& dims, int64_t start, int64_t end) {
  const auto r = static_cast<int64_t>(dims.size());
  auto clamp = [&](int64_t p) { return std::clamp<int64_t>(p < 0 ? p + r : p, 0, r); };
  std::vector<int64_t> out;
  for (int64_t i = clamp(start); i < clamp(end); ++i) out.push_back(dims[static_cast<size_t>(i)]);
  return out;
}

TEST(ShapeOps, ShapeWithStartAndEnd) {
  const std::vector<int64_t> dims = {2, 3, 5, 7};
  for (int64_t start : {-9, -2, 0, 1, 3, 4, 9}) {
    for (int64_t end : {-9, -1, 0, 2, 4, 9}) {
      ModelBuilder m(15);
      m.input("x", DType::U8, dims).output("y", DType::I64);
      m.node("Shape", {"x"}, {"y"}, {Attr::i("start", start), Attr::i("end", end)});
      const Tensor y = m.run({{"x", Tensor(DType::U8, dims)}})[0];
      const std::vector<int64_t> want = slice_dims(dims, start, end);
      EXPECT_EQ(y.to_vector<int64_t>(), want) << start << " " << end;
      EXPECT_EQ(y.shape(), (std::vector<int64_t>{static_cast<int64_t>(want.size())}));
    }
  }
}

// --- Transpose

// Bytes of the transpose computed one element at a time from the definition: y[i] = x[i permuted back].
std::vector<std::byte> naive_transpose(const std::vector<std::byte>& x, size_t width,
                                       const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  std::vector<int64_t> out_dims(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) out_dims[i] = dims[static_cast<size_t>(perm[i])];
  const std::vector<int64_t> in_strides = strides_of(dims);
  std::vector<std::byte> y(x.size());
  const int64_t count = product(dims);
  for (int64_t flat = 0; flat < count; ++flat) {
    const std::vector<int64_t> out_index = unflatten(flat, out_dims);
    int64_t src = 0;
    for (size_t i = 0; i < dims.size(); ++i) src += out_index[i] * in_strides[static_cast<size_t>(perm[i])];
    std::memcpy(y.data() + flat * width, x.data() + src * width, width);
  }
  return y;
}

void check_transpose(DType dtype, const std::vector<int64_t>& dims, const std::vector<int64_t>& perm,
                     std::mt19937& rng) {
  Tensor x(dtype, dims);
  std::vector<std::byte> bytes(x.byte_size());
  for (auto& b : bytes) b = static_cast<std::byte>(rng());
  if (!bytes.empty()) std::memcpy(x.raw(), bytes.data(), bytes.size());
  ModelBuilder m(13);
  m.input("x", dtype, dims).output("y", dtype);
  m.node("Transpose", {"x"}, {"y"}, {Attr::ints("perm", perm)});
  const Tensor y = m.run({{"x", x}})[0];
  std::vector<int64_t> out_dims;
  for (int64_t p : perm) out_dims.push_back(dims[static_cast<size_t>(p)]);
  ASSERT_EQ(y.shape(), out_dims);
  const std::vector<std::byte> want = naive_transpose(bytes, dtype_size(dtype), dims, perm);
  ASSERT_EQ(y.byte_size(), want.size());
  EXPECT_TRUE(want.empty() || std::memcmp(y.raw(), want.data(), want.size()) == 0)
      << dtype_name(dtype) << " " << ::testing::PrintToString(dims) << " perm "
      << ::testing::PrintToString(perm);
}

TEST(ShapeOps, TransposeMatchesTheDefinition) {
  std::mt19937 rng(7);
  // Tiles with ragged edges, contiguous runs, merged axes, extent-1 and empty axes, every element width.
  check_transpose(DType::F32, {37, 45}, {1, 0}, rng);
  check_transpose(DType::F32, {3, 40, 50}, {0, 2, 1}, rng);
  check_transpose(DType::F32, {40, 3, 50}, {2, 1, 0}, rng);
  check_transpose(DType::F32, {4, 33, 5, 40}, {0, 2, 1, 3}, rng);
  check_transpose(DType::F32, {2, 1, 3, 1, 4}, {4, 3, 2, 1, 0}, rng);
  check_transpose(DType::F32, {2, 0, 3}, {2, 0, 1}, rng);
  check_transpose(DType::F32, {5}, {0}, rng);
  check_transpose(DType::F32, {}, {}, rng);
  std::uniform_int_distribution<int> extent(1, 7), rank(1, 6);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<int64_t> dims(static_cast<size_t>(rank(rng)));
    for (auto& d : dims) d = extent(rng);
    std::vector<int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const DType types[] = {DType::U8, DType::I16, DType::F32, DType::I64};
    check_transpose(types[trial % 4], dims, perm, rng);
  }
}

TEST(ShapeOps, TransposeDefaultReversesTheAxes) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {2, 3, 4}).output("y", DType::F32).node("Transpose", {"x"}, {"y"});
  const Tensor y = m.run({{"x", iota_tensor({2, 3, 4})}})[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{4, 3, 2}));
  const auto v = y.to_vector<float>();
  for (int64_t k = 0; k < 4; ++k) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t i = 0; i < 2; ++i)
        EXPECT_EQ(v[static_cast<size_t>(k * 6 + j * 2 + i)], i * 12 + j * 4 + k);
    }
  }
}

// --- Gather

template <class I>
void check_gather(const std::vector<int64_t>& dims, int64_t axis, const std::vector<I>& indices,
                  const std::vector<int64_t>& index_dims) {
  ModelBuilder m(13);
  m.input("x", DType::F32, dims).input("i", dtype_of<I>(), index_dims).output("y", DType::F32);
  m.node("Gather", {"x", "i"}, {"y"}, {Attr::i("axis", axis)});
  const Tensor x = iota_tensor(dims);
  const Tensor y = m.run({{"x", x}, {"i", Tensor::from<I>(indices, index_dims)}})[0];
  const auto a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(dims.size()) : axis);
  std::vector<int64_t> out_dims(dims.begin(), dims.begin() + static_cast<int64_t>(a));
  out_dims.insert(out_dims.end(), index_dims.begin(), index_dims.end());
  out_dims.insert(out_dims.end(), dims.begin() + static_cast<int64_t>(a) + 1, dims.end());
  ASSERT_EQ(y.shape(), out_dims);
  // y[o..., k..., r...] = x[o..., indices[k...], r...]
  const auto got = y.to_vector<float>();
  const std::vector<int64_t> in_strides = strides_of(dims);
  const size_t index_rank = index_dims.size();
  for (int64_t flat = 0; flat < product(out_dims); ++flat) {
    const std::vector<int64_t> o = unflatten(flat, out_dims);
    int64_t k = 0;
    for (size_t q = 0; q < index_rank; ++q) k = k * index_dims[q] + o[a + q];
    int64_t pick = indices[static_cast<size_t>(k)];
    if (pick < 0) pick += dims[a];
    int64_t src = pick * in_strides[a];
    for (size_t q = 0; q < a; ++q) src += o[q] * in_strides[q];
    for (size_t q = a + 1; q < dims.size(); ++q) src += o[q + index_rank - 1] * in_strides[q];
    EXPECT_EQ(got[static_cast<size_t>(flat)], static_cast<float>(src)) << flat;
  }
}

TEST(ShapeOps, GatherAlongAnyAxisWithNegativeIndices) {
  check_gather<int64_t>({5, 4}, 0, {0, -1, 2, 2}, {2, 2});
  check_gather<int32_t>({3, 4, 5}, 1, {3, -4, 1}, {3});
  check_gather<int64_t>({3, 4, 5}, -1, {4, 0}, {1, 2});
  check_gather<int32_t>({3, 4}, 1, {2}, {});  // scalar index drops the axis
  check_gather<int64_t>({3, 4}, 0, {}, {0});  // no indices
}

TEST(ShapeOps, GatherCopiesAnyElementType) {
  ModelBuilder m(13);
  m.input("x", DType::F64, {3}).input("i", DType::I64, {2}).output("y", DType::F64);
  m.node("Gather", {"x", "i"}, {"y"});
  const Tensor y = m.run(
      {{"x", Tensor::from<double>({0.5, -1e300, 7.0}, {3})}, {"i", Tensor::from<int64_t>({1, 2}, {2})}})[0];
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{-1e300, 7.0}));
}

TEST(ShapeOps, GatherIndexOutOfRangeIsInvalidInputNamingTheNode) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {3, 2}).input("i", DType::I64, {1}).output("y", DType::F32);
  m.node("Gather", {"x", "i"}, {"y"}, {}, "pick_rows");
  Session s = m.session();
  for (int64_t bad : {int64_t{3}, int64_t{-4}, int64_t{1} << 40}) {
    std::string message, node;
    EXPECT_EQ(error_kind(
                  [&] {
                    s.run({{"x", iota_tensor({3, 2})}, {"i", Tensor::from<int64_t>({bad}, {1})}});
                  },
                  &message, &node),
              Kind::InvalidInput);
    EXPECT_EQ(node, "pick_rows");
    EXPECT_NE(message.find("pick_rows"), std::string::npos) << message;
  }
  // The session stays usable.
  auto ok = s.run({{"x", iota_tensor({3, 2})}, {"i", Tensor::from<int64_t>({-3}, {1})}});
  EXPECT_EQ(ok[0].to_vector<float>(), (std::vector<float>{0, 1}));
}

// --- Concat

TEST(ShapeOps, ConcatJoinsAlongAnAxisWithEmptyInputs) {
  const std::vector<std::vector<int64_t>> dims = {{2, 3, 2}, {2, 0, 2}, {2, 1, 2}};
  for (int64_t axis : {1, -2}) {
    ModelBuilder m(13);
    m.input("a", DType::I64, dims[0]).input("b", DType::I64, dims[1]).input("c", DType::I64, dims[2]);
    m.output("y", DType::I64).node("Concat", {"a", "b", "c"}, {"y"}, {Attr::i("axis", axis)});
    std::vector<NamedTensor> feeds;
    const char* names[] = {"a", "b", "c"};
    int64_t next = 0;
    for (size_t i = 0; i < 3; ++i) {
      std::vector<int64_t> v(static_cast<size_t>(product(dims[i])));
      for (auto& e : v) e = next++;
      feeds.push_back({names[i], Tensor::from<int64_t>(v, dims[i])});
    }
    const Tensor y = m.run(feeds)[0];
    ASSERT_EQ(y.shape(), (std::vector<int64_t>{2, 4, 2}));
    // Row r of the output along the axis comes from a (r < 3) or c (r == 3).
    const auto got = y.to_vector<int64_t>();
    for (int64_t o = 0; o < 2; ++o) {
      for (int64_t r = 0; r < 4; ++r) {
        for (int64_t k = 0; k < 2; ++k) {
          const int64_t want = r < 3 ? o * 6 + r * 2 + k : 12 + o * 2 + k;
          EXPECT_EQ(got[static_cast<size_t>(o * 8 + r * 2 + k)], want);
        }
      }
    }
  }
}

TEST(ShapeOps, ConcatRejectsMismatchedShapes) {
  ModelBuilder m(13);
  m.input("a", DType::F32, {2, 3}).input("b", DType::F32, {3, 3}).output("y", DType::F32);
  m.node("Concat", {"a", "b"}, {"y"}, {Attr::i("axis", 1)});
  EXPECT_EQ(error_kind([&] {
              m.run({{"a", iota_tensor({2, 3})}, {"b", iota_tensor({3, 3})}});
            }),
            Kind::InvalidInput);
}

// --- ONNX backend node cases

TEST(ShapeOps, BackendNodeCases) {
  // Identity over sequences and optionals needs those value kinds in the runtime; they are not tensors.
  const int passed =
      check_backend_cases({"test_reshape", "test_identity", "test_constant", "test_shape", "test_flatten",
                           "test_transpose", "test_squeeze", "test_unsqueeze", "test_gather_", "test_concat"},
                          {"test_constant_pad", "test_constantofshape", "test_gather_elements",
                           "test_identity_opt", "test_identity_sequence"});
  if (std::filesystem::is_directory(backend_node_dir())) {
    EXPECT_GE(passed, 2 * 60);
  }
}

}  // namespace
}  // namespace onemodel::test
