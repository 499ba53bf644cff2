// Sessions: named tensors in and out, options, thread-safe run (graph-runtime.md §4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/error.h"
#include "onemodel/tensor.h"

namespace onemodel {

enum class ExecutionMode { Fast, Exact };
enum class OptimizationLevel { None, Basic, All };
// How the constant weights of MatMul, Gemm and Conv are kept (fp16.md "Keeping binary32 weights compact").
enum class WeightStorage { Float32, Binary16, BFloat16 };

struct SessionOptions {
  ExecutionMode mode = ExecutionMode::Fast;
  // Intra-operator threads including the caller: 0 = one per logical core (capped by ONEMODEL_THREADS).
  int intra_op_threads = 0;
  OptimizationLevel optimization_level = OptimizationLevel::All;
  int max_cached_plans = 16;
  // Kernel path to force ("scalar", "v128", "avx2", "avx512"); empty = ONEMODEL_KERNELS or the best the CPU
  // has.
  std::string kernels;
  // Binary16 / BFloat16: input 1 of MatMul, Gemm and Conv when it is a float32 initializer of at least 1024
  // values read by nothing else is rounded to that format at creation and widened per run (Binary16 keeps a
  // tensor holding a value beyond 65504, an infinity or a NaN in float32).
  WeightStorage weight_storage = WeightStorage::Float32;
};

// One declared dimension: a fixed extent, a symbolic name, or unknown (value -1, empty name).
struct Dim {
  int64_t value = -1;
  std::string param;
  bool fixed() const { return value >= 0; }
};

// What a graph input or output carries. Sequences and optionals travel as packed U8 tensors
// (onemodel/packed.h, graph-runtime.md §8).
enum class ValueKind { Tensor, Sequence, Optional };

struct TensorInfo {
  std::string name;
  ValueKind kind = ValueKind::Tensor;
  DType dtype = DType::F32;
  bool has_shape = false;  // false: rank unknown
  std::vector<Dim> dims;
  size_t rank() const { return dims.size(); }
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

class SessionImpl;

class Session {
 public:
  static Session load(const std::filesystem::path& path, const SessionOptions& options = {});
  static Session load(std::span<const std::byte> bytes, const SessionOptions& options = {});
  // Shares the caller's bytes instead of copying them: the session keeps `bytes` alive and its model's
  // tensors (every tensor of a .onemodel file, raw_data of an ONNX file) view them. Several sessions may
  // share one buffer.
  static Session load(std::shared_ptr<const std::vector<std::byte>> bytes,
                      const SessionOptions& options = {});
  // Shares `bytes`, which `owner` keeps alive (a mapping, a buffer inside a larger allocation), without a
  // copy. Tensors whose bytes start on a 64-byte boundary (every tensor of a .onemodel file whose buffer is
  // 64-byte aligned) are used in place as weights.
  static Session load_shared(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                             const SessionOptions& options = {});

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  // "scalar", "v128", "avx2" or "avx512".
  std::string_view kernel_path() const;
  ExecutionMode mode() const;
  // Bytes of the model's initializers as the session keeps them after creation (compact weights at two bytes
  // a value); copies that kernels derive per kernel path (packed matrices) are not counted.
  size_t weight_bytes() const;

  // Tensor form: every input once, by name, in any order; the outputs named (all of them when empty).
  std::vector<Tensor> run(const std::vector<NamedTensor>& inputs,
                          const std::vector<std::string>& output_names = {});
  // Tensor form writing into caller tensors: an output of the right type and shape is overwritten in place
  // (allocation-free once warm); an empty one is replaced by a new tensor.
  void run(const std::vector<NamedTensor>& inputs, const std::vector<std::string>& output_names,
           std::vector<Tensor>& outputs);
  // Span form for one input and one output: copies in and out, allocation-free once warm. Returns the output
  // shape rank and writes the extents into `output_shape` (at most 8).
  template <class TIn, class TOut>
  size_t run(std::span<const TIn> input, std::span<const int64_t> input_shape, std::span<TOut> output,
             std::span<int64_t, 8> output_shape) {
    return run_span(dtype_of<TIn>(), input.data(), input.size(), input_shape, dtype_of<TOut>(), output.data(),
                    output.size(), output_shape);
  }

  // Releases the weights once running calls finish; later calls throw SessionError(Disposed).
  void dispose();

 private:
  explicit Session(std::shared_ptr<SessionImpl> impl);
  size_t run_span(DType in_type, const void* in, size_t in_count, std::span<const int64_t> in_shape,
                  DType out_type, void* out, size_t out_capacity, std::span<int64_t, 8> out_shape);
  std::shared_ptr<SessionImpl> impl_;
  friend class Model;
};

}  // namespace onemodel
