// String tensors: the Tensor API, strings through sessions (inputs, outputs, constants, element-moving
// operators), Cast to and from strings (numpy's layout, locale-free, round trips), StringNormalizer, and the
// places that refuse strings cleanly.
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "onemodel/hash.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

// A TensorProto of strings (string_data, field 6).
Proto string_tensor_proto(std::string_view name, const std::vector<std::string>& values,
                          std::vector<int64_t> dims) {
  Proto p;
  for (int64_t d : dims) p.varint(1, static_cast<uint64_t>(d));
  p.varint(2, static_cast<uint64_t>(DType::String));
  for (const std::string& v : values) p.bytes(6, v);
  return p.bytes(8, name);
}

TEST(StringTensor, ApiKeepsTheTextAndHashesIt) {
  const Tensor t = Tensor::from_strings(std::vector<std::string>{"a", "", "h\xC3\xA9llo"}, {3});
  EXPECT_EQ(t.dtype(), DType::String);
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"a", "", "h\xC3\xA9llo"}));
  EXPECT_EQ(t.string(2), "h\xC3\xA9llo");
  EXPECT_EQ(error_kind([&] { (void)t.string(3); }), SessionError::Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { (void)t.data<float>(); }), SessionError::Kind::InvalidInput);
  EXPECT_EQ(Tensor(DType::String, {2}).strings(), (std::vector<std::string>{"", ""}));
  // The hash reads the text, not where it is stored.
  const Tensor same = Tensor::from_strings(std::vector<std::string>{"a", "", "h\xC3\xA9llo"}, {3});
  EXPECT_EQ(output_hash(t), output_hash(same));
  EXPECT_NE(output_hash(t),
            output_hash(Tensor::from_strings(std::vector<std::string>{"a", "h", "\xC3\xA9llo"}, {3})));
}

TEST(StringTensor, ThroughSessionsAndElementMoves) {
  ModelBuilder m(13);
  m.input("x", DType::String, {2, 2}).output("y", DType::String).output("z", DType::String);
  m.output("t", DType::String);
  m.initializer("idx", Tensor::from<int64_t>({1, 0}, {2}));
  m.node("Gather", {"x", "idx"}, {"y"}, {Attr::i("axis", 0)});
  m.node("Concat", {"x", "y"}, {"z"}, {Attr::i("axis", 0)});
  m.node("Transpose", {"x"}, {"t"});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Session s = m.session(options(mode));
    std::vector<Tensor> out;
    {
      // The input tensor is gone before the outputs are read: they own their text.
      const Tensor x = Tensor::from_strings(std::vector<std::string>{"a", "bb", "ccc", ""}, {2, 2});
      out = s.run({{"x", x}});
    }
    EXPECT_EQ(out[0].strings(), (std::vector<std::string>{"ccc", "", "a", "bb"}));
    EXPECT_EQ(out[1].strings(), (std::vector<std::string>{"a", "bb", "ccc", "", "ccc", "", "a", "bb"}));
    EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{4, 2}));
    EXPECT_EQ(out[2].strings(), (std::vector<std::string>{"a", "ccc", "bb", ""}));
  }
}

// The copy kernels that switch on the element size (Slice, Tile and Pad go through mapped_copy, Transpose
// has its own tiles): 16-byte handles move whole.
TEST(StringTensor, SizeSwitchedCopiesMoveWholeHandles) {
  ModelBuilder m(13);
  m.input("x", DType::String, {2, 2}).output("s", DType::String).output("t", DType::String);
  m.output("p", DType::String);
  m.initializer("starts", Tensor::from<int64_t>({1}, {1}))
      .initializer("ends", Tensor::from<int64_t>({2}, {1}));
  m.initializer("axes", Tensor::from<int64_t>({1}, {1}))
      .initializer("reps", Tensor::from<int64_t>({1, 2}, {2}));
  m.initializer("pads", Tensor::from<int64_t>({0, 1, 0, 0}, {4}));
  m.node("Slice", {"x", "starts", "ends", "axes"}, {"s"});
  m.node("Tile", {"x", "reps"}, {"t"});
  m.node("Pad", {"x", "pads"}, {"p"}, {Attr::s("mode", "edge")});
  const auto out =
      m.run({{"x", Tensor::from_strings(std::vector<std::string>{"a", "bb", "ccc", "dddd"}, {2, 2})}});
  EXPECT_EQ(out[0].strings(), (std::vector<std::string>{"bb", "dddd"}));
  EXPECT_EQ(out[1].strings(), (std::vector<std::string>{"a", "bb", "a", "bb", "ccc", "dddd", "ccc", "dddd"}));
  EXPECT_EQ(out[2].strings(), (std::vector<std::string>{"a", "a", "bb", "ccc", "ccc", "dddd"}));
}

