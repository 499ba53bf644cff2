// The manifest's JSON reader (src/format/json.h): values, escapes, exact integers and the errors of RFC 8259,
// checked against hand-written documents.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "format/json.h"

namespace onemodel::format {
namespace {

// The document views `text`: callers pass literals or strings that outlive it.
JsonDocument parse(std::string_view text) {
  return parse_json(text, 64, "test");
}

// The error a document is refused with, as "Kind@offset".
std::string refusal(const std::string& text) {
  try {
    parse(text);
  } catch (const ImportError& e) {
    return std::string(e.kind_name()) + "@" + std::to_string(e.offset());
  }
  return "accepted";
}

TEST(JsonReader, FindsMembersAndWalksNestedArrays) {
  const std::string text = R"( {"a": [1, [2, 3], {"b": null}, -4], "c": "x", "d": {"e": [ ]}} )";
  const JsonDocument doc = parse(text);
  const JsonValue root = doc.root();
  ASSERT_EQ(root.kind(), JsonKind::Object);
  EXPECT_EQ(root.size(), 3u);
  EXPECT_EQ(root.offset(), 64 + 1);
  const JsonValue a = root.find("a");
  ASSERT_TRUE(a);
  ASSERT_EQ(a.kind(), JsonKind::Array);
  EXPECT_EQ(a.offset(), 64 + static_cast<int64_t>(text.find('[')));
  std::vector<JsonKind> kinds;
  for (const JsonValue item : a.items()) kinds.push_back(item.kind());
  EXPECT_EQ(kinds,
            (std::vector<JsonKind>{JsonKind::Integer, JsonKind::Array, JsonKind::Object, JsonKind::Integer}));
  std::vector<int64_t> last;
  for (const JsonValue item : a.items()) {
    if (item.kind() == JsonKind::Integer) last.push_back(item.integer());
  }
  EXPECT_EQ(last, (std::vector<int64_t>{1, -4}));
  EXPECT_EQ(root.find("c").text(), "x");
  const JsonValue e = root.find("d").find("e");
  ASSERT_TRUE(e);
  EXPECT_EQ(e.size(), 0u);
  EXPECT_FALSE(e.items().begin() != e.items().end());
  EXPECT_FALSE(root.find("b"));  // only direct members are found
  EXPECT_FALSE(root.find("missing"));
}

TEST(JsonReader, DecodesEscapesIncludingSurrogatePairs) {
  const JsonDocument doc =
      parse(R"({"s": "q\"b\\s\/n\nt\tu\u00e9\ud83d\ude00", "plain": "abc", "k\u0065y": 1})");
  EXPECT_EQ(doc.root().find("s").text(), "q\"b\\s/n\nt\tu\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(doc.root().find("plain").text(), "abc");
  EXPECT_EQ(doc.root().find("key").integer(), 1);  // keys are compared decoded
}

TEST(JsonReader, IntegersAreExactTo64BitsAndOtherNumbersAreNotIntegers) {
  const JsonDocument doc =
      parse(R"({"max": 9223372036854775807, "min": -9223372036854775808, "over": 9223372036854775808,)"
            R"( "frac": 1.5, "exp": 1e3, "zero": -0, "big": 4294967296})");
  const JsonValue root = doc.root();
  EXPECT_EQ(root.find("max").integer(), INT64_MAX);
  EXPECT_EQ(root.find("min").integer(), INT64_MIN);
  EXPECT_EQ(root.find("big").integer(), int64_t{1} << 32);
  EXPECT_EQ(root.find("zero").integer(), 0);
  EXPECT_EQ(root.find("over").kind(), JsonKind::Number);
  EXPECT_EQ(root.find("frac").kind(), JsonKind::Number);
  EXPECT_EQ(root.find("exp").kind(), JsonKind::Number);
}

TEST(JsonReader, RefusesWhatRfc8259RefusesAtTheOffendingByte) {
  EXPECT_EQ(refusal(R"([1])"), "Malformed@64");
  EXPECT_EQ(refusal(R"({"a":1} x)"), "Malformed@72");
  EXPECT_EQ(refusal(R"({"a":01})"), "Malformed@69");
  EXPECT_EQ(refusal(R"({"a":"\q"})"), "Malformed@72");
  EXPECT_EQ(refusal("{\"a\":\"x\ty\"}"), "Malformed@71");
  EXPECT_EQ(refusal(R"({"a":"\udc00"})"), "Malformed@76");
  EXPECT_EQ(refusal(R"({"a":[1,]})"), "Malformed@72");
  EXPECT_EQ(refusal(R"({"a":1,"a":2})"), "Malformed@64");  // duplicate keys: reported at the object
  EXPECT_EQ(refusal(R"({"a":tru})"), "Malformed@69");
  EXPECT_EQ(refusal(R"({"a":"x)"), "Malformed@71");
  std::string deep = "{\"a\":";
  for (int k = 0; k < kMaxJsonDepth; ++k) deep += '[';
  EXPECT_EQ(refusal(deep), "Unsupported@" + std::to_string(64 + deep.size() - 1));
}

}  // namespace
}  // namespace onemodel::format
