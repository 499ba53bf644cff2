// Exact mode: run wide.onnx in fast and exact mode at 1, 4 and 16 threads and hash the output bytes. Within a
// mode the hashes agree across thread counts; exact-mode hashes also agree across machines, kernel paths and
// WebAssembly. Usage: example_exact_mode [MODELS_DIR].
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "onemodel/onemodel.h"
// onemodel::sha256_hex (onemodel/hash.h) is plain SHA-256: any implementation gives the same hex.

int main(int argc, char** argv) {
  std::filesystem::path models = argc > 1 ? argv[1] : "examples/models";
  // A demo input from the platform's sinf: fine here, but golden hashes never depend on a platform's math
  // library.
  std::vector<float> input(256);
  for (size_t i = 0; i < input.size(); ++i) input[i] = std::sin(static_cast<float>(i) * 0.37f);

  try {
    for (auto mode : {onemodel::ExecutionMode::Fast, onemodel::ExecutionMode::Exact}) {
      for (int threads : {1, 4, 16}) {
        onemodel::SessionOptions options;
        options.mode = mode;
        options.intra_op_threads = threads;
        auto model = onemodel::Model::load(models / "wide.onnx", options);
        std::vector<float> y = model.run(std::span<const float>(input));
        std::string hash = onemodel::sha256_hex(std::as_bytes(std::span<const float>(y))).substr(0, 16);
        for (char& c : hash) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        std::printf("%-5s threads=%-2d y[0]=%.9g  sha256=%s\n",
                    mode == onemodel::ExecutionMode::Fast ? "Fast" : "Exact", threads, y[0], hash.c_str());
      }
    }
  } catch (const onemodel::Error& e) {
    std::fprintf(stderr, "%s: %s\n", std::string(e.kind_name()).c_str(), e.what());
    return 1;
  }
  return 0;
}
