// When a model won't load: unsupported.onnx uses two operators without a kernel, and wave.onnx uses Cos,
// which the cookbook describes as having no exact kernel. Print what each load reports. Usage:
// example_missing_operators [MODELS_DIR].
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "onemodel/onemodel.h"

namespace {

void report(const onemodel::SessionError& e, bool list_operators) {
  std::printf("%s: %s\n", std::string(e.kind_name()).c_str(), e.what());
  if (list_operators) {
    for (const std::string& op : e.operators()) std::printf("  missing: %s\n", op.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path models = argc > 1 ? argv[1] : "examples/models";
  try {
    // Every missing operator is listed at once, each with its opset.
    try {
      onemodel::Model::load(models / "unsupported.onnx");
      std::printf("unsupported.onnx loaded\n");
    } catch (const onemodel::SessionError& e) {
      report(e, true);
    }

    // Exact mode refuses operators without an exact kernel instead of approximating them.
    onemodel::SessionOptions exact;
    exact.mode = onemodel::ExecutionMode::Exact;
    try {
      onemodel::Model::load(models / "wave.onnx", exact);
      std::printf("wave.onnx loads in exact mode\n");
    } catch (const onemodel::SessionError& e) {
      report(e, false);
    }

    // The same model in fast mode.
    try {
      auto fast = onemodel::Model::load(models / "wave.onnx");
      std::vector<float> t = {0, 1, 2, 3};
      std::vector<float> y = fast.run(std::span<const float>(t));
      for (size_t i = 0; i < y.size(); ++i) std::printf("%s%.6f", i > 0 ? ", " : "", y[i]);
      std::printf("\n");
    } catch (const onemodel::SessionError& e) {
      report(e, false);
    }
  } catch (const onemodel::Error& e) {
    std::fprintf(stderr, "%s: %s\n", std::string(e.kind_name()).c_str(), e.what());
    return 1;
  }
  return 0;
}