// A string initializer (string_data: ModelBuilder's raw_data cannot hold strings) and Constant's
// value_strings.
TEST(StringTensor, StringDataInitializerAndConstantAttribute) {
  ModelBuilder m(13);
  m.output("y", DType::String).output("v", DType::String);
  Proto graph = m.graph();
  graph.msg(5, string_tensor_proto("w", {"x", "yz"}, {2}));
  // Reshape of the initializer folds into a copy at session creation, and the initializer is then dropped.
  graph.msg(5, tensor_proto("shape", Tensor::from<int64_t>({1, 2}, {2})));
  graph.msg(1, onnxb::node("Reshape", {"w", "shape"}, {"r"}, ""));
  graph.msg(1, onnxb::node("Identity", {"r"}, {"y"}, ""));
  Proto constant = onnxb::node("Constant", {}, {"v"}, "");
  constant.msg(5, Proto().bytes(1, "value_strings").bytes(9, "p").bytes(9, "q").varint(20, 8));
  graph.msg(1, constant);
  const std::vector<std::byte> bytes = onnxb::model(graph, 8, 13).data();
  Session s = Session::load(std::span<const std::byte>(bytes));
  const auto out = s.run({});
  EXPECT_EQ(out[0].strings(), (std::vector<std::string>{"x", "yz"}));
  EXPECT_EQ(out[1].strings(), (std::vector<std::string>{"p", "q"}));
}

std::vector<std::string> cast_to_strings(const Tensor& x, const SessionOptions& o = {}) {
  ModelBuilder m(13);
  m.input("x", x.dtype(), x.shape()).output("y", DType::String);
  m.node("Cast", {"x"}, {"y"}, {Attr::i("to", static_cast<int64_t>(DType::String))});
  return m.run({{"x", x}}, o)[0].strings();
}

Tensor cast_from_strings(const std::vector<std::string>& text, DType to, const SessionOptions& o = {}) {
  ModelBuilder m(13);
  m.input("x", DType::String, {static_cast<int64_t>(text.size())}).output("y", to);
  m.node("Cast", {"x"}, {"y"}, {Attr::i("to", static_cast<int64_t>(to))});
  return m.run({{"x", Tensor::from_strings(text, {static_cast<int64_t>(text.size())})}}, o)[0];
}

TEST(CastStrings, NumbersPrintAsNumpyDoes) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(cast_to_strings(Tensor::from<float>({0.1f, 3.0f, -0.0f, 1e-5f, 1.5e-5f, 123456789.0f, 0.0001f,
                                                 1e16f, 1e-45f, 0.039187793f, std::nanf(""), inf, -inf},
                                                {13})),
            (std::vector<std::string>{"0.1", "3.0", "-0.0", "1e-05", "1.5e-05", "123456790.0", "0.0001",
                                      "1e+16", "1e-45", "0.039187793", "NaN", "INF", "-INF"}));
  // Powers of two, where the nearest 8-digit decimal does not read back but the next one up does.
  EXPECT_EQ(cast_to_strings(Tensor::from<float>(
                {__builtin_bit_cast(float, 0x0f800000u), __builtin_bit_cast(float, 0x6b000000u)}, {2})),
            (std::vector<std::string>{"1.2621775e-29", "1.5474251e+26"}));
  EXPECT_EQ(cast_to_strings(Tensor::from<double>({0.1, 1.0 / 3, 1e300}, {3})),
            (std::vector<std::string>{"0.1", "0.3333333333333333", "1e+300"}));
  EXPECT_EQ(cast_to_strings(Tensor::from<int64_t>({-5, 0, std::numeric_limits<int64_t>::min()}, {3})),
            (std::vector<std::string>{"-5", "0", "-9223372036854775808"}));
  EXPECT_EQ(cast_to_strings(Tensor::from<uint8_t>({255}, {1})), (std::vector<std::string>{"255"}));
  EXPECT_EQ(error_kind([] { cast_to_strings(Tensor(DType::Bool, {1})); }), SessionError::Kind::Unsupported);
}

