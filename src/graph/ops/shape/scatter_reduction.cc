#include "graph/ops/shape/scatter_reduction.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "graph/ops/elementwise/element_types.h"

namespace onemodel::ops {
namespace {

// Folds `count` updates into `out`. Integers wrap (computed in an unsigned type); max and min let a NaN in
// either operand win through the update, as ONNX Runtime does.
template <class T>
void fold(Reduction r, T* out, const T* update, int64_t count) {
  auto widen = [](T v) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<Wrap<T>>(v);
    else
      return v;
  };
  for (int64_t i = 0; i < count; ++i) {
    const T u = update[i], o = out[i];
    switch (r) {
      case Reduction::Add:
        out[i] = static_cast<T>(widen(o) + widen(u));
        break;
      case Reduction::Mul:
        out[i] = static_cast<T>(widen(o) * widen(u));
        break;
      case Reduction::Max:
        out[i] = u < o ? o : u;
        break;
      case Reduction::Min:
        out[i] = o < u ? o : u;
        break;
      case Reduction::None:
        out[i] = u;
        break;
    }
  }
}

}  // namespace

Reduction scatter_reduction(const NodeInfo& node) {
  const std::string name = node.opset() >= 16 ? node.get_string("reduction", "none") : "none";
  if (name == "none") return Reduction::None;
  if (name == "add") return Reduction::Add;
  if (name == "mul") return Reduction::Mul;
  if (name == "max" && node.opset() >= 18) return Reduction::Max;
  if (name == "min" && node.opset() >= 18) return Reduction::Min;
  node.fail("unknown reduction '" + name + "'");
}

void check_scatter_reduction_type(const InferContext& ctx, Reduction reduction, DType dtype) {
  if (reduction != Reduction::None && dtype != DType::F32 && dtype != DType::F64 && dtype != DType::I32 &&
      dtype != DType::I64) {
    ctx.node().unsupported(ctx.node().node().op_type + ": a reduction on " + std::string(dtype_name(dtype)) +
                           " is not supported");
  }
}

void scatter_slice(Reduction r, DType dtype, std::byte* dst, const std::byte* src, int64_t count,
                   size_t width) {
  switch (r == Reduction::None ? DType::U8 : dtype) {
    case DType::F32:
      return fold(r, reinterpret_cast<float*>(dst), reinterpret_cast<const float*>(src), count);
    case DType::F64:
      return fold(r, reinterpret_cast<double*>(dst), reinterpret_cast<const double*>(src), count);
    case DType::I32:
      return fold(r, reinterpret_cast<int32_t*>(dst), reinterpret_cast<const int32_t*>(src), count);
    case DType::I64:
      return fold(r, reinterpret_cast<int64_t*>(dst), reinterpret_cast<const int64_t*>(src), count);
    default:
      if (count > 0) std::memmove(dst, src, static_cast<size_t>(count) * width);
      return;
  }
}

}  // namespace onemodel::ops
