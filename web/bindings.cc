// The embind boundary between the library and the JavaScript API (web/onemodel.mjs).
//
// Every entry point returns a plain object, `{value}` on success or `{error}` describing the C++ exception,
// so no exception ever crosses into JavaScript: the wrapper turns `error` into a OneModelError. Data only
// ever crosses by copy, through a Uint8Array view created right before the copy, so no view into wasm memory
// outlives a call (memory growth would detach it). The wrapper validates argument shapes and types; this side
// re-checks every length it copies because a mismatch here would write out of bounds.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "golden/golden_kernels.h"
#include "guarded.h"
#include "onemodel/onemodel.h"

namespace {

using emscripten::val;
using onemodel::SessionError;
using onemodel::web::guarded;

size_t byte_length(const val& bytes) {
  return bytes["byteLength"].as<size_t>();
}

// Copies a JS Uint8Array of exactly `size` bytes into wasm memory at `destination`.
void copy_in(const val& bytes, void* destination, size_t size, const std::string& what) {
  if (byte_length(bytes) != size) {
    throw SessionError(
        SessionError::Kind::InvalidInput,
        what + ": expected " + std::to_string(size) + " bytes, got " + std::to_string(byte_length(bytes)));
  }
  if (size == 0) return;
  val(emscripten::typed_memory_view(size, static_cast<uint8_t*>(destination))).call<void>("set", bytes);
}

// A new JS typed array (of T's kind) holding a copy of `count` elements at `source`.
template <class T>
val copy_out(const T* source, size_t count) {
  return val(emscripten::typed_memory_view(count, source)).template call<val>("slice");
}

// A String tensor from its text: `bytes` holds every element's UTF-8 back to back and `lengths` the byte view
// of one uint32 length per element, in row-major order. The lengths must tile the text exactly and their
// count must fill `dims`.
onemodel::Tensor strings_in(const val& bytes, const val& lengths, std::vector<int64_t> dims,
                            const std::string& what) {
  const size_t length_bytes = byte_length(lengths);
  if (length_bytes % sizeof(uint32_t) != 0) {
    throw SessionError(SessionError::Kind::InvalidInput,
                       what + ": string lengths are not whole uint32 values");
  }
  std::vector<uint32_t> sizes(length_bytes / sizeof(uint32_t));
  copy_in(lengths, sizes.data(), length_bytes, what + " string lengths");
  std::string text(byte_length(bytes), '\0');
  copy_in(bytes, text.data(), text.size(), what + " text");
  std::vector<std::string_view> values;
  values.reserve(sizes.size());
  size_t offset = 0;
  for (uint32_t size : sizes) {
    if (size > text.size() - offset) {
      throw SessionError(SessionError::Kind::InvalidInput,
                         what + ": string " + std::to_string(values.size()) + " runs past the " +
                             std::to_string(text.size()) + " bytes of text");
    }
    values.emplace_back(text.data() + offset, size);
    offset += size;
  }
  if (offset != text.size()) {
    throw SessionError(SessionError::Kind::InvalidInput, what + ": the string lengths add up to " +
                                                             std::to_string(offset) + " of the " +
                                                             std::to_string(text.size()) + " bytes of text");
  }
  try {
    return onemodel::Tensor::from_strings(values, std::move(dims));  // checks the count against the dims
  } catch (const SessionError& e) {
    throw SessionError(e.kind(), what + ": " + e.what());
  }
}

// Sets `bytes` and `lengths` of `entry` from a String tensor, in the layout strings_in reads.
static_assert(sizeof(size_t) == sizeof(uint32_t), "wasm32: every string length fits a uint32");
void strings_out(const onemodel::Tensor& tensor, val& entry) {
  std::vector<uint32_t> sizes;
  sizes.reserve(static_cast<size_t>(tensor.size()));
  std::string text;
  for (int64_t i = 0; i < tensor.size(); ++i) {
    const std::string_view value = tensor.string(i);
    sizes.push_back(static_cast<uint32_t>(value.size()));
    text += value;
  }
  entry.set("bytes", copy_out(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  entry.set("lengths",
            copy_out(reinterpret_cast<const uint8_t*>(sizes.data()), sizes.size() * sizeof(uint32_t)));
}

std::vector<int64_t> dims_from(const val& dims) {
  std::vector<int64_t> out;
  for (double d : emscripten::vecFromJSArray<double>(dims)) out.push_back(static_cast<int64_t>(d));
  return out;
}

val tensor_infos(const std::vector<onemodel::TensorInfo>& infos) {
  val array = val::array();
  for (size_t i = 0; i < infos.size(); ++i) {
    const auto& info = infos[i];
    val entry = val::object();
    entry.set("name", info.name);
    entry.set("kind", info.kind == onemodel::ValueKind::Sequence   ? "sequence"
                      : info.kind == onemodel::ValueKind::Optional ? "optional"
                                                                   : "tensor");
    entry.set("dtype", static_cast<int>(info.dtype));
    val dims = val::null();
    if (info.has_shape) {
      dims = val::array();
      for (size_t d = 0; d < info.dims.size(); ++d) {
        const auto& dim = info.dims[d];
        dims.set(d, dim.fixed()         ? val(static_cast<double>(dim.value))
                    : dim.param.empty() ? val::null()
                                        : val(dim.param));
      }
    }
    entry.set("dims", dims);
    array.set(i, entry);
  }
  return array;
}

onemodel::SessionOptions options_from(const val& js) {
  onemodel::SessionOptions options;
  options.mode = js["mode"].as<std::string>() == "exact" ? onemodel::ExecutionMode::Exact
                                                         : onemodel::ExecutionMode::Fast;
  options.intra_op_threads = js["intraOpThreads"].as<int>();
  options.max_cached_plans = js["maxCachedPlans"].as<int>();
  options.kernels = js["kernels"].as<std::string>();
  const std::string level = js["optimizationLevel"].as<std::string>();
  options.optimization_level = level == "none"    ? onemodel::OptimizationLevel::None
                               : level == "basic" ? onemodel::OptimizationLevel::Basic
                                                  : onemodel::OptimizationLevel::All;
  const std::string storage = js["weightStorage"].as<std::string>();
  options.weight_storage = storage == "binary16"   ? onemodel::WeightStorage::Binary16
                           : storage == "bfloat16" ? onemodel::WeightStorage::BFloat16
                                                   : onemodel::WeightStorage::Float32;
  return options;
}

// Model bytes cross into wasm memory exactly once (issue 7): copied here, then shared with the session, whose
// model views them, or read in place by the converter. The copy starts on a 64-byte boundary, as a file read
// natively does, so the session uses a .onemodel file's weights in place instead of copying them once more.
struct ModelBytes {
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> owner;
};

ModelBytes bytes_from(const val& bytes) {
  const size_t size = byte_length(bytes);
  constexpr std::align_val_t kAlign{64};
  std::shared_ptr<std::byte> buffer(static_cast<std::byte*>(::operator new(size == 0 ? 1 : size, kAlign)),
                                    [](std::byte* p) { ::operator delete(p, kAlign); });
  copy_in(bytes, buffer.get(), size, "model bytes");
  return {{buffer.get(), size}, std::move(buffer)};
}

// A loaded session, or a Model (which owns its session) when created through loadModel.
class Handle {
 public:
  explicit Handle(onemodel::Session session) : session_(std::move(session)) {}
  explicit Handle(onemodel::Model model) : model_(std::move(model)) {}

  val inputs() {
    return guarded([&] { return tensor_infos(session().inputs()); });
  }
  val outputs() {
    return guarded([&] { return tensor_infos(session().outputs()); });
  }
  val kernel_path() {
    return guarded([&] { return val(std::string(session().kernel_path())); });
  }
  val dispose() {
    return guarded([&] {
      session().dispose();
      return val::undefined();
    });
  }

  // feeds: array of {name, dtype (ONNX code), dims: number[], bytes: Uint8Array}, a String feed adding
  // `lengths` (strings_in); fetches: output names (all when empty). Returns an array of {dtype, dims, bytes},
  // plus `lengths` for a String output, in the order of the outputs asked for.
  val run(val feeds, val fetches) {
    return guarded([&] {
      std::vector<onemodel::NamedTensor> inputs;
      const size_t count = feeds["length"].as<size_t>();
      for (size_t i = 0; i < count; ++i) {
        const val feed = feeds[i];
        const int code = feed["dtype"].as<int>();
        std::string name = feed["name"].as<std::string>();
        if (!onemodel::is_stored_dtype(code)) {
          throw SessionError(SessionError::Kind::InvalidInput,
                             "input " + name + ": unsupported element type " + std::to_string(code));
        }
        const std::string what = "input '" + name + "'";
        // A String element is a handle into memory, so strings cross as their text (strings_in).
        if (code == static_cast<int>(onemodel::DType::String)) {
          inputs.push_back(
              {std::move(name), strings_in(feed["bytes"], feed["lengths"], dims_from(feed["dims"]), what)});
          continue;
        }
        onemodel::Tensor tensor(static_cast<onemodel::DType>(code), dims_from(feed["dims"]));
        copy_in(feed["bytes"], tensor.raw(), tensor.byte_size(), what);
        inputs.push_back({std::move(name), std::move(tensor)});
      }
      const auto names = emscripten::vecFromJSArray<std::string>(fetches);
      const std::vector<onemodel::Tensor> results = session().run(inputs, names);
      val out = val::array();
      for (size_t i = 0; i < results.size(); ++i) {
        const auto& tensor = results[i];
        val entry = val::object();
        entry.set("dtype", static_cast<int>(tensor.dtype()));
        val dims = val::array();
        for (size_t d = 0; d < tensor.shape().size(); ++d)
          dims.set(d, static_cast<double>(tensor.shape()[d]));
        entry.set("dims", dims);
        if (tensor.dtype() == onemodel::DType::String) {
          strings_out(tensor, entry);
        } else {
          entry.set("bytes", copy_out(static_cast<const uint8_t*>(tensor.raw()), tensor.byte_size()));
        }
        out.set(i, entry);
      }
      return out;
    });
  }

  // Model::run: `bytes` holds the values of one input of element type `dtype` (F32, I64 or I32); `shape` may
  // be empty. Returns a Float32Array.
  val run_array(val bytes, int dtype, val shape) {
    return guarded([&] {
      if (!model_) throw SessionError(SessionError::Kind::Unsupported, "runArray needs a Model");
      const std::vector<int64_t> dims = dims_from(shape);
      switch (static_cast<onemodel::DType>(dtype)) {
        case onemodel::DType::F32:
          return run_values<float>(bytes, dims);
        case onemodel::DType::I64:
          return run_values<int64_t>(bytes, dims);
        case onemodel::DType::I32:
          return run_values<int32_t>(bytes, dims);
        default:
          throw SessionError(SessionError::Kind::InvalidInput,
                             "Model.run takes float32, int64 or int32 values");
      }
    });
  }

 private:
  onemodel::Session& session() { return model_ ? model_->session() : *session_; }

  template <class T>
  val run_values(const val& bytes, const std::vector<int64_t>& dims) {
    const size_t size = byte_length(bytes);
    if (size % sizeof(T) != 0)
      throw SessionError(SessionError::Kind::InvalidInput, "input bytes are not whole values");
    std::vector<T> values(size / sizeof(T));
    copy_in(bytes, values.data(), size, "input");
    const std::vector<float> result = model_->run(std::span<const T>(values), dims);
    return copy_out(result.data(), result.size());
  }

  std::optional<onemodel::Session> session_;
  std::optional<onemodel::Model> model_;
};

val load_session(val bytes, val options) {
  return guarded([&] {
    const ModelBytes model = bytes_from(bytes);
    return val(Handle(onemodel::Session::load_shared(model.bytes, model.owner, options_from(options))));
  });
}

val load_model(val bytes, val options) {
  return guarded([&] {
    const ModelBytes model = bytes_from(bytes);
    return val(Handle(onemodel::Model::load_shared(model.bytes, model.owner, options_from(options))));
  });
}

// The .onemodel bytes of a model (docs/format.md), identical to what the native writer produces.
val convert_to_onemodel(val bytes) {
  return guarded([&] {
    const std::vector<std::byte> out = onemodel::ModelFormat::convert(bytes_from(bytes).bytes);
    return copy_out(reinterpret_cast<const uint8_t*>(out.data()), out.size());
  });
}

// The wasm heap's high-water mark in bytes (dlmalloc's peak footprint: memory taken from the system, never
// given back), so tests and benchmarks can see how much a load needed, such as the copy-once check of model
// bytes.
double heap_peak_bytes() {
  return static_cast<double>(static_cast<unsigned>(mallinfo().usmblks));
}

// The kernel lines of the cross-target golden hashes (tools/golden), so a browser can check its own exact
// bits.
val golden_kernel_lines(std::string kernels) {
  return guarded([&] {
    std::string text;
    for (const std::string& line : onemodel::golden::kernel_lines(kernels, 1)) text += line + "\n";
    return val(text);
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(onemodel) {
  emscripten::class_<Handle>("Handle")
      .function("inputs", &Handle::inputs)
      .function("outputs", &Handle::outputs)
      .function("kernelPath", &Handle::kernel_path)
      .function("run", &Handle::run)
      .function("runArray", &Handle::run_array)
      .function("dispose", &Handle::dispose);
  emscripten::function("loadSession", &load_session);
  emscripten::function("loadModel", &load_model);
  emscripten::function("goldenKernelLines", &golden_kernel_lines);
  emscripten::function("convertToOneModel", &convert_to_onemodel);
  emscripten::function("heapPeakBytes", &heap_peak_bytes);
}