TEST(CastStrings, TextReadsAsNumbers) {
  const auto y =
      cast_from_strings({"1e-5", " 3.14 ", "+INF", "-inf", "NaN", "Hello", ".5", "1E8", "0x10", "-0"},
                        DType::F32)
          .to_vector<float>();
  EXPECT_EQ(y[0], 1e-5f);
  EXPECT_EQ(y[1], 3.14f);
  EXPECT_EQ(y[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[3], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[4]));
  EXPECT_TRUE(std::isnan(y[5]));  // not a number: NaN, never an error
  EXPECT_EQ(y[6], 0.5f);
  EXPECT_EQ(y[7], 1e8f);
  EXPECT_TRUE(std::isnan(y[8]));
  EXPECT_TRUE(std::signbit(y[9]));
  // Other targets go through double and Cast's own rules: truncation for integers.
  EXPECT_EQ(cast_from_strings({"100.5", "-7"}, DType::I32).to_vector<int32_t>(),
            (std::vector<int32_t>{100, -7}));
  EXPECT_EQ(cast_from_strings({"0.1"}, DType::F64).to_vector<double>()[0], 0.1);
}

TEST(CastStrings, RoundTripIsExactInBothModesAndThreadCounts) {
  std::mt19937 rng(11);
  std::vector<float> values(5000);
  for (auto& v : values) {
    uint32_t bits = rng();
    v = __builtin_bit_cast(float, bits);
    if (std::isnan(v)) v = 1.0f;
  }
  const Tensor x = Tensor::from<float>(values, {5000});
  const auto text = cast_to_strings(x, options(ExecutionMode::Fast, {}, 1));
  EXPECT_EQ(text, cast_to_strings(x, options(ExecutionMode::Exact, {}, 2)));
  const Tensor back = cast_from_strings(text, DType::F32, options(ExecutionMode::Exact, {}, 2));
  EXPECT_TRUE(same_bytes(back, x));
  EXPECT_TRUE(same_bytes(back, cast_from_strings(text, DType::F32, options(ExecutionMode::Fast, {}, 1))));
}

TEST(CastStrings, ReadingIgnoresTheCLocale) {
  // Where a locale with a decimal comma exists, switching to it must not change what "0.5" reads as.
  const char* previous = std::setlocale(LC_NUMERIC, nullptr);
  const std::string saved = previous != nullptr ? previous : "C";
  const bool comma = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
  const float half = cast_from_strings({"0.5"}, DType::F32).to_vector<float>()[0];
  const auto text = cast_to_strings(Tensor::from<float>({0.25f}, {1}));
  std::setlocale(LC_NUMERIC, saved.c_str());
  EXPECT_EQ(half, 0.5f) << (comma ? "de_DE" : "C");
  EXPECT_EQ(text, (std::vector<std::string>{"0.25"}));
}

std::vector<std::string> normalize(const std::vector<std::string>& words, std::vector<int64_t> dims,
                                   std::vector<Attr> attrs) {
  ModelBuilder m(10);
  m.input("x", DType::String, dims).output("y", DType::String);
  m.node("StringNormalizer", {"x"}, {"y"}, attrs);
  return m.run({{"x", Tensor::from_strings(words, dims)}})[0].strings();
}

TEST(StringNormalizerOp, CaseChangeBeyondAscii) {
  // Hex escapes end where a non-hex character starts: letters a-f after one are split into a new literal.
  const std::vector<std::string> words = {
      "Stra\xC3\x9F"
      "e",
      "\xC3\x9C"
      "ber",
      "\xCE\x91\xCE\xB2",
      "\xD0\x94\xD0\xB6",
      "\xC5\x81\xC3\xB3"
      "d\xC5\xBA",
      "bad\xFF"
      "byte"};
  EXPECT_EQ(normalize(words, {6}, {Attr::s("case_change_action", "UPPER")}),
            (std::vector<std::string>{"STRA\xC3\x9F"
                                      "E",
                                      "\xC3\x9C"
                                      "BER",
                                      "\xCE\x91\xCE\x92", "\xD0\x94\xD0\x96",
                                      "\xC5\x81\xC3\x93"
                                      "D\xC5\xB9",
                                      "BAD\xFF"
                                      "BYTE"}));
  EXPECT_EQ(normalize(words, {6}, {Attr::s("case_change_action", "LOWER")}),
            (std::vector<std::string>{"stra\xC3\x9F"
                                      "e",
                                      "\xC3\xBC"
                                      "ber",
                                      "\xCE\xB1\xCE\xB2", "\xD0\xB4\xD0\xB6",
                                      "\xC5\x82\xC3\xB3"
                                      "d\xC5\xBA",
                                      "bad\xFF"
                                      "byte"}));
}

