// Named inputs and outputs: scorer.onnx has two inputs and two outputs. List them, pass named tensors in any
// order and read the outputs back as tensors. Usage: example_named_inputs_and_outputs [MODELS_DIR].
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "onemodel/onemodel.h"

namespace {

// "[batch, 3]": fixed extents as numbers, symbolic ones by name, unknown ones as "?".
std::string declared_dims(const onemodel::TensorInfo& info) {
  std::string out = "[";
  for (size_t i = 0; i < info.dims.size(); ++i) {
    const onemodel::Dim& d = info.dims[i];
    if (i > 0) out += ", ";
    out += d.fixed() ? std::to_string(d.value) : d.param.empty() ? "?" : d.param;
  }
  return out + "]";
}

// "[2,2]: 4.5, 6.5, 10.5, 12.5"
std::string shape_and_values(const onemodel::Tensor& t) {
  std::string out = "[";
  for (size_t i = 0; i < t.shape().size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(t.shape()[i]);
  }
  out += "]:";
  char buf[32];
  auto values = t.data<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s %g", i > 0 ? "," : "", values[i]);
    out += buf;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path models = argc > 1 ? argv[1] : "examples/models";
  try {
    auto session = onemodel::Session::load(models / "scorer.onnx");
    for (const auto& i : session.inputs()) {
      std::printf("in  %s: %s %s\n", i.name.c_str(), std::string(onemodel::dtype_name(i.dtype)).c_str(),
                  declared_dims(i).c_str());
    }
    for (const auto& o : session.outputs()) {
      std::printf("out %s: %s %s\n", o.name.c_str(), std::string(onemodel::dtype_name(o.dtype)).c_str(),
                  declared_dims(o).c_str());
    }

    auto features = onemodel::Tensor::from(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
    auto bias = onemodel::Tensor::from(std::vector<float>{0.5f, 1.5f}, {1, 2});

    // Inputs by name in any order; outputs in the order asked for.
    auto outputs = session.run({{"bias", bias}, {"features", features}}, {"score", "best"});
    std::printf("score %s\n", shape_and_values(outputs[0]).c_str());
    std::printf("best  %s\n", shape_and_values(outputs[1]).c_str());
  } catch (const onemodel::Error& e) {
    std::fprintf(stderr, "%s: %s\n", std::string(e.kind_name()).c_str(), e.what());
    return 1;
  }
  return 0;
}
