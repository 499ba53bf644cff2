// The sequence and optional operators through Session on small hand-built models: each operator's results
// against references computed here (std::vector edits, naive index loops), sequence and optional graph inputs
// and outputs, and the errors (positions out of range, mismatched types and shapes, corrupt packed bytes).
#include <gtest/gtest.h>

#include <vector>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

Proto tensor_type_of(DType t) {
  return Proto().msg(1, Proto().varint(1, static_cast<uint64_t>(t)));
}
Proto sequence_of(DType t) {
  return Proto().msg(4, Proto().msg(1, tensor_type_of(t)));
}
Proto optional_of(const Proto& inner) {
  return Proto().msg(9, Proto().msg(1, inner));
}

Tensor scalar(int64_t v) {
  return Tensor::from<int64_t>({v}, {});
}

bool same(const Tensor& a, const Tensor& b) {
  return same_bytes(a, b);
}

void expect_same_elements(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(got[i], want[i])) << "element " << i;
}

Tensor floats(std::vector<int64_t> shape, float first = 0) {
  Tensor t(DType::F32, shape);
  auto d = t.data<float>();
  for (size_t i = 0; i < d.size(); ++i) d[i] = first + static_cast<float>(i);
  return t;
}

// Row-major multi-index of flat position `i` in `shape`.
std::vector<int64_t> unflatten(int64_t i, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

int64_t flatten(const std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + idx[d];
  return i;
}

// x[..., start:start+len, ...] along `axis`, the axis dropped when `drop` (len must then be 1).
Tensor slice_axis(const Tensor& x, size_t axis, int64_t start, int64_t len, bool drop) {
  std::vector<int64_t> shape = x.shape();
  shape[axis] = len;
  Tensor y(DType::F32, shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    std::vector<int64_t> idx = unflatten(i, shape);
    idx[axis] += start;
    y.data<float>()[static_cast<size_t>(i)] = x.data<float>()[static_cast<size_t>(flatten(idx, x.shape()))];
  }
  if (!drop) return y;
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
  return Tensor::from<float>(y.to_vector<float>(), shape);
}

// Naive concatenation (or stacking along a new axis) of float tensors.
Tensor concat_reference(const std::vector<Tensor>& parts, size_t axis, bool new_axis) {
  std::vector<int64_t> shape = parts[0].shape();
  if (new_axis) shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), 0);
  shape[axis] = 0;
  for (const Tensor& p : parts) shape[axis] += new_axis ? 1 : p.shape()[axis];
  Tensor y(DType::F32, shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    std::vector<int64_t> idx = unflatten(i, shape);
    size_t part = 0;
    if (new_axis) {
      part = static_cast<size_t>(idx[axis]);
      idx.erase(idx.begin() + static_cast<std::ptrdiff_t>(axis));
    } else {
      while (idx[axis] >= parts[part].shape()[axis]) idx[axis] -= parts[part++].shape()[axis];
    }
    y.data<float>()[static_cast<size_t>(i)] =
        parts[part].data<float>()[static_cast<size_t>(flatten(idx, parts[part].shape()))];
  }
  return y;
}

TEST(SequenceOps, ConstructAndAt) {
  ModelBuilder m(13);
  m.input("a", DType::F32, {-1}).input("b", DType::F32, {-1, -1}).input("c", DType::F32, {-1});
  m.input("pos", DType::I64, {}).output("y", DType::F32);
  m.node("SequenceConstruct", {"a", "b", "c"}, {"s"}).node("SequenceAt", {"s", "pos"}, {"y"}, {}, "at");
  Session s = m.session();
  const std::vector<Tensor> xs = {floats({3}), floats({2, 2}, 10), floats({0})};
  for (int64_t pos : {0, 1, 2, -1, -2, -3}) {
    const auto out = s.run({{"a", xs[0]}, {"b", xs[1]}, {"c", xs[2]}, {"pos", scalar(pos)}});
    EXPECT_TRUE(same(out[0], xs[static_cast<size_t>(pos < 0 ? pos + 3 : pos)])) << pos;
  }
  for (int64_t pos : {3, -4}) {
    std::string message, node;
    EXPECT_EQ(error_kind(
                  [&] {
                    s.run({{"a", xs[0]}, {"b", xs[1]}, {"c", xs[2]}, {"pos", scalar(pos)}});
                  },
                  &message, &node),
              SessionError::Kind::InvalidInput);
    EXPECT_EQ(node, "at");
    EXPECT_NE(message.find("outside [-3, 2]"), std::string::npos) << message;
  }
}

