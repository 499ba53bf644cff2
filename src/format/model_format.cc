#include <cstdio>
#include <fstream>

#include "format/format.h"
#include "onemodel/format.h"
#include "onnx/onnx_reader.h"

namespace onemodel {

namespace {

void write_file(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  const auto io_error = [&](const std::string& what) {
    return ImportError(ImportError::Kind::Io, what, path.string());
  };
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw io_error("cannot open for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw io_error("write failed");
}

}  // namespace

void ModelFormat::convert(const std::filesystem::path& input, const std::filesystem::path& output) {
  std::error_code ec;
  if (std::filesystem::equivalent(input, output, ec)) {
    throw ImportError(ImportError::Kind::Io, "refusing to overwrite the input with the converted model",
                      output.string());
  }
  const ir::Model model = onnx::import_model_file(input);
  write_file(output, format::write_model(model));
}

std::vector<std::byte> ModelFormat::convert(std::span<const std::byte> model_bytes) {
  return format::write_model(onnx::import_model(model_bytes, nullptr));
}

bool ModelFormat::is_model_format(std::span<const std::byte> bytes) {
  return format::is_onemodel(bytes);
}

bool ModelFormat::is_model_format_file(const std::filesystem::path& path) {
  std::byte magic[8];
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  return file && std::fread(magic, 1, 8, file.get()) == 8 && format::is_onemodel(magic);
}

}  // namespace onemodel
