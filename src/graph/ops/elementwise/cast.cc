// Cast between every pair of stored element types. Elements pass through a wide intermediate in chunks of
// 256: float sources (f32, f64, f16, bf16) through double, which holds all four exactly; u64 through uint64;
// the other integers and bool through int64. So a conversion is one widening per source type plus one
// narrowing per target type and intermediate, not one loop per pair. f32 to and from the 16-bit floats, and
// int32 to f32, skip the intermediate (a Cast node between f32 and f16, one around each Resize of a half
// model, uses the kernel path's vector conversions, which give half.h's bits), and exact mode rewrites
// float-to-float NaN results to the canonical NaN afterwards. Strings read as numbers (to float32 directly,
// to the other types through double) and numbers print as text with the locale-free forms of
// text/number_text.h; a Cast to strings runs as data-dependent, since the text it writes lives in the run
// (graph/string_values.h).
#include "graph/ops/elementwise/cast.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/elementwise/factories.h"
#include "graph/ops/text/number_text.h"
#include "graph/string_values.h"

namespace onemodel::ops {
namespace {

constexpr int64_t kCastChunk = 256;

template <class E>
using Wide =
    std::conditional_t<E::is_float, double,
                       std::conditional_t<std::is_same_v<typename E::Value, uint64_t>, uint64_t, int64_t>>;

union WideChunk {
  double floats[kCastChunk];
  int64_t signed_ints[kCastChunk];
  uint64_t unsigned_ints[kCastChunk];
};

template <class W>
W* wide_data(WideChunk& c) {
  if constexpr (std::is_same_v<W, double>)
    return c.floats;
  else if constexpr (std::is_same_v<W, int64_t>)
    return c.signed_ints;
  else
    return c.unsigned_ints;
}

// 2^bits as a double (exact for every bits used here).
constexpr double power_of_two(int bits) {
  double p = 1;
  for (int i = 0; i < bits; ++i) p *= 2;
  return p;
}

// Float to integer: truncate toward zero, saturate at the type's range, NaN gives 0. The type's minimum and
// one past its maximum are powers of two (or 0), exactly representable, so the bounds compare without
// rounding.
template <class V>
V saturate(double d) {
  constexpr double lowest = static_cast<double>(std::numeric_limits<V>::min());
  constexpr double past_highest = power_of_two(std::numeric_limits<V>::digits);
  if (d != d) return 0;
  if (d <= lowest) return std::numeric_limits<V>::min();
  if (d >= past_highest) return std::numeric_limits<V>::max();
  return static_cast<V>(d);
}

// An integer rounded once to bfloat16's 8 significant bits (nearest, ties to even), returned as the float
// that holds that value exactly, so the bfloat16 conversion afterwards is exact. (Going through an f32
// rounding first would round twice for integers of more than 24 bits.)
template <class W>
float round_to_bf16_precision(W w) {
  bool negative = false;
  if constexpr (std::is_signed_v<W>) negative = w < 0;
  const uint64_t magnitude = negative ? uint64_t{0} - static_cast<uint64_t>(w) : static_cast<uint64_t>(w);
  const int width = 64 - std::countl_zero(magnitude);
  if (width <= 24) {  // exact in f32; the bfloat16 conversion is then the only rounding
    const float f = static_cast<float>(magnitude);
    return negative ? -f : f;
  }
  const int drop = width - 8;
  const uint64_t kept = magnitude >> drop;
  const uint64_t rest = magnitude & ((uint64_t{1} << drop) - 1);
  const uint64_t half = uint64_t{1} << (drop - 1);
  const uint64_t rounded = kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
  // rounded * 2^drop, with at most 9 significant bits and drop <= 56: exact.
  const float scale = __builtin_bit_cast(float, static_cast<uint32_t>(127 + drop) << 23);
  const float f = static_cast<float>(rounded) * scale;
  return negative ? -f : f;
}

template <class E, class W>
typename E::Stored convert(W w) {
  using V = typename E::Value;
  if constexpr (E::dtype == DType::Bool) {
    return w != 0;
  } else if constexpr (E::is_float) {
    if constexpr (std::is_same_v<W, double>) {
      if constexpr (std::is_same_v<V, double>) {
        return w;
      } else {
        return E::store(static_cast<float>(w));  // f16 and bf16 through f32, as tensors.md §10 says
      }
    } else if constexpr (E::dtype == DType::BF16) {
      return E::store(round_to_bf16_precision(w));
    } else {
      // One rounding to f64 or f32. For f16 an f32 rounding is harmless: below 2^24 it is exact, above it the
      // value overflows f16 either way.
      return E::store(static_cast<V>(w));
    }
  } else if constexpr (std::is_same_v<W, double>) {
    return saturate<V>(w);
  } else {
    return static_cast<V>(static_cast<uint64_t>(w));  // modulo 2^n
  }
}

template <class E>
void widen(const std::byte* src, WideChunk& wide, int64_t n) {
  const auto* s = reinterpret_cast<const typename E::Stored*>(src);
  auto* w = wide_data<Wide<E>>(wide);
  for (int64_t i = 0; i < n; ++i) w[i] = static_cast<Wide<E>>(E::load(s[i]));
}

template <class E, class W>
void narrow(WideChunk& wide, std::byte* dst, int64_t n) {
  auto* d = reinterpret_cast<typename E::Stored*>(dst);
  const W* w = wide_data<W>(wide);
  for (int64_t i = 0; i < n; ++i) d[i] = convert<E, W>(w[i]);
}

void int32_to_f32(const int32_t* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

// The conversions of half-precision models (f32 to and from f16 and bf16) go straight through half.h's bulk
// loops, and int32 to f32 (the Cast after ConvInteger and MatMulInteger in dynamically quantized models)
// through one plain loop, which vectorises: converting the int32 directly rounds once, to the same float as
// through int64. False for every other pair.
bool convert_directly(DType from, const std::byte* src, DType to, std::byte* dst, size_t n) {
  const auto* f32_in = reinterpret_cast<const float*>(src);
  const auto* u16_in = reinterpret_cast<const uint16_t*>(src);
  auto* f32_out = reinterpret_cast<float*>(dst);
  auto* u16_out = reinterpret_cast<uint16_t*>(dst);
  if (from == DType::F32 && to == DType::F16)
    f32_to_f16(f32_in, u16_out, n);
  else if (from == DType::F32 && to == DType::BF16)
    f32_to_bf16(f32_in, u16_out, n);
  else if (from == DType::F16 && to == DType::F32)
    f16_to_f32(u16_in, f32_out, n);
  else if (from == DType::BF16 && to == DType::F32)
    bf16_to_f32(u16_in, f32_out, n);
  else if (from == DType::I32 && to == DType::F32)
    int32_to_f32(reinterpret_cast<const int32_t*>(src), f32_out, n);
  else
    return false;
  return true;
}

// Exact mode's canonical NaN in the float results of a float-to-float conversion: the payload a NaN keeps
// through the double round trip is the hardware's choice (wasm leaves it open), so it is replaced afterwards.
void canonicalize_cast_nans(DType from, DType to, std::byte* dst, int64_t count) {
  const bool from_float = visit_dtype(from, [](auto e) { return decltype(e)::is_float; });
  visit_dtype(to, [&](auto target) {
    using To = decltype(target);
    if constexpr (To::is_float) {
      if (from_float) canonicalize_stored<To>(reinterpret_cast<typename To::Stored*>(dst), count);
    }
  });
}

using WidenFn = void (*)(const std::byte*, WideChunk&, int64_t);
using NarrowFn = void (*)(WideChunk&, std::byte*, int64_t);

// Strings to numbers: float32 straight from the text, every other type through double and Cast's rules.
void cast_from_strings(const std::byte* src, DType to, std::byte* dst, int64_t count, bool exact) {
  const auto* text = reinterpret_cast<const StringElem*>(src);
  if (to == DType::F32) {
    auto* out = reinterpret_cast<float*>(dst);
    for (int64_t i = 0; i < count; ++i) out[i] = parse_float(text[i].view());
    return;
  }
  double wide[kCastChunk];
  const size_t to_size = dtype_size(to);
  for (int64_t i = 0; i < count; i += kCastChunk) {
    const int64_t n = std::min(kCastChunk, count - i);
    for (int64_t j = 0; j < n; ++j) wide[j] = parse_double(text[i + j].view());
    cast_elements(DType::F64, reinterpret_cast<const std::byte*>(wide), to,
                  dst + static_cast<size_t>(i) * to_size, n, exact);
  }
}

// The element types a Cast to strings prints.
bool prints_as_text(DType from) {
  return visit_dtype(from, [](auto e) {
    using E = decltype(e);
    return E::dtype == DType::F32 || E::dtype == DType::F64 || is_integer_elem<E>;
  });
}

void cast_to_strings(const OpRun& run) {
  const TensorRef& x = run.inputs[0];
  TensorRef& y = run.allocator->allocate(0, DType::String, x.shape);
  auto* out = y.as<StringElem>();
  visit_dtype(x.dtype, [&](auto e) {
    using E = decltype(e);
    const auto* in = x.as<const typename E::Stored>();
    if constexpr (E::dtype == DType::F32 || E::dtype == DType::F64 || is_integer_elem<E>) {
      for (int64_t i = 0; i < x.count(); ++i) {
        std::string text;
        if constexpr (E::dtype == DType::F32)
          text = float_text(in[i]);
        else if constexpr (E::dtype == DType::F64)
          text = double_text(in[i]);
        else if constexpr (std::is_unsigned_v<typename E::Stored>)
          text = unsigned_text(in[i]);
        else
          text = integer_text(in[i]);
        out[i] = make_string(*run.allocator, text);
      }
    }
  });
}

// Cast and CastLike to `to`: a Cast to strings is shaped once it has run, since it writes text.
void infer_cast(InferContext& ctx, DType to) {
  const DType from = ctx.input_dtype(0);
  if (to == DType::String && from != DType::String) {
    if (!prints_as_text(from)) {
      ctx.node().unsupported(ctx.node().node().op_type + ": casting " + std::string(dtype_name(from)) +
                             " to strings is not supported");
    }
    ctx.outputs_known_after_run();
    return;
  }
  ctx.set_output(0, to, ctx.input_shape(0));
}

class Cast final : public OpKernel {
 public:
  explicit Cast(DType to) : to_(to) { supports_exact = true; }

  void infer(InferContext& ctx) const override { infer_cast(ctx, to_); }
  void run(const OpRun& run) const override { run_cast(run, to_); }

 private:
  DType to_;
};

// CastLike: Cast to the element type of input 1, whose values are never read.
class CastLike final : public OpKernel {
 public:
  CastLike() { supports_exact = true; }

  void infer(InferContext& ctx) const override { infer_cast(ctx, ctx.input_dtype(1)); }
  void run(const OpRun& run) const override { run_cast(run, run.inputs[1].dtype); }
};

}  // namespace

void cast_elements(DType from, const std::byte* src, DType to, std::byte* dst, int64_t count, bool exact) {
  if (count <= 0) return;
  if (from == to) {
    std::memcpy(dst, src, static_cast<size_t>(count) * dtype_size(from));
    return;
  }
  if (from == DType::String) return cast_from_strings(src, to, dst, count, exact);
  if (to == DType::String) {
    throw SessionError(SessionError::Kind::Unsupported,
                       "numbers become strings only in Cast and CastLike, which keep the text in the run");
  }
  if (!convert_directly(from, src, to, dst, static_cast<size_t>(count))) {
    WidenFn widen_fn = nullptr;
    NarrowFn narrow_fn = nullptr;
    visit_dtype(from, [&](auto source) {
      using From = decltype(source);
      widen_fn = &widen<From>;
      visit_dtype(to, [&](auto target) { narrow_fn = &narrow<decltype(target), Wide<From>>; });
    });
    const size_t from_size = dtype_size(from), to_size = dtype_size(to);
    WideChunk wide;
    for (int64_t i = 0; i < count; i += kCastChunk) {
      const int64_t n = std::min(kCastChunk, count - i);
      widen_fn(src + static_cast<size_t>(i) * from_size, wide, n);
      narrow_fn(wide, dst + static_cast<size_t>(i) * to_size, n);
    }
  }
  if (exact) canonicalize_cast_nans(from, to, dst, count);
}

void run_cast(const OpRun& run, DType to) {
  if (to == DType::String && run.inputs[0].dtype != DType::String) return cast_to_strings(run);
  const TensorRef& x = run.inputs[0];
  const TensorRef& y = run.outputs[0];
  const size_t from_size = dtype_size(x.dtype), to_size = dtype_size(y.dtype);
  const bool widen_half = x.dtype == DType::F16 && y.dtype == DType::F32;
  const bool narrow_half = x.dtype == DType::F32 && y.dtype == DType::F16;
  for_each_chunk(run.threads, y.count(), 1.0, [&](int64_t begin, int64_t end) {
    const std::byte* src = x.data + static_cast<size_t>(begin) * from_size;
    std::byte* dst = y.data + static_cast<size_t>(begin) * to_size;
    const auto n = static_cast<size_t>(end - begin);
    if (widen_half) {
      run.kernels->f16_to_f32(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<float*>(dst), n);
    } else if (narrow_half) {
      run.kernels->f32_to_f16(reinterpret_cast<const float*>(src), reinterpret_cast<uint16_t*>(dst), n);
    } else {
      cast_elements(x.dtype, src, y.dtype, dst, end - begin, run.exact);
      return;
    }
    if (run.exact) canonicalize_cast_nans(x.dtype, y.dtype, dst, end - begin);
  });
}

std::unique_ptr<OpKernel> make_cast(const NodeInfo& node) {
  require_inputs(node, 1);
  const int64_t to = node.get_int("to", 0);
  // `saturate` (opset 19+) only concerns float8 targets, which are not stored; any value is accepted.
  if (to <= 0 || to > std::numeric_limits<int32_t>::max() ||
      onnx_type_name(static_cast<int32_t>(to)) == "unknown") {
    node.fail("attribute 'to' must name an ONNX element type, got " + std::to_string(to));
  }
  if (!is_stored_dtype(static_cast<int32_t>(to))) {
    node.unsupported("Cast: element type " + std::string(onnx_type_name(static_cast<int32_t>(to))) +
                     " is not supported");
  }
  return std::make_unique<Cast>(static_cast<DType>(to));
}

std::unique_ptr<OpKernel> make_cast_like(const NodeInfo& node) {
  require_inputs(node, 2);
  return std::make_unique<CastLike>();
}

}  // namespace onemodel::ops
