// The .onemodel file format (docs/format.md): the imported graph and its weights in one file, weights 64-byte
// aligned so a memory map serves them in place. Model::load and Session::load read both formats, telling them
// apart by the first eight bytes; this class converts and recognises files.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

namespace onemodel {

class ModelFormat {
 public:
  // Imports an ONNX (or .onemodel) file, external data included, and writes it as a .onemodel file. Refuses
  // (ImportError(Io)) to write over the input. Import failures are the importer's ImportError.
  static void convert(const std::filesystem::path& input, const std::filesystem::path& output);
  // The same for bytes in memory (external data is then refused). Deterministic: equal input, equal output.
  static std::vector<std::byte> convert(std::span<const std::byte> model_bytes);
  // True when the bytes start with the magic "ONEMODEL".
  static bool is_model_format(std::span<const std::byte> bytes);
  static bool is_model_format_file(const std::filesystem::path& path);
};

}  // namespace onemodel
