// Imports every model of the ONNX backend test data, checks the resolved graphs' invariants, and reads every
// tensor file against the declaration of the value it feeds.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "onnx/onnx_reader.h"
#include "onnx/testdata_support.h"

namespace onemodel::test {
namespace {

using Source = ir::Value::Source;

// Structural invariants of a resolved graph; `parent` is the enclosing graph, if any.
void check_graph(const ir::Graph& g, const ir::Graph* parent, const std::string& where) {
  SCOPED_TRACE(where + " graph '" + g.name + "'");
  const auto n_values = static_cast<int32_t>(g.values.size());
  const auto valid = [&](int32_t id) { return id >= 0 && id < n_values; };
  ASSERT_EQ(g.consumers.size(), g.values.size());
  for (int32_t id : g.inputs) EXPECT_TRUE(valid(id));
  for (int32_t id : g.outputs) EXPECT_TRUE(valid(id));
  for (int32_t id : g.captures) {
    ASSERT_TRUE(valid(id));
    const ir::Value& v = g.values[static_cast<size_t>(id)];
    EXPECT_EQ(v.source, Source::Outer);
    ASSERT_NE(parent, nullptr);
    ASSERT_GE(v.outer, 0);
    ASSERT_LT(v.outer, static_cast<int32_t>(parent->values.size()));
    EXPECT_EQ(parent->values[static_cast<size_t>(v.outer)].name, v.name);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (parent == nullptr) {
      EXPECT_GT(n.opset, 0) << n.op_type;
    }
    for (int32_t in : n.inputs) {
      if (in < 0) continue;
      ASSERT_TRUE(valid(in));
      const ir::Value& v = g.values[static_cast<size_t>(in)];
      if (v.source == Source::NodeOutput) {
        EXPECT_LT(v.producer, static_cast<int32_t>(i)) << "not topological";
      }
      const auto& readers = g.consumers[static_cast<size_t>(in)];
      EXPECT_NE(std::find(readers.begin(), readers.end(), static_cast<int32_t>(i)), readers.end());
    }
    for (int32_t out : n.outputs) {
      if (out < 0) continue;
      ASSERT_TRUE(valid(out));
      EXPECT_EQ(g.values[static_cast<size_t>(out)].producer, static_cast<int32_t>(i));
    }
    for (const ir::Attribute& a : n.attributes) {
      if (a.g) check_graph(*a.g, &g, n.field_path);
      for (const auto& sub : a.graphs) check_graph(*sub, &g, n.field_path);
    }
  }
}

TEST(OnnxTestdata, EveryModelImports) {
  const auto models = onnx_testdata_models();
  if (models.empty()) GTEST_SKIP() << "NOT RUN: ONNX backend test data missing at " << kOnnxTestdata;
  EXPECT_GE(models.size(), 1000u);  // 1072 in ONNX 1.12's package
  size_t imported = 0;
  for (const auto& path : models) {
    try {
      const ir::Model m = onnx::import_model_file(path);
      check_graph(*m.graph, nullptr, path.string());
      ++imported;
    } catch (const ImportError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_EQ(imported, models.size());
}

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// The tensor in `file` imports and, when `compare` is set, matches what the model declares for the value it
// feeds or holds.
void check_tensor_file(const std::filesystem::path& file, const ir::Value& v, bool compare) {
  SCOPED_TRACE(file.string());
  const std::vector<std::byte> bytes = read_file(file);
  std::vector<std::shared_ptr<const void>> storage;
  ir::TensorData t;
  try {
    t = onnx::import_tensor(bytes, storage, {.input_name = file.string()});
  } catch (const ImportError& e) {
    FAIL() << e.what();
  }
  if (!compare) return;
  if (v.type.elem_type != 0) {
    EXPECT_EQ(t.elem_type, v.type.elem_type);
  }
  if (!v.type.has_shape) return;
  ASSERT_EQ(t.dims.size(), v.type.dims.size());
  for (size_t k = 0; k < t.dims.size(); ++k) {
    if (v.type.dims[k].value >= 0) {
      EXPECT_EQ(t.dims[k], v.type.dims[k].value) << "dim " << k;
    }
  }
}

TEST(OnnxTestdata, TensorFilesMatchTheirDeclarations) {
  const auto models = onnx_testdata_models();
  if (models.empty()) GTEST_SKIP() << "NOT RUN: ONNX backend test data missing at " << kOnnxTestdata;
  size_t checked = 0, import_only = 0;
  for (const auto& path : models) {
    // ONNX 1.12 wrote the data of its bfloat16 cases wrongly (bfloat16 as uint16 tensors, CastLike's "like"
    // input as one element), so those files are only imported, not compared with their declarations.
    const bool bfloat16_case = path.parent_path().filename().string().find("BFLOAT16") != std::string::npos;
    const ir::Model m = onnx::import_model_file(path);
    const ir::Graph& g = *m.graph;
    // input_<k>.pb feeds the k-th graph input that has no default; output_<k>.pb is the k-th output.
    std::vector<int32_t> fed;
    for (int32_t id : g.inputs) {
      if (g.values[static_cast<size_t>(id)].initializer < 0) fed.push_back(id);
    }
    for (const auto& set : std::filesystem::directory_iterator(path.parent_path())) {
      if (!set.is_directory()) continue;
      const std::pair<const char*, const std::vector<int32_t>*> files[] = {{"input_", &fed},
                                                                           {"output_", &g.outputs}};
      for (const auto& [prefix, ids] : files) {
        for (size_t k = 0; k < ids->size(); ++k) {
          const auto file = set.path() / (std::string(prefix) + std::to_string(k) + ".pb");
          const ir::Value& v = g.values[static_cast<size_t>((*ids)[k])];
          // Sequence, map and optional values are stored as other messages than TensorProto.
          if (v.type.kind != ir::Type::Kind::Tensor || !std::filesystem::exists(file)) continue;
          check_tensor_file(file, v, !bfloat16_case);
          ++(bfloat16_case ? import_only : checked);
        }
      }
    }
  }
  EXPECT_GT(checked, 3000u);
  std::printf(
      "[ info     ] %zu tensor files checked against their declarations, %zu bfloat16 files imported only\n",
      checked, import_only);
}

}  // namespace
}  // namespace onemodel::test
