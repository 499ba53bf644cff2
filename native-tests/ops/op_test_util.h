// Helpers for operator tests: small ONNX models built in memory (one or a few nodes), run through Session,
// and a runner for the ONNX backend node cases (model.onnx + test_data_set_N/{input,output}_N.pb) with the
// tolerance of conformance.md "Method".
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/bits.h"
#include "kernels/kernel_table.h"
#include "onemodel/onemodel.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_reader.h"

namespace onemodel::test {

// One attribute of a node (AttributeProto).
class Attr {
 public:
  static Attr i(std::string_view name, int64_t v) {
    return Attr(name, 2, Proto().varint(3, static_cast<uint64_t>(v)));
  }
  static Attr f(std::string_view name, float v) { return Attr(name, 1, Proto().f32(2, v)); }
  static Attr s(std::string_view name, std::string_view v) { return Attr(name, 3, Proto().bytes(4, v)); }
  static Attr ints(std::string_view name, const std::vector<int64_t>& v) {
    Proto p;
    for (int64_t x : v) p.varint(8, static_cast<uint64_t>(x));
    return Attr(name, 7, p);
  }
  static Attr floats(std::string_view name, std::initializer_list<float> v) {
    Proto p;
    for (float x : v) p.f32(7, x);
    return Attr(name, 6, p);
  }
  static Attr strings(std::string_view name, std::initializer_list<std::string_view> v) {
    Proto p;
    for (auto x : v) p.bytes(9, x);
    return Attr(name, 8, p);
  }
  static Attr tensor(std::string_view name, const Tensor& t);
  // A graph attribute (If's branches, Loop's and Scan's body): ModelBuilder::graph() of the body.
  static Attr graph(std::string_view name, const Proto& g) { return Attr(name, 5, Proto().msg(6, g)); }

  Proto proto() const {
    return Proto().bytes(1, name_).append(value_).varint(20, static_cast<uint64_t>(type_));
  }

 private:
  Attr(std::string_view name, int type, Proto value) : name_(name), type_(type), value_(std::move(value)) {}
  std::string name_;
  int type_;
  Proto value_;
};

// A TensorProto with raw_data.
inline Proto tensor_proto(std::string_view name, const Tensor& t) {
  Proto p;
  for (int64_t d : t.shape()) p.varint(1, static_cast<uint64_t>(d));
  p.varint(2, static_cast<uint64_t>(t.dtype())).bytes(8, name);
  if (t.byte_size() > 0) p.bytes(9, t.bytes());
  return p;
}

inline Attr Attr::tensor(std::string_view name, const Tensor& t) {
  return Attr(name, 4, Proto().msg(5, tensor_proto("", t)));
}

// A graph under construction: declared inputs and outputs, initializers and nodes, at one ai.onnx opset.
class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset) : opset_(opset) {}

  // dims: -1 declares a symbolic extent.
  ModelBuilder& input(std::string_view name, DType dtype, std::vector<int64_t> dims) {
    graph_.msg(11, value_info(name, dtype, &dims));
    return *this;
  }
  // An output of known element type and unknown shape.
  ModelBuilder& output(std::string_view name, DType dtype) {
    outputs_.msg(12, value_info(name, dtype, nullptr));
    return *this;
  }
  // A graph input or output of a hand-made TypeProto (sequences, optionals); an empty one declares no type.
  ModelBuilder& typed_input(std::string_view name, const Proto& type) {
    graph_.msg(11, Proto().bytes(1, name).msg(2, type));
    return *this;
  }
  ModelBuilder& typed_output(std::string_view name, const Proto& type) {
    outputs_.msg(12, Proto().bytes(1, name).msg(2, type));
    return *this;
  }
  ModelBuilder& initializer(std::string_view name, const Tensor& t) {
    graph_.msg(5, tensor_proto(name, t));
    return *this;
  }
  ModelBuilder& node(std::string_view op, std::initializer_list<std::string_view> inputs,
                     std::initializer_list<std::string_view> outputs, std::initializer_list<Attr> attrs = {},
                     std::string_view name = {}) {
    return node(op, inputs, outputs, std::vector<Attr>(attrs), name);
  }
  ModelBuilder& node(std::string_view op, std::initializer_list<std::string_view> inputs,
                     std::initializer_list<std::string_view> outputs, const std::vector<Attr>& attrs,
                     std::string_view name = {}) {
    Proto n = onnxb::node(op, inputs, outputs, name);
    for (const Attr& a : attrs) n.msg(5, a.proto());
    graph_.msg(1, n);
    return *this;
  }

  // The GraphProto alone, e.g. as the body of a graph attribute.
  Proto graph(std::string_view name = "g") const {
    return Proto().bytes(2, name).append(graph_).append(outputs_);
  }

  std::vector<std::byte> bytes() const { return onnxb::model(graph(), 8, opset_).data(); }

  Session session(const SessionOptions& options = {}) const {
    const std::vector<std::byte> b = bytes();
    return Session::load(std::span<const std::byte>(b), options);
  }

  // Runs once in a new session and returns every output.
  std::vector<Tensor> run(const std::vector<NamedTensor>& inputs, const SessionOptions& options = {}) const {
    Session s = session(options);
    return s.run(inputs);
  }

 private:
  static Proto value_info(std::string_view name, DType dtype, const std::vector<int64_t>* dims) {
    Proto tensor_type;
    tensor_type.varint(1, static_cast<uint64_t>(dtype));
    if (dims != nullptr) {
      Proto shape;
      for (int64_t d : *dims) {
        shape.msg(1, d >= 0 ? Proto().varint(1, static_cast<uint64_t>(d)) : Proto().bytes(2, "n"));
      }
      tensor_type.msg(2, shape);
    }
    return Proto().bytes(1, name).msg(2, Proto().msg(1, tensor_type));
  }

  int64_t opset_;
  Proto graph_, outputs_;
};

