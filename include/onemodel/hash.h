// SHA-256 of output bytes: how two machines show they computed the same answer.
#pragma once

#include <span>
#include <string>

#include "onemodel/tensor.h"

namespace onemodel {

// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::span<const std::byte> data);
// Hash of a tensor's raw little-endian element bytes in row-major order (what `onemodel run --hash` prints);
// for a String tensor, of each element's byte count (8 bytes, little-endian) followed by its UTF-8 bytes.
std::string output_hash(const Tensor& t);

}  // namespace onemodel
