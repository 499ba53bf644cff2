// Getting started: run classifier.onnx on one row of four features, then show the kernel path the session
// chose and the model's declared input. Usage: example_getting_started [MODELS_DIR] (default
// examples/models).
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "onemodel/onemodel.h"

int main(int argc, char** argv) {
  std::filesystem::path models = argc > 1 ? argv[1] : "examples/models";
  try {
    auto model = onemodel::Model::load(models / "classifier.onnx");

    // The input is declared [batch, 4]: four values make one row.
    std::vector<float> features = {5.1f, 3.5f, 1.4f, 0.2f};
    std::vector<float> probs = model.run(std::span<const float>(features));

    for (size_t i = 0; i < probs.size(); ++i) std::printf("%s%.4f", i > 0 ? ", " : "", probs[i]);
    std::printf("\n");
    std::printf("Kernels: %s\n", std::string(model.session().kernel_path()).c_str());
    for (const auto& input : model.session().inputs()) {
      std::printf("Input %s: %s, rank %zu\n", input.name.c_str(),
                  std::string(onemodel::dtype_name(input.dtype)).c_str(), input.rank());
    }
  } catch (const onemodel::Error& e) {
    std::fprintf(stderr, "%s: %s\n", std::string(e.kind_name()).c_str(), e.what());
    return 1;
  }
  return 0;
}