inline SessionOptions options(ExecutionMode mode, std::string kernels = {}, int threads = 0) {
  SessionOptions o;
  o.mode = mode;
  o.kernels = std::move(kernels);
  o.intra_op_threads = threads;
  return o;
}

// The kernel paths this build and CPU have, by name.
inline std::vector<std::string> kernel_paths() {
  std::vector<std::string> out;
  for (KernelPath p : {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512}) {
    if (kernel_table(p) != nullptr) out.emplace_back(kernel_path_name(p));
  }
  return out;
}

inline bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.byte_size() == 0 || std::memcmp(a.raw(), b.raw(), a.byte_size()) == 0);
}

// The kind of SessionError `call` throws; fails the test when it throws nothing.
template <class F>
SessionError::Kind error_kind(F&& call, std::string* message = nullptr, std::string* node = nullptr) {
  try {
    call();
  } catch (const SessionError& e) {
    if (message != nullptr) *message = e.what();
    if (node != nullptr) *node = e.node();
    return e.kind();
  }
  ADD_FAILURE() << "no SessionError thrown";
  return SessionError::Kind::Disposed;
}

// --- ONNX backend node cases

inline std::filesystem::path backend_node_dir() {
  return "/usr/share/libonnx-testdata/data/node";
}

inline Tensor load_pb(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
  std::vector<std::shared_ptr<const void>> storage;
  ir::TensorData t = onnx::import_tensor(bytes, storage);
  if (t.elem_type == static_cast<int32_t>(DType::String)) return Tensor::from_strings(t.strings, t.dims);
  Tensor out(static_cast<DType>(t.elem_type), t.dims);
  if (!t.bytes.empty()) std::memcpy(out.raw(), t.bytes.data(), t.bytes.size());
  return out;
}

// Empty when `got` equals `want` under conformance.md's tolerance (|got - want| <= 1e-7 + 1e-3 |want| for
// floats, both NaN allowed; integers equal), else the first difference.
inline std::string tolerance_difference(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype()) return "element type differs";
  if (got.shape() != want.shape()) return "shape differs";
  const size_t n = static_cast<size_t>(want.size());
  for (size_t i = 0; i < n; ++i) {
    double g, w;
    if (want.dtype() == DType::String) {
      if (got.string(static_cast<int64_t>(i)) != want.string(static_cast<int64_t>(i)))
        return "string " + std::to_string(i) + " differs";
      continue;
    }
    if (want.dtype() == DType::F32) {
      g = static_cast<const float*>(got.raw())[i];
      w = static_cast<const float*>(want.raw())[i];
    } else if (want.dtype() == DType::F64) {
      g = static_cast<const double*>(got.raw())[i];
      w = static_cast<const double*>(want.raw())[i];
    } else {
      const size_t width = dtype_size(want.dtype());
      if (std::memcmp(static_cast<const std::byte*>(got.raw()) + i * width,
                      static_cast<const std::byte*>(want.raw()) + i * width, width) != 0) {
        return "element " + std::to_string(i) + " differs";
      }
      continue;
    }
    if (!(g == w || (std::isnan(g) && std::isnan(w)) || std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w))) {
      return "element " + std::to_string(i) + ": got " + std::to_string(g) + ", expected " +
             std::to_string(w);
    }
  }
  return {};
}

