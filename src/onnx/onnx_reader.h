// ONNX model import (onnx-import.md): bytes in, ir::Model out. Tensor bytes in the result are views into the
// input (or into small buffers of converted typed-field data), kept alive through ir::Model::storage.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "onemodel/error.h"

namespace onemodel::onnx {

struct ImportOptions {
  int max_nesting = 128;  // nested message levels allowed, 8..250
  std::string input_name = "<bytes>";
  // Directory of external data files; import_model_file uses the model's own directory.
  std::filesystem::path external_data_dir = {};
};

// `bytes` must stay alive as long as `owner` does; the returned model keeps `owner`. Throws ImportError.
// Bytes that start with "ONEMODEL" are read as a .onemodel file (src/format/format.h), anything else as ONNX.
// Inputs over 2^31-1 bytes are refused (Unsupported) before anything is read, in either format.
ir::Model import_model(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                       const ImportOptions& options = {});

// Maps the file (1 MiB or more, where the platform allows) or reads it into memory; input_name becomes the
// path. Unreadable files throw ImportError(Io). A .onemodel file may be of any size.
ir::Model import_model_file(const std::filesystem::path& path, ImportOptions options = {});

// One serialized TensorProto (the .pb files of the ONNX backend test data). The result views `bytes`, which
// the caller keeps alive; buffers of converted typed-field data are appended to `storage`.
ir::TensorData import_tensor(std::span<const std::byte> bytes,
                             std::vector<std::shared_ptr<const void>>& storage,
                             const ImportOptions& options = {});

}  // namespace onemodel::onnx