TEST(SequenceOps, ConstructRefusesMixedTypes) {
  ModelBuilder m(13);
  m.input("a", DType::F32, {1}).input("b", DType::I32, {1}).typed_output("s", sequence_of(DType::F32));
  m.node("SequenceConstruct", {"a", "b"}, {"s"});
  EXPECT_EQ(error_kind([&] {
              m.run({{"a", Tensor::from<float>({1}, {1})}, {"b", Tensor::from<int32_t>({1}, {1})}});
            }),
            SessionError::Kind::InvalidInput);
}

TEST(SequenceOps, SequenceInputsAndOutputsReportTheirKind) {
  ModelBuilder m(15);
  m.typed_input("s", sequence_of(DType::F32)).typed_output("o", optional_of(sequence_of(DType::F32)));
  m.node("Optional", {"s"}, {"o"});
  Session s = m.session();
  ASSERT_EQ(s.inputs().size(), 1u);
  EXPECT_EQ(s.inputs()[0].kind, ValueKind::Sequence);
  EXPECT_EQ(s.inputs()[0].dtype, DType::U8);
  EXPECT_EQ(s.outputs()[0].kind, ValueKind::Optional);
  const std::vector<Tensor> xs = {floats({2}), floats({1, 3})};
  const auto out = s.run({{"s", pack_sequence(xs, DType::F32)}});
  const UnpackedOptional o = unpack_optional(out[0]);
  ASSERT_EQ(o.content, OptionalContent::Sequence);
  expect_same_elements(o.sequence, xs);
}

TEST(SequenceOps, EmptyAndLength) {
  ModelBuilder m(13);
  m.typed_output("e", sequence_of(DType::I64)).output("n", DType::I64);
  m.node("SequenceEmpty", {}, {"e"}, {Attr::i("dtype", 7)}).node("SequenceLength", {"e"}, {"n"});
  const auto out = m.run({});
  EXPECT_TRUE(unpack_sequence(out[0]).empty());
  EXPECT_EQ(sequence_element_type(out[0]), DType::I64);
  EXPECT_EQ(out[1].to_vector<int64_t>(), std::vector<int64_t>{0});
  EXPECT_TRUE(out[1].shape().empty());

  ModelBuilder len(13);
  len.typed_input("s", sequence_of(DType::F32)).output("n", DType::I64).node("SequenceLength", {"s"}, {"n"});
  const std::vector<Tensor> xs = {floats({1}), floats({1}), floats({4})};
  EXPECT_EQ(len.run({{"s", pack_sequence(xs, DType::F32)}})[0].to_vector<int64_t>(), std::vector<int64_t>{3});
}

TEST(SequenceOps, Insert) {
  ModelBuilder m(13);
  m.typed_input("s", sequence_of(DType::F32)).input("t", DType::F32, {-1}).input("pos", DType::I32, {});
  m.typed_output("o", sequence_of(DType::F32)).node("SequenceInsert", {"s", "t", "pos"}, {"o"}, {}, "insert");
  Session s = m.session();
  const std::vector<Tensor> xs = {floats({2}), floats({3}, 5), floats({1}, 9)};
  const Tensor t = floats({4}, 100);
  for (int32_t pos : {0, 1, 3, -1, -3}) {
    std::vector<Tensor> want = xs;
    want.insert(want.begin() + (pos < 0 ? pos + 3 : pos), t);
    const auto out =
        s.run({{"s", pack_sequence(xs, DType::F32)}, {"t", t}, {"pos", Tensor::from<int32_t>({pos}, {})}});
    expect_same_elements(unpack_sequence(out[0]), want);
  }
  for (int32_t pos : {4, -4}) {
    EXPECT_EQ(
        error_kind([&] {
          s.run({{"s", pack_sequence(xs, DType::F32)}, {"t", t}, {"pos", Tensor::from<int32_t>({pos}, {})}});
        }),
        SessionError::Kind::InvalidInput);
  }

  ModelBuilder append(13);
  append.typed_input("s", sequence_of(DType::F32)).input("t", DType::F32, {-1});
  append.typed_output("o", sequence_of(DType::F32)).node("SequenceInsert", {"s", "t"}, {"o"});
  std::vector<Tensor> want = xs;
  want.push_back(t);
  expect_same_elements(unpack_sequence(append.run({{"s", pack_sequence(xs, DType::F32)}, {"t", t}})[0]),
                       want);
  // Into an empty sequence, and a tensor of another type refused.
  expect_same_elements(unpack_sequence(append.run({{"s", pack_sequence({}, DType::F32)}, {"t", t}})[0]), {t});
  ModelBuilder wrong(13);
  wrong.typed_input("s", sequence_of(DType::F32)).input("t", DType::I64, {-1});
  wrong.typed_output("o", sequence_of(DType::F32)).node("SequenceInsert", {"s", "t"}, {"o"});
  EXPECT_EQ(error_kind([&] {
              wrong.run({{"s", pack_sequence(xs, DType::F32)}, {"t", Tensor::from<int64_t>({1}, {1})}});
            }),
            SessionError::Kind::InvalidInput);
}