TEST(StringNormalizerOp, StopwordsAndShapes) {
  const std::vector<Attr> insensitive = {Attr::strings("stopwords", {"\xC3\x9C"
                                                                     "ber",
                                                                     "the"})};
  EXPECT_EQ(normalize({"THE",
                       "\xC3\xBC"
                       "BER",
                       "cat"},
                      {1, 3}, insensitive),
            (std::vector<std::string>{"cat"}));
  const std::vector<Attr> sensitive = {Attr::strings("stopwords", {"the"}), Attr::i("is_case_sensitive", 1)};
  EXPECT_EQ(normalize({"THE", "the", "cat"}, {3}, sensitive), (std::vector<std::string>{"THE", "cat"}));
  // Everything dropped: one empty string, [1] or [1, 1].
  ModelBuilder m(10);
  m.input("x", DType::String, {1, 2}).output("y", DType::String);
  m.node("StringNormalizer", {"x"}, {"y"}, insensitive);
  const auto out = m.run({{"x", Tensor::from_strings(std::vector<std::string>{"the", "The"}, {1, 2})}});
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(out[0].strings(), (std::vector<std::string>{""}));
  EXPECT_NE(error_kind([] { normalize({"a", "b"}, {2, 1}, {}); }), SessionError::Kind::Unsupported);
  EXPECT_NE(error_kind([] { normalize({"a"}, {1}, {Attr::s("case_change_action", "TITLE")}); }),
            SessionError::Kind::Unsupported);
}

// If's branch makes text in its own run: the node's output holds a copy, valid after the branch run ends.
TEST(StringTensor, IfBranchesReturnText) {
  ModelBuilder then_branch(13), else_branch(13);
  then_branch.output("t", DType::String);
  then_branch.node("Cast", {"num"}, {"t"}, {Attr::i("to", static_cast<int64_t>(DType::String))});
  else_branch.output("e", DType::String);
  else_branch.node("Identity", {"words"}, {"e"});
  ModelBuilder m(13);
  m.input("c", DType::Bool, {}).input("num", DType::F32, {2}).input("words", DType::String, {2});
  m.output("y", DType::String);
  m.node("If", {"c"}, {"y"},
         {Attr::graph("then_branch", then_branch.graph("then")),
          Attr::graph("else_branch", else_branch.graph("else"))});
  const Tensor words = Tensor::from_strings(std::vector<std::string>{"p", "q"}, {2});
  for (bool c : {true, false}) {
    Tensor cond(DType::Bool, {});
    *static_cast<uint8_t*>(cond.raw()) = c;
    const auto out = m.run({{"c", cond}, {"num", Tensor::from<float>({0.5f, 2}, {2})}, {"words", words}});
    EXPECT_EQ(out[0].strings(),
              c ? (std::vector<std::string>{"0.5", "2.0"}) : (std::vector<std::string>{"p", "q"}));
  }
}

TEST(StringTensor, RefusedWhereTheTextCouldNotFollow) {
  // Arithmetic and comparisons do not take strings: refused as unsupported, never computed on handles.
  ModelBuilder eq(13);
  eq.input("a", DType::String, {1}).input("b", DType::String, {1}).output("y", DType::Bool);
  eq.node("Equal", {"a", "b"}, {"y"});
  const Tensor one = Tensor::from_strings(std::vector<std::string>{"a"}, {1});
  EXPECT_EQ(error_kind([&] { eq.run({{"a", one}, {"b", one}}); }), SessionError::Kind::Unsupported);
  // Sequences are packed bytes: a string's handle cannot be packed.
  ModelBuilder seq(13);
  seq.input("a", DType::String, {1});
  seq.typed_output("s", Proto().msg(4, Proto().msg(1, Proto().msg(1, Proto().varint(1, 8)))));
  seq.node("SequenceConstruct", {"a"}, {"s"});
  EXPECT_EQ(error_kind([&] { seq.run({{"a", one}}); }), SessionError::Kind::Unsupported);
}

}  // namespace
}  // namespace onemodel::test
