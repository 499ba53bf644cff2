// NumPy .npy files (format versions 1.0, 2.0 and 3.0), the CLI's and tools' way of passing tensors in and
// out. Only C-order arrays of little-endian numeric and bool dtypes map to a Tensor; everything else is
// refused. The reader treats the file as hostile: every length is checked against the bytes present before
// anything is sliced or allocated, and the header dict is parsed by a small strict grammar, never evaluated.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "onemodel/tensor.h"

namespace onemodel::npy {

// Parses a whole .npy image. Throws ImportError: Malformed for bytes that are not a valid .npy file,
// Unsupported for a valid file we cannot represent (Fortran order, big-endian, other dtypes, rank above 8,
// too many bytes). `name` (a file name, say) is carried by the error.
Tensor read(std::span<const std::byte> bytes, const std::string& name = {});
// Reads and parses a file; ImportError(Io) when it cannot be read.
Tensor read_file(const std::filesystem::path& path);

// The .npy image of a tensor (version 1.0, header padded to 64 bytes as NumPy writes it). Throws
// ImportError(Unsupported) for an element type NumPy has no dtype for (bfloat16).
std::vector<std::byte> write(const Tensor& tensor);
// Writes the image to a file; ImportError(Io) on failure.
void write_file(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace onemodel::npy