TEST(SequenceOps, Erase) {
  ModelBuilder m(13);
  m.typed_input("s", sequence_of(DType::F32)).input("pos", DType::I64, {});
  m.typed_output("o", sequence_of(DType::F32)).node("SequenceErase", {"s", "pos"}, {"o"});
  Session s = m.session();
  const std::vector<Tensor> xs = {floats({2}), floats({3}, 5), floats({1}, 9)};
  for (int64_t pos : {0, 1, 2, -1, -3}) {
    std::vector<Tensor> want = xs;
    want.erase(want.begin() + (pos < 0 ? pos + 3 : pos));
    expect_same_elements(
        unpack_sequence(s.run({{"s", pack_sequence(xs, DType::F32)}, {"pos", scalar(pos)}})[0]), want);
  }
  for (int64_t pos : {3, -4}) {
    EXPECT_EQ(error_kind([&] {
                s.run({{"s", pack_sequence(xs, DType::F32)}, {"pos", scalar(pos)}});
              }),
              SessionError::Kind::InvalidInput);
  }

  ModelBuilder last(13);
  last.typed_input("s", sequence_of(DType::F32)).typed_output("o", sequence_of(DType::F32));
  last.node("SequenceErase", {"s"}, {"o"});
  expect_same_elements(unpack_sequence(last.run({{"s", pack_sequence(xs, DType::F32)}})[0]), {xs[0], xs[1]});
  EXPECT_EQ(error_kind([&] {
              last.run({{"s", pack_sequence({}, DType::F32)}});
            }),
            SessionError::Kind::InvalidInput);
}

TEST(SequenceOps, SplitToSequenceWithoutSplit) {
  const Tensor x = floats({2, 3, 4});
  for (int64_t keepdims : {0, 1}) {
    for (int64_t axis : {0, 1, -1}) {
      ModelBuilder m(13);
      m.input("x", DType::F32, {2, 3, 4}).typed_output("o", sequence_of(DType::F32));
      m.node("SplitToSequence", {"x"}, {"o"}, {Attr::i("axis", axis), Attr::i("keepdims", keepdims)});
      const size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      std::vector<Tensor> want;
      for (int64_t i = 0; i < x.shape()[a]; ++i) want.push_back(slice_axis(x, a, i, 1, keepdims == 0));
      expect_same_elements(unpack_sequence(m.run({{"x", x}})[0]), want);
    }
  }
}

TEST(SequenceOps, SplitToSequenceWithSplit) {
  const Tensor x = floats({3, 7});
  ModelBuilder m(13);
  m.input("x", DType::F32, {3, 7})
      .typed_input("split", tensor_type_of(DType::I64))  // no shape: fed as a scalar and as a list
      .typed_output("o", sequence_of(DType::F32));
  m.node("SplitToSequence", {"x", "split"}, {"o"}, {Attr::i("axis", 1), Attr::i("keepdims", 0)});
  Session s = m.session();
  auto run_split = [&](const Tensor& split) {
    return unpack_sequence(s.run({{"x", x}, {"split", split}})[0]);
  };
  // Listed extents (keepdims does not apply), including an empty part.
  expect_same_elements(
      run_split(Tensor::from<int64_t>({2, 0, 5}, {3})),
      {slice_axis(x, 1, 0, 2, false), slice_axis(x, 1, 2, 0, false), slice_axis(x, 1, 2, 5, false)});
  // A scalar extent: parts of 3, the last shorter.
  expect_same_elements(run_split(scalar(3)), {slice_axis(x, 1, 0, 3, false), slice_axis(x, 1, 3, 3, false),
                                              slice_axis(x, 1, 6, 1, false)});
  EXPECT_EQ(error_kind([&] {
              run_split(Tensor::from<int64_t>({2, 2}, {2}));
            }),
            SessionError::Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { run_split(scalar(0)); }), SessionError::Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] {
              run_split(Tensor::from<int64_t>({8, -1}, {2}));
            }),
            SessionError::Kind::InvalidInput);
}

