// Shared by the .onemodel tests: files as bytes, deterministic inputs for any session, and running a model
// to a comparable outcome (every output's bytes, or the error kind).
#pragma once

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "onemodel/onemodel.h"

namespace onemodel::test {

inline std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

inline void write_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Small varied values for every input: declared extents, 1 for symbolic or unknown ones.
inline std::vector<NamedTensor> generated_inputs(const Session& session) {
  std::vector<NamedTensor> feeds;
  for (const TensorInfo& info : session.inputs()) {
    std::vector<int64_t> dims;
    for (const Dim& d : info.dims) dims.push_back(d.fixed() ? d.value : 1);
    Tensor t(info.dtype, dims);
    auto* p = static_cast<unsigned char*>(t.raw());
    const size_t width = dtype_size(info.dtype);
    for (int64_t i = 0; i < t.size(); ++i) {
      // Element i gets the small integer (i % 7) - 3, or (i % 2) for bools, in the tensor's type.
      const int64_t v = info.dtype == DType::Bool ? i % 2 : i % 7 - 3;
      switch (info.dtype) {
        case DType::F32: {
          const float f = static_cast<float>(v) * 0.375f;
          std::memcpy(p + i * width, &f, width);
          break;
        }
        case DType::F64: {
          const double f = static_cast<double>(v) * 0.375;
          std::memcpy(p + i * width, &f, width);
          break;
        }
        default:
          std::memcpy(p + i * width, &v, width);  // little endian: the low bytes of v
          break;
      }
    }
    feeds.push_back({info.name, std::move(t)});
  }
  return feeds;
}

// What running gives: the bytes of every output in order (a String output's hash, which reads its text), or
// "error <kind>".
inline std::vector<std::string> outcome(std::span<const std::byte> model, ExecutionMode mode,
                                        const std::vector<NamedTensor>* feeds = nullptr) {
  SessionOptions options;
  options.mode = mode;
  options.intra_op_threads = 1;
  try {
    Session session = Session::load(model, options);
    std::vector<Tensor> outs = session.run(feeds ? *feeds : generated_inputs(session));
    std::vector<std::string> result;
    for (const Tensor& t : outs) {
      if (t.dtype() == DType::String) {
        result.push_back(output_hash(t));
        continue;
      }
      const auto b = t.bytes();
      result.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
    }
    return result;
  } catch (const Error& e) {
    return {"error " + std::string(e.kind_name())};
  }
}

}  // namespace onemodel::test
