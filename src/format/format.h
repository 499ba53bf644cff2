// The .onemodel format, version 1 (format.md): the imported graph (before any pass) as a 64-byte header, a
// canonical JSON manifest and a 64-byte-aligned data region. Internal entry points; the public face is
// include/onemodel/format.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace onemodel::format {

inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kHeaderBytes = 64;
inline constexpr uint64_t kMaxManifestBytes = uint64_t{512} << 20;
inline constexpr int kMaxGraphTypeNesting = 64;

// True when `bytes` starts with the magic "ONEMODEL".
bool is_onemodel(std::span<const std::byte> bytes);

// The file's bytes for `model`; the same model always gives the same bytes. Throws ImportError(Unsupported)
// for tensors the format cannot hold.
std::vector<std::byte> write_model(const ir::Model& model);

// Reads a .onemodel file held in `bytes` (kept alive by `owner`, which the model keeps). Tensor bytes are
// views into `bytes`. Throws ImportError (Malformed, InvalidModel, Unsupported) naming `input_name`.
ir::Model read_model(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                     const std::string& input_name = "<bytes>");

}  // namespace onemodel::format
