// Element traits of the stored types for the element-wise kernels: how an element is stored, the type it is
// computed in, and exact mode's NaN rule. One switch (`visit_dtype`) turns a run-time DType into a
// compile-time trait so every kernel is a template written once over the trait.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/half.h"
#include "onemodel/error.h"
#include "onemodel/tensor.h"

namespace onemodel::ops {

// The quiet NaN with no payload and positive sign that exact mode stores (exact-mode.md rule 4).
template <class V>
inline V canonical_nan() {
  if constexpr (std::is_same_v<V, float>)
    return __builtin_bit_cast(float, uint32_t{0x7FC00000u});
  else
    return __builtin_bit_cast(double, uint64_t{0x7FF8000000000000u});
}

// Exact mode's rewrite of a computed value: NaN becomes canonical, everything else passes. Written as a
// select so the compiler vectorises it.
template <class V>
inline V canonicalize(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return v != v ? canonical_nan<V>() : v;
  else
    return v;
}

// c ? a : b for values already computed, as a bit blend for floats. GCC keeps floating-point operations on
// one side of a branch (they may trap under its default -ftrapping-math), and such a loop stays scalar; the
// blend leaves it nothing to branch on.
template <class V>
inline V select_value(bool c, V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
    const U mask = U(0) - U(c);
    return __builtin_bit_cast(V, (__builtin_bit_cast(U, a) & mask) | (__builtin_bit_cast(U, b) & ~mask));
  } else {
    return c ? a : b;
  }
}

// Rewrites every stored NaN of a float type among data[0, n) to the canonical NaN of that type.
template <class E>
void canonicalize_stored(typename E::Stored* data, int64_t n) {
  const typename E::Stored canonical = E::store(canonical_nan<typename E::Value>());
  for (int64_t i = 0; i < n; ++i) data[i] = E::is_nan(data[i]) ? canonical : data[i];
}

// Elements stored as themselves (f32, f64 and the integers).
template <DType D, class T>
struct PlainElem {
  using Stored = T;
  using Value = T;
  static constexpr DType dtype = D;
  static constexpr bool is_float = std::is_floating_point_v<T>;
  static Value load(Stored s) { return s; }
  static Stored store(Value v) { return v; }
  static bool is_nan(Stored s) { return s != s; }
};

// 16-bit floats, computed in binary32 and rounded back to nearest even on store (tensors.md §10).
// kInfinity is the pattern of +infinity; NaNs are the patterns above it (either sign).
template <DType D, float (*kToFloat)(uint16_t), uint16_t (*kFromFloat)(float), uint16_t kInfinity>
struct HalfElem {
  using Stored = uint16_t;
  using Value = float;
  static constexpr DType dtype = D;
  static constexpr bool is_float = true;
  static constexpr Stored infinity = kInfinity;
  static Value load(Stored s) { return kToFloat(s); }
  static Stored store(Value v) { return kFromFloat(v); }
  static bool is_nan(Stored s) { return (s & 0x7FFF) > kInfinity; }
};

// Bytes that are 0 or 1; any non-zero byte reads as true.
struct BoolElem {
  using Stored = uint8_t;
  using Value = uint8_t;
  static constexpr DType dtype = DType::Bool;
  static constexpr bool is_float = false;
  static Value load(Stored s) { return s != 0; }
  static Stored store(Value v) { return v != 0; }
};

using F32Elem = PlainElem<DType::F32, float>;
using F64Elem = PlainElem<DType::F64, double>;
using F16Elem = HalfElem<DType::F16, half_to_float, float_to_half, 0x7C00>;
using BF16Elem = HalfElem<DType::BF16, bfloat16_to_float, float_to_bfloat16, 0x7F80>;
using I8Elem = PlainElem<DType::I8, int8_t>;
using I16Elem = PlainElem<DType::I16, int16_t>;
using I32Elem = PlainElem<DType::I32, int32_t>;
using I64Elem = PlainElem<DType::I64, int64_t>;
using U8Elem = PlainElem<DType::U8, uint8_t>;
using U16Elem = PlainElem<DType::U16, uint16_t>;
using U32Elem = PlainElem<DType::U32, uint32_t>;
using U64Elem = PlainElem<DType::U64, uint64_t>;

template <class E>
inline constexpr bool is_integer_elem = std::is_integral_v<typename E::Value>&& E::dtype != DType::Bool;

// Integer arithmetic in an unsigned type at least as wide as int: nothing is promoted to a signed int that
// could overflow, and narrowing back is modulo 2^n (two's complement wrap-around).
template <class V>
using Wrap = std::conditional_t<(sizeof(V) < sizeof(unsigned)), unsigned, std::make_unsigned_t<V>>;

// "All numeric" of ops-elementwise.md: f16, f32, f64 and the eight integer types (not bf16, not bool).
template <class E>
inline constexpr bool is_numeric_elem = is_integer_elem<E> || (E::is_float && E::dtype != DType::BF16);

// The largest finite value of the element type, in its computing type (the 16-bit floats' own extreme, not
// binary32's). Its negation is the lowest for the float types.
template <class E>
typename E::Value finite_max() {
  if constexpr (std::is_same_v<typename E::Stored, uint16_t> && E::is_float)
    return E::load(static_cast<uint16_t>(E::infinity - 1));
  else
    return std::numeric_limits<typename E::Value>::max();
}
template <class E>
typename E::Value finite_lowest() {
  if constexpr (E::is_float)
    return -finite_max<E>();
  else
    return std::numeric_limits<typename E::Value>::lowest();
}

// Calls f(E{}) with the trait of `t`; every stored type has one.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::F32:
      return f(F32Elem{});
    case DType::F64:
      return f(F64Elem{});
    case DType::F16:
      return f(F16Elem{});
    case DType::BF16:
      return f(BF16Elem{});
    case DType::I8:
      return f(I8Elem{});
    case DType::I16:
      return f(I16Elem{});
    case DType::I32:
      return f(I32Elem{});
    case DType::I64:
      return f(I64Elem{});
    case DType::U8:
      return f(U8Elem{});
    case DType::U16:
      return f(U16Elem{});
    case DType::U32:
      return f(U32Elem{});
    case DType::U64:
      return f(U64Elem{});
    case DType::Bool:
      return f(BoolElem{});
    case DType::String:
      break;
  }
  if (t == DType::String)
    throw SessionError(SessionError::Kind::Unsupported, "this operator does not take string elements");
  throw SessionError(SessionError::Kind::InvalidInput,
                     "element type code " + std::to_string(static_cast<int>(t)) + " is not stored");
}

// f16, bf16, f32 or f64.
inline bool is_float_dtype(DType t) {
  return visit_dtype(t, [](auto e) { return decltype(e)::is_float; });
}

}  // namespace onemodel::ops
