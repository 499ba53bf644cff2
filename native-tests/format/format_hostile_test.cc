// Hostile .onemodel files generated from code (format.md §3.1), each named <Kind>-<case> and refused with
// that kind. Every read happens from a buffer that ends right at an inaccessible page, so a read past the end
// of any file crashes the test instead of going unnoticed.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "format/format.h"
#include "onemodel/onemodel.h"

namespace onemodel::test {
namespace {

using Kind = ImportError::Kind;

// A copy of `bytes` whose last byte is the last readable byte before a PROT_NONE page.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::span<const std::byte> bytes) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t pages = (bytes.size() + page - 1) / page;
    size_ = (pages + 1) * page;
    base_ = static_cast<std::byte*>(
        ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap failed");
    std::byte* guard = base_ + pages * page;
    ::mprotect(guard, page, PROT_NONE);
    data_ = guard - bytes.size();
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
    view_ = {data_, bytes.size()};
  }
  ~GuardedBuffer() { ::munmap(base_, size_); }
  std::span<const std::byte> bytes() const { return view_; }

 private:
  std::byte* base_ = nullptr;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  std::span<const std::byte> view_;
};

void put_u64(std::vector<std::byte>& file, size_t at, uint64_t v) {
  for (int b = 0; b < 8; ++b) file[at + b] = static_cast<std::byte>(v >> (8 * b));
}

// A file laid out as format.md §1 says, around any manifest text and data region.
std::vector<std::byte> assemble(std::string_view manifest, std::span<const std::byte> data) {
  const size_t data_offset = (64 + manifest.size() + 63) / 64 * 64;
  std::vector<std::byte> file(data_offset + data.size());
  std::memcpy(file.data(), "ONEMODEL", 8);
  file[8] = std::byte{1};
  put_u64(file, 16, 64);
  put_u64(file, 24, manifest.size());
  put_u64(file, 32, data_offset);
  put_u64(file, 40, data.size());
  put_u64(file, 48, file.size());
  std::memcpy(file.data() + 64, manifest.data(), manifest.size());
  if (!data.empty()) std::memcpy(file.data() + data_offset, data.data(), data.size());
  return file;
}

// x (float[2]) + w -> s, LeakyRelu(alpha 0.5) -> y; w = [0.5, 1.0] in the data region.
const std::string kManifest =
    R"({"format":"onemodel","version":1,"ir_version":8,"opsets":[{"domain":"","version":17}],)"
    R"("graph":{"name":"g","inputs":[{"name":"x","type":{"kind":"tensor","elem":1,"shape":[2]}}],)"
    R"("outputs":[{"name":"y","type":{"kind":"tensor","elem":1,"shape":[2]}}],"value_info":[],)"
    R"("initializers":[{"name":"w","dtype":1,"dims":[2],"data":{"offset":0,"length":8}}],)"
    R"("sparse_initializers":[],"nodes":[{"name":"add","op":"Add","domain":"","overload":"","inputs":["x","w"],)"
    R"("outputs":["s"],"attributes":[]},{"name":"leaky","op":"LeakyRelu","domain":"","overload":"",)"
    R"("inputs":["s"],"outputs":["y"],"attributes":[{"name":"alpha","type":1,"value":1056964608}]}]},)"
    R"("functions":[]})";

std::vector<std::byte> weights() {
  const float w[2] = {0.5f, 1.0f};
  std::vector<std::byte> out(8);
  std::memcpy(out.data(), w, 8);
  return out;
}

std::vector<std::byte> good_file() {
  return assemble(kManifest, weights());
}

// The manifest with the first occurrence of `from` replaced (which must be there), in a consistent file.
std::vector<std::byte> edited(std::string_view from, std::string_view to) {
  std::string m = kManifest;
  const size_t at = m.find(from);
  if (at == std::string::npos) throw std::logic_error("hostile case edits text that is not in the manifest");
  m.replace(at, from.size(), to);
  return assemble(m, weights());
}

std::vector<std::byte> header_u64(size_t at, uint64_t v) {
  auto f = good_file();
  put_u64(f, at, v);
  return f;
}

std::vector<std::byte> header_byte(size_t at, uint8_t v) {
  auto f = good_file();
  f[at] = static_cast<std::byte>(v);
  return f;
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// A node holding `depth` graphs nested through If attributes.
std::string nested_graph_attribute(int depth) {
  std::string g = R"({"name":"inner","outputs":[{"name":"x"}],"nodes":[]})";
  for (int i = 1; i < depth; ++i) {
    g = R"({"outputs":[{"name":"x"}],"nodes":[{"op":"If","inputs":["x"],"outputs":["z"],"attributes":[{"name":"then_branch","type":5,"value":)" +
        g + "}]}]}";
  }
  return g;
}

struct FormatCase {
  std::string name;
  std::vector<std::byte> bytes;
  Kind kind;
};

std::vector<FormatCase> format_cases() {
  std::vector<FormatCase> c;
  const auto add = [&](std::string name, std::vector<std::byte> bytes) {
    const std::string kind = name.substr(0, name.find('-'));
    const Kind k = kind == "Malformed"      ? Kind::Malformed
                   : kind == "InvalidModel" ? Kind::InvalidModel
                                            : Kind::Unsupported;
    c.push_back({std::move(name), std::move(bytes), k});
  };
  const auto good = good_file();
  const uint64_t big = uint64_t{1} << 63;

  // Header (format.md §1.1).
  add("Malformed-empty-file", {});
  add("Malformed-truncated-header", std::vector<std::byte>(good.begin(), good.begin() + 63));
  add("Malformed-bad-magic", header_byte(0, 'X'));
  add("Malformed-lowercase-magic", [&] {
    auto f = good;
    std::memcpy(f.data(), "onemodel", 8);
    return f;
  }());
  add("Unsupported-version-2", header_byte(8, 2));
  add("Unsupported-version-0", header_byte(8, 0));
  add("Unsupported-flags-1", header_byte(12, 1));
  add("Unsupported-flags-high-bit", header_byte(15, 0x80));
  add("Malformed-manifest-offset-128", header_u64(16, 128));
  add("Malformed-manifest-length-past-end", header_u64(24, good.size()));
  add("Malformed-manifest-length-above-2p63", header_u64(24, big));
  add("Malformed-data-offset-misaligned", header_u64(32, 65));
  add("Malformed-data-offset-inside-manifest", header_u64(32, 64));
  add("Malformed-data-offset-past-end", header_u64(32, good.size() + 64));
  add("Malformed-data-offset-above-2p63", header_u64(32, big));
  add("Malformed-data-length-short", header_u64(40, 4));
  add("Malformed-data-length-long", header_u64(40, 9));
  add("Malformed-data-length-wraps", header_u64(40, ~uint64_t{0} - 7));
  add("Malformed-file-truncated", std::vector<std::byte>(good.begin(), good.end() - 1));
  add("Malformed-file-extended", [&] {
    auto f = good;
    f.push_back(std::byte{0});
    return f;
  }());
  add("Malformed-file-length-above-2p63", header_u64(48, big | good.size()));
  add("Malformed-reserved-nonzero", header_byte(60, 1));
  add("Malformed-padding-nonzero", [&] {
    auto f = good;
    f[64 + kManifest.size()] = std::byte{' '};
    return f;
  }());

  // JSON syntax (RFC 8259, format.md §1.2).
  add("Malformed-json-array-manifest", assemble("[]", weights()));
  add("Malformed-json-empty-manifest", assemble("", weights()));
  add("Malformed-json-truncated",
      assemble(std::string_view(kManifest).substr(0, kManifest.size() - 2), weights()));
  add("Malformed-json-trailing-bytes", assemble(kManifest + "x", weights()));
  add("Malformed-json-two-objects", assemble(kManifest + "{}", weights()));
  add("Malformed-json-byte-order-mark", assemble("\xEF\xBB\xBF" + kManifest, weights()));
  add("Malformed-json-invalid-utf8", edited(R"("name":"g")", "\"name\":\"\xC3\x28\""));
  add("Malformed-json-overlong-utf8", edited(R"("name":"g")", "\"name\":\"\xC0\xAF\""));
  add("Malformed-json-control-character", edited(R"("name":"g")", "\"name\":\"a\tb\""));
  add("Malformed-json-bad-escape", edited(R"("name":"g")", R"("name":"\q")"));
  add("Malformed-json-lone-surrogate", edited(R"("name":"g")", R"("name":"\ud800")"));
  add("Malformed-json-short-unicode-escape", edited(R"("name":"g")", R"("name":"\u12")"));
  add("Malformed-json-trailing-comma", edited(R"("functions":[])", R"("functions":[],)"));
  add("Malformed-json-trailing-comma-in-array", edited(R"("inputs":["x","w"])", R"("inputs":["x","w",])"));
  add("Malformed-json-single-quotes", edited(R"("name":"g")", R"('name':'g')"));
  add("Malformed-json-missing-colon", edited(R"("name":"g")", R"("name" "g")"));
  add("Malformed-json-leading-zero", edited(R"("ir_version":8)", R"("ir_version":08)"));
  add("Malformed-json-plus-sign", edited(R"("ir_version":8)", R"("ir_version":+8)"));
  add("Malformed-json-nan-literal", edited(R"("ir_version":8)", R"("ir_version":NaN)"));
  add("Malformed-json-bare-word", edited(R"("ir_version":8)", R"("ir_version":eight)"));
  add("Malformed-json-duplicate-key", edited(R"("ir_version":8)", R"("ir_version":8,"ir_version":9)"));
  add("Malformed-json-duplicate-key-in-node", edited(R"("name":"add")", R"("name":"add","name":"again")"));
  add("Unsupported-json-nesting-1025",
      edited(R"("functions":[])", R"("functions":[],"later":)" + repeat("[", 1100) + repeat("]", 1100)));

  // Values of the wrong JSON type or outside 64 bits.
  add("Malformed-integer-above-2p63", edited(R"("ir_version":8)", R"("ir_version":9223372036854775808)"));
  add("Malformed-integer-below-minus-2p63",
      edited(R"("ir_version":8)", R"("ir_version":-9223372036854775809)"));
  add("Malformed-integer-with-fraction", edited(R"("ir_version":8)", R"("ir_version":8.0)"));
  add("Malformed-integer-with-exponent", edited(R"("ir_version":8)", R"("ir_version":8e0)"));
  add("Malformed-integer-as-string", edited(R"("version":1,)", R"("version":"1",)"));
  add("Malformed-float-as-decimal", edited("\"value\":1056964608", "\"value\":0.5"));
  add("Malformed-float-bits-above-32", edited("\"value\":1056964608", "\"value\":4294967296"));
  add("Malformed-float-bits-negative", edited("\"value\":1056964608", "\"value\":-1"));
  add("Malformed-format-not-onemodel", edited(R"("format":"onemodel")", R"("format":"onnx")"));
  add("Malformed-format-missing", edited(R"("format":"onemodel",)", ""));
  add("Malformed-version-differs-from-header", edited(R"("version":1,)", R"("version":2,)"));
  add("Malformed-graph-missing", edited(R"("graph":{"name":"g",)", R"("other":{"name":"g",)"));
  add("Malformed-graph-not-object", edited(R"("graph":{"name":"g",)", R"("graph":[],"other":{"name":"g",)"));
  add("Malformed-nodes-not-array",
      edited(R"("nodes":[{"name":"add")", R"("nodes":{},"more":[{"name":"add")"));
  add("Malformed-node-without-op", edited(R"("op":"Add",)", ""));
  add("Malformed-node-input-not-string", edited(R"("inputs":["x","w"])", R"("inputs":["x",7])"));
  add("Malformed-input-not-object", edited(R"("inputs":[{"name":"x",)", R"("inputs":["x",{"name":"x",)"));
  add("Malformed-input-without-name", edited(R"({"name":"x","type")", R"({"type")"));
  add("Malformed-attribute-without-value", edited(R"(,"value":1056964608)", ""));
  add("Malformed-base64-bad-padding", edited(R"("type":1,"value":1056964608)", R"("type":3,"value":"a=b=")"));
  add("Malformed-base64-unpadded", edited(R"("type":1,"value":1056964608)", R"("type":3,"value":"YQ")"));
  add("Malformed-base64-stray-bits", edited(R"("type":1,"value":1056964608)", R"("type":3,"value":"YR==")"));
  add("Malformed-base64-bad-alphabet",
      edited(R"("type":1,"value":1056964608)", R"("type":3,"value":"Y-==")"));

  // Tensor ranges (format.md §2.5, §3.1).
  add("Malformed-tensor-without-data", edited(R"(,"data":{"offset":0,"length":8})", ""));
  add("Malformed-tensor-offset-misaligned", edited(R"("offset":0,"length":8)", R"("offset":8,"length":8)"));
  add("Malformed-tensor-past-data-region", edited(R"("offset":0,"length":8)", R"("offset":64,"length":8)"));
  add("Malformed-tensor-offset-negative", edited(R"("offset":0,"length":8)", R"("offset":-64,"length":8)"));
  add("Malformed-tensor-offset-near-2p63",
      edited(R"("offset":0,"length":8)", R"("offset":9223372036854775744,"length":8)"));
  add("Malformed-tensor-length-negative", edited(R"("dims":[2],"data":{"offset":0,"length":8})",
                                                 R"("dims":[0],"data":{"offset":0,"length":-8})"));
  add("InvalidModel-tensor-length-mismatch", edited(R"("offset":0,"length":8)", R"("offset":0,"length":4)"));
  add("InvalidModel-tensor-negative-dim", edited(R"("dims":[2])", R"("dims":[-2])"));
  add("Unsupported-tensor-dims-overflow-64-bits",
      edited(R"("dims":[2])", R"("dims":[4294967296,4294967296,4294967296])"));
  add("Unsupported-tensor-2p60-elements", edited(R"("dims":[2])", R"("dims":[1152921504606846976])"));
  add("Unsupported-tensor-over-2GiB", edited(R"("dims":[2])", R"("dims":[536870912])"));
  add("Unsupported-dtype-99", edited(R"("dtype":1)", R"("dtype":99)"));
  add("Unsupported-dtype-0", edited(R"("dtype":1)", R"("dtype":0)"));
  add("Unsupported-dtype-beyond-int32", edited(R"("dtype":1)", R"("dtype":4294967297)"));
  add("InvalidModel-string-count", edited(R"("dtype":1,"dims":[2],"data":{"offset":0,"length":8})",
                                          R"("dtype":8,"dims":[2],"strings":["YQ=="])"));

  // Attributes, types, nesting.
  add("Unsupported-attribute-type-15", edited(R"("type":1,"value")", R"("type":15,"value")"));
  add("Unsupported-attribute-type-negative", edited(R"("type":1,"value")", R"("type":-1,"value")"));
  add("InvalidModel-attribute-type-0", edited(R"("type":1,"value")", R"("type":0,"value")"));
  add("Unsupported-type-kind-matrix",
      edited(R"({"kind":"tensor","elem":1,"shape":[2]})", R"({"kind":"matrix"})"));
  add("Malformed-type-without-kind", edited(R"({"kind":"tensor","elem":1,"shape":[2]})", R"({"elem":1})"));
  add("InvalidModel-type-negative-dim", edited(R"("elem":1,"shape":[2])", R"("elem":1,"shape":[-1])"));
  add("Unsupported-type-nesting-65", edited(R"({"kind":"tensor","elem":1,"shape":[2]})",
                                            repeat(R"({"kind":"sequence","inner":)", 64) +
                                                R"({"kind":"tensor","elem":1})" + repeat("}", 64)));
  add("Unsupported-graph-nesting-65",
      edited(R"("attributes":[{"name":"alpha")", R"("attributes":[{"name":"g","type":5,"value":)" +
                                                     nested_graph_attribute(64) + R"(},{"name":"alpha")"));

  // Names and graph structure (format.md §3).
  add("InvalidModel-ir-version-2", edited(R"("ir_version":8)", R"("ir_version":2)"));
  add("InvalidModel-undefined-node-input", edited(R"("inputs":["x","w"])", R"("inputs":["x","v"])"));
  add("InvalidModel-undefined-graph-output",
      edited(R"("outputs":[{"name":"y")", R"("outputs":[{"name":"q")"));
  add("InvalidModel-duplicate-node-output", edited(R"("outputs":["y"])", R"("outputs":["s"])"));
  add("InvalidModel-duplicate-graph-input",
      edited(R"("inputs":[{"name":"x",)", R"("inputs":[{"name":"x"},{"name":"x",)"));
  add("InvalidModel-initializer-named-like-node-output",
      edited(R"("name":"w","dtype")", R"("name":"s","dtype")"));
  add("InvalidModel-cycle", edited(R"("inputs":["x","w"])", R"("inputs":["y","w"])"));
  add("InvalidModel-unknown-domain",
      edited(R"("op":"Add","domain":"")", R"("op":"Add","domain":"com.example")"));
  return c;
}

class FormatHostile : public ::testing::TestWithParam<FormatCase> {};

TEST_P(FormatHostile, IsRefusedWithItsKindWithoutReadingPastTheEnd) {
  const FormatCase& c = GetParam();
  const GuardedBuffer buffer(c.bytes);
  try {
    format::read_model(buffer.bytes(), nullptr, c.name);
    FAIL() << c.name << " was accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.kind(), c.kind) << e.what();
    EXPECT_EQ(e.input_name(), c.name);
    EXPECT_FALSE(e.field_path().empty()) << e.what();
    EXPECT_LE(e.offset(), static_cast<int64_t>(c.bytes.size())) << e.what();
  }
  // The loaders see the same refusal.
  EXPECT_THROW(Session::load(c.bytes), ImportError) << c.name;
}

std::string case_name(const ::testing::TestParamInfo<FormatCase>& info) {
  std::string name;
  for (char ch : info.param.name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, FormatHostile, ::testing::ValuesIn(format_cases()), case_name);

TEST(FormatHostileSet, AtLeastSixtyUniqueCasesCoveringThreeKinds) {
  std::set<std::string> names;
  std::set<Kind> kinds;
  for (const FormatCase& c : format_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    kinds.insert(c.kind);
  }
  EXPECT_GE(names.size(), 60u);
  EXPECT_EQ(kinds.size(), 3u);  // Io comes from files: FormatRoundTrip.LoadByPathTellsTheFormatsApart
}

TEST(FormatHostileSet, ErrorsNameTheFieldAndTheFileOffset) {
  struct Expected {
    const char* name;
    const char* field_path;
    int64_t offset;  // -1: only check that the offset lies inside the manifest
  };
  const Expected expected[] = {
      {"Malformed-file-truncated", "file_length", 48},
      {"Unsupported-flags-1", "flags", 12},
      {"Malformed-data-offset-misaligned", "data_offset", 32},
      {"InvalidModel-undefined-node-input", "manifest.graph.nodes[0].inputs[1]", -1},
      {"InvalidModel-duplicate-graph-input", "manifest.graph.inputs[1]", -1},
      {"Malformed-tensor-offset-misaligned", "manifest.graph.initializers[0].data.offset", -1},
      {"Unsupported-dtype-99", "manifest.graph.initializers[0].dtype", -1},
      {"Malformed-float-as-decimal", "manifest.graph.nodes[1].attributes[0].value", -1},
  };
  const auto cases = format_cases();
  for (const Expected& x : expected) {
    const auto it =
        std::find_if(cases.begin(), cases.end(), [&](const FormatCase& c) { return c.name == x.name; });
    ASSERT_NE(it, cases.end()) << x.name;
    try {
      format::read_model(it->bytes, nullptr, x.name);
      ADD_FAILURE() << x.name << " was accepted";
    } catch (const ImportError& e) {
      EXPECT_EQ(e.field_path(), x.field_path) << e.what();
      if (x.offset >= 0) {
        EXPECT_EQ(e.offset(), x.offset) << e.what();
      } else {
        EXPECT_GE(e.offset(), 64) << e.what();
        EXPECT_LT(e.offset(), 64 + static_cast<int64_t>(kManifest.size()) + 64) << e.what();
      }
    }
  }
  // The offset of a manifest error is the file offset of the offending JSON value.
  const auto bad = edited(R"("ir_version":8)", R"("ir_version":8.5)");
  try {
    format::read_model(bad, nullptr);
    ADD_FAILURE() << "accepted";
  } catch (const ImportError& e) {
    const std::string text(reinterpret_cast<const char*>(bad.data()), bad.size());
    EXPECT_EQ(e.offset(), static_cast<int64_t>(text.find("8.5")));
    EXPECT_EQ(e.field_path(), "manifest.ir_version");
  }
}

TEST(FormatHostileSet, TheBaseFileLoadsAndComputes) {
  const GuardedBuffer buffer(good_file());
  const ir::Model m = format::read_model(buffer.bytes(), nullptr);
  ASSERT_EQ(m.graph->initializers.size(), 1u);
  // The initializer is a view into the file, 64-byte aligned from its start.
  EXPECT_EQ((m.graph->initializers[0].bytes.data() - buffer.bytes().data()) % 64, 0);
  Model model = Model::load(good_file());
  const std::vector<float> x = {1.0f, -4.0f};
  const std::vector<float> y = model.run(x);
  const float w[2] = {0.5f, 1.0f};
  ASSERT_EQ(y.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const float s = x[i] + w[i];
    EXPECT_EQ(y[i], s >= 0 ? s : s * 0.5f);
  }
}

TEST(FormatHostileSet, UnknownFieldsAndSharedBytesAreAccepted) {
  // format.md §1.2: readers ignore fields they do not know, whatever their JSON type.
  std::string m = kManifest;
  m.insert(1, R"("future":{"x":[1.5,null,true,"\u00e9\ud83d\ude00"]},)");
  EXPECT_NO_THROW(format::read_model(assemble(m, weights()), nullptr));
  // §1.3: several tensors may view the same bytes.
  const std::string shared = R"({"name":"w","dtype":1,"dims":[2],"data":{"offset":0,"length":8}})";
  std::string two = kManifest;
  two.replace(two.find(shared), shared.size(),
              shared + R"(,{"name":"w2","dtype":1,"dims":[2],"data":{"offset":0,"length":8}})");
  const ir::Model model = format::read_model(assemble(two, weights()), nullptr);
  EXPECT_EQ(model.graph->initializers[0].bytes.data(), model.graph->initializers[1].bytes.data());
}

TEST(FormatHostileSet, EveryPrefixAndByteCorruptionIsReadOrRefused) {
  const std::vector<std::byte> good = good_file();
  for (size_t n = 0; n < good.size(); ++n) {
    const GuardedBuffer prefix(std::span<const std::byte>(good).first(n));
    EXPECT_THROW(format::read_model(prefix.bytes(), nullptr), ImportError) << n;
  }
  std::vector<std::byte> bytes = good;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const std::byte saved = bytes[i];
    for (int v : {0x00, 0x22, 0x5C, 0x7D, 0xFF}) {
      bytes[i] = static_cast<std::byte>(v);
      const GuardedBuffer buffer(bytes);
      try {
        format::read_model(buffer.bytes(), nullptr);
      } catch (const ImportError&) {
      }
    }
    bytes[i] = saved;
  }
}

}  // namespace
}  // namespace onemodel::test