TEST(SequenceOps, ConcatFromSequence) {
  const std::vector<Tensor> joinable = {floats({2, 1, 3}), floats({2, 4, 3}, 50), floats({2, 0, 3})};
  const std::vector<Tensor> stackable = {floats({2, 3}), floats({2, 3}, 20), floats({2, 3}, 40)};
  struct Case {
    int64_t axis;
    bool new_axis;
    const std::vector<Tensor>* parts;
    size_t normalized;
  };
  const Case cases[] = {{1, false, &joinable, 1}, {-2, false, &joinable, 1}, {0, true, &stackable, 0},
                        {2, true, &stackable, 2}, {-1, true, &stackable, 2}, {1, false, &stackable, 1}};
  for (const Case& c : cases) {
    ModelBuilder m(13);
    m.typed_input("s", sequence_of(DType::F32)).output("y", DType::F32);
    m.node("ConcatFromSequence", {"s"}, {"y"},
           {Attr::i("axis", c.axis), Attr::i("new_axis", c.new_axis ? 1 : 0)});
    const auto out = m.run({{"s", pack_sequence(*c.parts, DType::F32)}});
    EXPECT_TRUE(same(out[0], concat_reference(*c.parts, c.normalized, c.new_axis)))
        << c.axis << " " << c.new_axis;
  }
  ModelBuilder m(13);
  m.typed_input("s", sequence_of(DType::F32)).output("y", DType::F32);
  m.node("ConcatFromSequence", {"s"}, {"y"}, {Attr::i("axis", 0)});
  EXPECT_EQ(error_kind([&] {
              m.run({{"s", pack_sequence(joinable, DType::F32)}});
            }),
            SessionError::Kind::InvalidInput);  // extents differ off the axis
  EXPECT_EQ(error_kind([&] {
              m.run({{"s", pack_sequence({}, DType::F32)}});
            }),
            SessionError::Kind::InvalidInput);
  ModelBuilder missing(13);
  missing.typed_input("s", sequence_of(DType::F32)).output("y", DType::F32);
  missing.node("ConcatFromSequence", {"s"}, {"y"});
  EXPECT_EQ(error_kind([&] { missing.session(); }), SessionError::Kind::InvalidModel);
}

TEST(SequenceOps, OptionalOfATensor) {
  ModelBuilder m(15);
  m.input("x", DType::F32, {-1}).typed_output("o", optional_of(tensor_type_of(DType::F32)));
  m.output("has", DType::Bool).output("got", DType::F32);
  m.node("Optional", {"x"}, {"o"}).node("OptionalHasElement", {"o"}, {"has"});
  m.node("OptionalGetElement", {"o"}, {"got"});
  const Tensor x = floats({5}, 3);
  const auto out = m.run({{"x", x}});
  const UnpackedOptional o = unpack_optional(out[0]);
  ASSERT_EQ(o.content, OptionalContent::Tensor);
  EXPECT_TRUE(same(o.tensor, x));
  EXPECT_EQ(out[1].to_vector<bool>(), std::vector<bool>{true});
  EXPECT_TRUE(same(out[2], x));
}

TEST(SequenceOps, OptionalInputs) {
  ModelBuilder m(15);
  m.typed_input("o", optional_of(sequence_of(DType::F32))).output("has", DType::Bool);
  m.typed_output("got", sequence_of(DType::F32));
  m.node("OptionalHasElement", {"o"}, {"has"}).node("OptionalGetElement", {"o"}, {"got"}, {}, "get");
  Session s = m.session();
  const std::vector<Tensor> xs = {floats({2}), floats({2, 2})};
  const auto out = s.run({{"o", pack_optional_sequence(xs, DType::F32)}});
  EXPECT_EQ(out[0].to_vector<bool>(), std::vector<bool>{true});
  expect_same_elements(unpack_sequence(out[1]), xs);

  std::string message, node;
  EXPECT_EQ(error_kind(
                [&] {
                  s.run({{"o", pack_optional()}});
                },
                &message, &node),
            SessionError::Kind::InvalidInput);
  EXPECT_EQ(node, "get");
  EXPECT_NE(message.find("empty"), std::string::npos) << message;

  ModelBuilder has(15);
  has.typed_input("o", optional_of(sequence_of(DType::F32))).output("has", DType::Bool);
  has.node("OptionalHasElement", {"o"}, {"has"});
  EXPECT_EQ(has.run({{"o", pack_optional()}})[0].to_vector<bool>(), std::vector<bool>{false});
}

