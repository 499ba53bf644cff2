// A whole file as bytes: memory-mapped when it is at least kMapThreshold bytes and the platform maps files,
// read into a 64-byte aligned buffer otherwise (format.md §5, onnx-import.md §5-6). The bytes live as long as
// `owner`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace onemodel::format {

inline constexpr uint64_t kMapThreshold = uint64_t{1} << 20;

struct FileBytes {
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> owner;
  bool mapped = false;
};

// An uninitialised buffer of `size` bytes starting on a 64-byte boundary, like a mapping, so a session can
// use the 64-byte aligned tensors of a .onemodel file in place.
std::shared_ptr<std::byte> aligned_buffer(size_t size);

// Throws ImportError(Io) naming `input_name` when the file cannot be opened or read.
FileBytes load_file(const std::filesystem::path& path, const std::string& input_name);

}  // namespace onemodel::format
