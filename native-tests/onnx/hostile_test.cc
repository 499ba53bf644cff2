// Every generated hostile input is refused with its kind, offset and field path, and damaged copies of a
// valid model never crash the importer.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "onnx/hostile_cases.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_reader.h"

namespace onemodel::test {
namespace {

class OnnxHostile : public ::testing::TestWithParam<HostileCase> {};

TEST_P(OnnxHostile, IsRefusedWithItsKind) {
  const HostileCase& c = GetParam();
  ASSERT_EQ(c.name.substr(0, c.name.find('-')), to_string(c.kind));
  try {
    onnx::import_model(c.bytes, nullptr, {.input_name = c.name});
    FAIL() << c.name << " was accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.kind(), c.kind) << e.what();
    EXPECT_EQ(e.input_name(), c.name);
    if (c.offset) {
      EXPECT_EQ(e.offset(), *c.offset) << e.what();
    }
    if (!c.field_path.empty()) {
      EXPECT_EQ(e.field_path(), c.field_path) << e.what();
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<HostileCase>& info) {
  std::string name;
  for (char ch : info.param.name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, OnnxHostile, ::testing::ValuesIn(hostile_cases()), case_name);

TEST(OnnxHostileSet, NamesAreUniqueAndEveryKindButIoIsCovered) {
  std::set<std::string> names;
  std::set<ImportError::Kind> kinds;
  for (const HostileCase& c : hostile_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    kinds.insert(c.kind);
  }
  EXPECT_EQ(kinds.size(), 4u);  // Io comes from files, not bytes: see OnnxResolve.ImportModelFile
}

// A model with a bit of everything: nested graph, typed and raw tensors, attributes of several kinds.
Proto rich_model() {
  using namespace onnxb;
  const Proto branch = Proto().bytes(2, "b").msg(1, node("Identity", {"w"}, {"o"})).msg(12, value("o"));
  const Proto g = relu_graph()
                      .msg(11, value("c", 9, {}))
                      .msg(5, raw_floats("w", {1, 2}))
                      .msg(5, tensor("k", 7, {2}).packed_varints(7, {3, 4}))
                      .msg(1, node("If", {"c"}, {"z"})
                                  .msg(5, graph_attribute("then_branch", branch))
                                  .msg(5, Proto().bytes(1, "f").f32(2, 1.5f).varint(20, 1))
                                  .msg(5, Proto().bytes(1, "s").packed_varints(8, {1, 300}).varint(20, 7)))
                      .msg(12, value("z"));
  return model(g).bytes(2, "producer");
}

// Either imports or throws ImportError: anything else (a crash, another exception) fails the test.
void import_or_refuse(std::span<const std::byte> bytes) {
  try {
    onnx::import_model(bytes, nullptr);
  } catch (const ImportError&) {
  }
}

TEST(OnnxHostileSet, EveryPrefixImportsOrIsRefused) {
  const Proto m = rich_model();
  ASSERT_NO_THROW(onnx::import_model(m.data(), nullptr));
  for (size_t n = 0; n < m.size(); ++n) import_or_refuse(std::span(m.data()).first(n));
}

TEST(OnnxHostileSet, EverySingleByteCorruptionImportsOrIsRefused) {
  const Proto m = rich_model();
  std::vector<std::byte> bytes = m.data();
  for (size_t i = 0; i < bytes.size(); ++i) {
    const std::byte saved = bytes[i];
    for (int v : {0x00, 0x01, 0x7F, 0x80, 0xFF}) {
      bytes[i] = static_cast<std::byte>(v);
      import_or_refuse(bytes);
    }
    bytes[i] = saved;
  }
}

}  // namespace
}  // namespace onemodel::test
