// The happy path: arrays in, arrays out; names and shapes come from the model.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "onemodel/session.h"

namespace onemodel {

class Model {
 public:
  static Model load(const std::filesystem::path& path, const SessionOptions& options = {});
  static Model load(std::span<const std::byte> bytes, const SessionOptions& options = {});
  // Shares the caller's bytes without a copy (Session::load of the same signature).
  static Model load(std::shared_ptr<const std::vector<std::byte>> bytes, const SessionOptions& options = {});
  // Shares bytes that `owner` keeps alive (Session::load_shared).
  static Model load_shared(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                           const SessionOptions& options = {});

  // One input, one output. Without a shape the input's declared dims are used, the one unknown extent (if
  // any) being inferred from the value count.
  std::vector<float> run(std::span<const float> input, std::span<const int64_t> shape = {});
  std::vector<float> run(std::span<const int64_t> input, std::span<const int64_t> shape = {});
  std::vector<float> run(std::span<const int32_t> input, std::span<const int64_t> shape = {});

  Session& session() { return session_; }

 private:
  explicit Model(Session session) : session_(std::move(session)) {}
  Tensor make_input(DType dtype, const void* data, size_t count, std::span<const int64_t> shape) const;
  std::vector<float> run_tensor(Tensor input);
  Session session_;
};

}  // namespace onemodel
