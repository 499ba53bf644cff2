// Converting to .onemodel keeps the model: converted files are byte-identical when written twice and when
// read back and written again, and sessions on them give the ONNX file's output bits in both modes, for the
// sample models and every ONNX backend node model that loads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "format/format.h"
#include "format/format_test_util.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_reader.h"
#include "onnx/testdata_support.h"

namespace onemodel::test {
namespace {

const std::filesystem::path kSource = ONEMODEL_SOURCE_DIR;

std::vector<std::filesystem::path> sample_models() {
  std::vector<std::filesystem::path> models;
  for (const auto& dir : {kSource / "examples" / "models", kSource / "testdata" / "golden-models"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".onnx") models.push_back(entry.path());
    }
  }
  std::sort(models.begin(), models.end());
  return models;
}

// The converted bytes, checked to be a fixed point: read back and written again, they do not change.
std::vector<std::byte> convert_checked(std::span<const std::byte> onnx, const std::string& label) {
  const std::vector<std::byte> once = ModelFormat::convert(onnx);
  EXPECT_TRUE(ModelFormat::is_model_format(once)) << label;
  EXPECT_EQ(ModelFormat::convert(onnx), once) << label << ": second conversion differs";
  const ir::Model back = format::read_model(once, nullptr, label);
  EXPECT_EQ(format::write_model(back), once) << label << ": read back and written again differs";
  return once;
}

TEST(FormatRoundTrip, SampleModelsConvertDeterministicallyAndRunBitIdentically) {
  const auto models = sample_models();
  ASSERT_GE(models.size(), 8u);
  for (const auto& path : models) {
    const std::vector<std::byte> onnx = read_bytes(path);
    const std::vector<std::byte> converted = convert_checked(onnx, path.string());
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      EXPECT_EQ(outcome(onnx, mode), outcome(converted, mode)) << path;
    }
  }
}

TEST(FormatRoundTrip, LoadByPathTellsTheFormatsApart) {
  const auto dir = std::filesystem::temp_directory_path() / ("onemodel-format-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto onnx = kSource / "examples" / "models" / "wide.onnx";
  const auto converted = dir / "wide.onemodel";
  ModelFormat::convert(onnx, converted);
  EXPECT_TRUE(ModelFormat::is_model_format_file(converted));
  EXPECT_FALSE(ModelFormat::is_model_format_file(onnx));
  EXPECT_EQ(read_bytes(converted), ModelFormat::convert(read_bytes(onnx)));
  std::vector<float> input(256);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i) / 256.0f;
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    SessionOptions options;
    options.mode = mode;
    Model a = Model::load(onnx, options);
    Model b = Model::load(converted, options);
    const std::vector<float> ya = a.run(input), yb = b.run(input);
    ASSERT_EQ(ya.size(), yb.size());
    EXPECT_EQ(0, std::memcmp(ya.data(), yb.data(), ya.size() * sizeof(float)));
  }
  // Refuses to overwrite its input, and reports Io for a file that cannot be written.
  try {
    ModelFormat::convert(converted, converted);
    FAIL() << "converted over its own input";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.kind(), ImportError::Kind::Io);
  }
  EXPECT_THROW(ModelFormat::convert(onnx, dir / "missing-dir" / "x.onemodel"), ImportError);
  std::filesystem::remove_all(dir);
}

// The backend case's inputs (TensorProto files) when they all read as stored types, else generated ones.
std::vector<NamedTensor> case_inputs(const std::filesystem::path& dir, const Session& session) {
  std::vector<NamedTensor> feeds;
  std::vector<std::shared_ptr<const void>> storage;
  for (size_t k = 0; k < session.inputs().size(); ++k) {
    const auto file = dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb");
    const std::vector<std::byte> bytes = read_bytes(file);
    try {
      const ir::TensorData t = onnx::import_tensor(bytes, storage);
      if (!is_stored_dtype(t.elem_type) || session.inputs()[k].kind != ValueKind::Tensor) {
        return generated_inputs(session);
      }
      if (t.elem_type == static_cast<int32_t>(DType::String)) {
        feeds.push_back({session.inputs()[k].name, Tensor::from_strings(t.strings, t.dims)});
        continue;
      }
      Tensor value(static_cast<DType>(t.elem_type), t.dims);
      if (!t.bytes.empty()) std::memcpy(value.raw(), t.bytes.data(), t.bytes.size());
      feeds.push_back({session.inputs()[k].name, std::move(value)});
    } catch (const Error&) {
      return generated_inputs(session);
    }
  }
  return feeds;
}

TEST(FormatRoundTrip, BackendNodeModelsRunBitIdentically) {
  int loaded = 0, ran = 0;
  for (const auto& path : onnx_testdata_models()) {
    if (path.parent_path().parent_path().filename() != "node") continue;
    const std::vector<std::byte> onnx = read_bytes(path);
    std::vector<NamedTensor> feeds;
    try {
      feeds = case_inputs(path.parent_path(), Session::load(onnx));
    } catch (const Error&) {
      continue;  // not a model we load
    }
    ++loaded;
    const std::vector<std::byte> converted = convert_checked(onnx, path.string());
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      const std::vector<std::string> expected = outcome(onnx, mode, &feeds);
      EXPECT_EQ(expected, outcome(converted, mode, &feeds)) << path;
      ran += expected.empty() || expected[0].rfind("error ", 0) != 0;
    }
  }
  std::cout << loaded << " backend node models converted; " << ran << " of " << 2 * loaded
            << " runs (fast and exact) gave outputs, compared bit for bit\n";
  // The Debian test data holds 932 node cases; most of them load and run.
  EXPECT_GE(loaded, 600);
  EXPECT_GE(ran, loaded);
}

// An opaque type keeps its domain and name through import, conversion and reading back.
TEST(FormatRoundTrip, OpaqueTypesKeepDomainAndName) {
  using namespace onnxb;
  const Proto opaque_type = Proto().msg(7, Proto().bytes(1, "com.example").bytes(2, "Blob"));
  const Proto graph = Proto()
                          .bytes(2, "g")
                          .msg(11, value("x"))
                          .msg(11, Proto().bytes(1, "blob").msg(2, opaque_type))
                          .msg(1, node("Relu", {"x"}, {"y"}))
                          .msg(12, value("y"));
  const std::vector<std::byte> onnx = model(graph).data();
  auto opaque_of = [](const ir::Model& m) -> const ir::Type& {
    for (const ir::Value& v : m.graph->values) {
      if (v.name == "blob") return v.type;
    }
    throw std::runtime_error("no value 'blob'");
  };
  const ir::Model imported = onnx::import_model(onnx, nullptr);
  EXPECT_EQ(opaque_of(imported).kind, ir::Type::Kind::Opaque);
  EXPECT_EQ(opaque_of(imported).opaque_domain, "com.example");
  EXPECT_EQ(opaque_of(imported).opaque_name, "Blob");
  const ir::Model back = format::read_model(convert_checked(onnx, "opaque"), nullptr);
  EXPECT_EQ(opaque_of(back).kind, ir::Type::Kind::Opaque);
  EXPECT_EQ(opaque_of(back).opaque_domain, "com.example");
  EXPECT_EQ(opaque_of(back).opaque_name, "Blob");
}

}  // namespace
}  // namespace onemodel::test