// Runs every test_data_set of one backend case; returns the first problem, or empty on success.
inline std::string run_backend_case(const std::filesystem::path& dir, ExecutionMode mode) {
  SessionOptions options;
  options.mode = mode;
  options.intra_op_threads = 1;
  Session session = Session::load(dir / "model.onnx", options);
  int sets = 0;
  for (int s = 0;; ++s) {
    const auto set = dir / ("test_data_set_" + std::to_string(s));
    if (!std::filesystem::is_directory(set)) break;
    ++sets;
    std::vector<NamedTensor> feeds;
    for (size_t i = 0; std::filesystem::exists(set / ("input_" + std::to_string(i) + ".pb")); ++i) {
      feeds.push_back({session.inputs().at(i).name, load_pb(set / ("input_" + std::to_string(i) + ".pb"))});
    }
    std::vector<Tensor> got = session.run(feeds);
    for (size_t i = 0; std::filesystem::exists(set / ("output_" + std::to_string(i) + ".pb")); ++i) {
      if (i >= got.size()) return "missing output " + std::to_string(i);
      const std::string diff =
          tolerance_difference(got[i], load_pb(set / ("output_" + std::to_string(i) + ".pb")));
      if (!diff.empty()) return set.filename().string() + " output " + std::to_string(i) + ": " + diff;
    }
  }
  return sets == 0 ? "no test data" : "";
}

// Every backend node case whose directory name starts with one of `prefixes` (and none of `excluded`), in
// both modes. A case that needs an operator the library does not have yet (the `_expanded` function bodies)
// is skipped with a note. Returns how many case runs passed.
inline int check_backend_cases(std::initializer_list<std::string_view> prefixes,
                               std::initializer_list<std::string_view> excluded = {}) {
  int ran = 0;
  if (!std::filesystem::is_directory(backend_node_dir())) return 0;
  std::vector<std::filesystem::path> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(backend_node_dir())) {
    const std::string name = entry.path().filename().string();
    bool wanted = false;
    for (auto p : prefixes) wanted = wanted || name.rfind(p, 0) == 0;
    for (auto x : excluded) wanted = wanted && name.rfind(x, 0) != 0;
    if (wanted) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      std::string problem;
      try {
        problem = run_backend_case(dir, mode);
      } catch (const SessionError& e) {
        if (e.kind() == SessionError::Kind::UnsupportedOperator) {
          std::printf("skipped %s: %s\n", dir.filename().c_str(), e.what());
          continue;
        }
        problem = e.what();
      } catch (const std::exception& e) {
        problem = e.what();
      }
      EXPECT_EQ(problem, "") << dir.filename() << (mode == ExecutionMode::Exact ? " (exact)" : " (fast)");
      ran += problem.empty() ? 1 : 0;
    }
  }
  return ran;
}

// A tensor of `dtype` whose elements are the bit patterns / values in `values` (S is the stored C++ type).
// Elements are read back the same way.
template <class S>
Tensor tensor_of(DType dtype, const std::vector<int64_t>& dims, const std::vector<S>& values) {
  Tensor t(dtype, dims);
  EXPECT_EQ(t.byte_size(), values.size() * sizeof(S));
  if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(S));
  return t;
}

template <class S>
std::vector<S> elements_of(const Tensor& t) {
  std::vector<S> v(static_cast<size_t>(t.size()));
  EXPECT_EQ(t.byte_size(), v.size() * sizeof(S));
  if (!v.empty()) std::memcpy(v.data(), t.raw(), v.size() * sizeof(S));
  return v;
}

}  // namespace onemodel::test