TEST(SequenceOps, EmptyOptional) {
  ModelBuilder m(15);
  m.typed_output("o", optional_of(tensor_type_of(DType::F32))).output("has", DType::Bool);
  m.node("Optional", {}, {"o"}).node("OptionalHasElement", {"o"}, {"has"});
  const auto out = m.run({});
  EXPECT_EQ(unpack_optional(out[0]).content, OptionalContent::None);
  EXPECT_EQ(out[1].to_vector<bool>(), std::vector<bool>{false});
}

// From opset 18 plain tensors count as present and pass through; an omitted input is an empty optional.
TEST(SequenceOps, Opset18PlainValues) {
  ModelBuilder m(18);
  m.input("x", DType::F32, {-1})
      .output("has", DType::Bool)
      .output("none", DType::Bool)
      .output("got", DType::F32);
  m.node("OptionalHasElement", {"x"}, {"has"}).node("OptionalHasElement", {""}, {"none"});
  m.node("OptionalGetElement", {"x"}, {"got"});
  const Tensor x = floats({4}, 1);
  const auto out = m.run({{"x", x}});
  EXPECT_EQ(out[0].to_vector<bool>(), std::vector<bool>{true});
  EXPECT_EQ(out[1].to_vector<bool>(), std::vector<bool>{false});
  EXPECT_TRUE(same(out[2], x));

  ModelBuilder seq(18);
  seq.typed_input("s", sequence_of(DType::F32)).typed_output("got", sequence_of(DType::F32));
  seq.node("OptionalGetElement", {"s"}, {"got"});
  const std::vector<Tensor> xs = {floats({3})};
  expect_same_elements(unpack_sequence(seq.run({{"s", pack_sequence(xs, DType::F32)}})[0]), xs);

  ModelBuilder old(15);
  old.input("x", DType::F32, {-1}).output("got", DType::F32).node("OptionalGetElement", {"x"}, {"got"});
  EXPECT_EQ(error_kind([&] { old.session(); }), SessionError::Kind::InvalidModel);
}

TEST(SequenceOps, CorruptPackedInputsAreRefused) {
  ModelBuilder m(13);
  m.typed_input("s", sequence_of(DType::F32))
      .output("n", DType::I64)
      .node("SequenceLength", {"s"}, {"n"}, {}, "len");
  Session s = m.session();
  const Tensor good = pack_sequence(std::vector<Tensor>{floats({3})}, DType::F32);
  std::vector<uint8_t> cut(static_cast<const uint8_t*>(good.raw()),
                           static_cast<const uint8_t*>(good.raw()) + good.byte_size() - 8);
  std::string message, node;
  EXPECT_EQ(error_kind(
                [&] {
                  s.run({{"s", Tensor::from<uint8_t>(cut, {static_cast<int64_t>(cut.size())})}});
                },
                &message, &node),
            SessionError::Kind::InvalidInput);
  EXPECT_EQ(node, "len");
  EXPECT_NE(message.find("packed value"), std::string::npos) << message;
  EXPECT_EQ(error_kind([&] {
              s.run({{"s", Tensor::from<uint8_t>({1, 2, 3}, {3})}});
            }),
            SessionError::Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { s.run({{"s", pack_optional()}}); }), SessionError::Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { s.run({{"s", floats({3})}}); }), SessionError::Kind::InvalidInput);
}

// Byte copies only: exact mode gives the same bytes as fast mode, on every kernel path.
TEST(SequenceOps, ExactMatchesFast) {
  ModelBuilder m(13);
  m.input("x", DType::F32, {2, 6}).input("split", DType::I64, {2}).output("y", DType::F32);
  m.node("SplitToSequence", {"x", "split"}, {"s"}, {Attr::i("axis", 1)});
  m.node("ConcatFromSequence", {"s"}, {"y"}, {Attr::i("axis", 0), Attr::i("new_axis", 1)});
  const Tensor x = floats({2, 6}, -3);
  const std::vector<NamedTensor> feeds = {{"x", x}, {"split", Tensor::from<int64_t>({3, 3}, {2})}};
  const Tensor fast = m.run(feeds)[0];
  EXPECT_TRUE(
      same(fast, concat_reference({slice_axis(x, 1, 0, 3, false), slice_axis(x, 1, 3, 3, false)}, 0, true)));
  for (const std::string& path : kernel_paths()) {
    EXPECT_TRUE(same(m.run(feeds, options(ExecutionMode::Exact, path, 1))[0], fast)) << path;
  }
}

}  // namespace
}  // namespace onemodel::test
