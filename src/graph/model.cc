#include "onemodel/model.h"

#include <cstring>

namespace onemodel {
namespace {
using Kind = SessionError::Kind;
}

Model Model::load(const std::filesystem::path& path, const SessionOptions& options) {
  return Model(Session::load(path, options));
}

Model Model::load(std::span<const std::byte> bytes, const SessionOptions& options) {
  return Model(Session::load(bytes, options));
}

Model Model::load(std::shared_ptr<const std::vector<std::byte>> bytes, const SessionOptions& options) {
  return Model(Session::load(std::move(bytes), options));
}

Model Model::load_shared(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                         const SessionOptions& options) {
  return Model(Session::load_shared(bytes, std::move(owner), options));
}

Tensor Model::make_input(DType dtype, const void* data, size_t count, std::span<const int64_t> shape) const {
  const auto& inputs = session_.inputs();
  if (inputs.size() != 1 || session_.outputs().size() != 1) {
    throw SessionError(Kind::InvalidInput,
                       "Model::run needs a model with one input and one output; use Session");
  }
  std::vector<int64_t> dims(shape.begin(), shape.end());
  if (dims.empty()) {
    // Declared dims, with the one extent that is not fixed inferred from the value count.
    const TensorInfo& info = inputs[0];
    if (!info.has_shape) {
      dims = {static_cast<int64_t>(count)};
    } else {
      int64_t fixed = 1;
      int open = -1;
      for (size_t d = 0; d < info.dims.size(); ++d) {
        if (info.dims[d].fixed()) {
          fixed *= info.dims[d].value;
          dims.push_back(info.dims[d].value);
        } else {
          if (open >= 0) {
            throw SessionError(
                Kind::InvalidInput,
                "input '" + info.name + "' has several open dimensions: pass a shape to run()");
          }
          open = static_cast<int>(d);
          dims.push_back(0);
        }
      }
      if (open >= 0) {
        if (fixed == 0 || static_cast<int64_t>(count) % fixed != 0) {
          throw SessionError(Kind::InvalidInput, std::to_string(count) + " values do not fill input '" +
                                                     info.name + "' (a multiple of " + std::to_string(fixed) +
                                                     " is needed)");
        }
        dims[static_cast<size_t>(open)] = static_cast<int64_t>(count) / fixed;
      }
    }
  }
  Tensor t(dtype, dims);
  if (static_cast<size_t>(t.size()) != count) {
    throw SessionError(Kind::InvalidInput, std::to_string(count) + " values do not fill input '" +
                                               inputs[0].name + "' of " + std::to_string(t.size()) +
                                               " elements");
  }
  if (count) std::memcpy(t.raw(), data, count * dtype_size(dtype));
  return t;
}

std::vector<float> Model::run_tensor(Tensor input) {
  std::vector<Tensor> outs = session_.run({{session_.inputs()[0].name, std::move(input)}});
  return outs[0].to_vector<float>();
}

std::vector<float> Model::run(std::span<const float> input, std::span<const int64_t> shape) {
  return run_tensor(make_input(DType::F32, input.data(), input.size(), shape));
}
std::vector<float> Model::run(std::span<const int64_t> input, std::span<const int64_t> shape) {
  return run_tensor(make_input(DType::I64, input.data(), input.size(), shape));
}
std::vector<float> Model::run(std::span<const int32_t> input, std::span<const int64_t> shape) {
  return run_tensor(make_input(DType::I32, input.data(), input.size(), shape));
}

}  // namespace onemodel
