// Element types and the owning tensor handed across the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel {

// The numeric value is the ONNX TensorProto.DataType code (tensors.md §2).
enum class DType : int32_t {
  F32 = 1,
  U8 = 2,
  I8 = 3,
  U16 = 4,
  I16 = 5,
  I32 = 6,
  I64 = 7,
  String = 8,  // UTF-8 text: see Tensor::from_strings
  Bool = 9,
  F16 = 10,
  F64 = 11,
  U32 = 12,
  U64 = 13,
  BF16 = 16,
};

// Bytes per element of a stored type (a String element is a 16-byte handle to its text).
size_t dtype_size(DType t);
// Short name used in messages and the CLI ("F32", "I64", ...).
std::string_view dtype_name(DType t);
// ONNX's lower-case name of any TensorProto.DataType code ("float", "int4", "string", ...).
std::string_view onnx_type_name(int32_t code);
// True when `code` is one of the stored element types above.
bool is_stored_dtype(int32_t code);

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::F32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::F64;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::I8;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::U8;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::I16;
}
template <>
constexpr DType dtype_of<uint16_t>() {
  return DType::U16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::I32;
}
template <>
constexpr DType dtype_of<uint32_t>() {
  return DType::U32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::I64;
}
template <>
constexpr DType dtype_of<uint64_t>() {
  return DType::U64;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}

// A dense row-major tensor that owns (or shares) 64-byte-aligned storage. Copies share the storage.
class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor of the given type and shape. Throws SessionError(InvalidInput) on a bad shape.
  Tensor(DType dtype, std::vector<int64_t> shape);

  template <class T>
  static Tensor from(std::span<const T> values, std::vector<int64_t> shape) {
    Tensor t(dtype_of<T>(), std::move(shape));
    t.check_count(values.size());
    if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(T));
    return t;
  }
  template <class T>
  static Tensor from(const std::vector<T>& values, std::vector<int64_t> shape) {
    return from(std::span<const T>(values), std::move(shape));
  }

  // A String tensor of these values (UTF-8; not checked): the text is copied into the tensor's storage.
  // Tensor(DType::String, shape) holds empty strings.
  static Tensor from_strings(std::span<const std::string_view> values, std::vector<int64_t> shape);
  static Tensor from_strings(const std::vector<std::string>& values, std::vector<int64_t> shape);
  // Element i (row-major) of a String tensor, valid while the tensor's storage lives; and a copy of all of
  // them. Throw SessionError(InvalidInput) for another element type or index.
  std::string_view string(int64_t i) const;
  std::vector<std::string> strings() const;

  bool empty() const { return storage_ == nullptr; }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t size() const;
  size_t byte_size() const { return static_cast<size_t>(size()) * dtype_size(dtype_); }

  // The element bytes; for a String tensor these are the handles (read its text with string(), never write
  // them).
  void* raw() { return storage_.get(); }
  const void* raw() const { return storage_.get(); }
  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(raw()), byte_size()}; }

  // Typed access; throws SessionError(InvalidInput) when T does not match the element type.
  template <class T>
  std::span<T> data() {
    check_type(dtype_of<T>());
    return {static_cast<T*>(raw()), static_cast<size_t>(size())};
  }
  template <class T>
  std::span<const T> data() const {
    check_type(dtype_of<T>());
    return {static_cast<const T*>(raw()), static_cast<size_t>(size())};
  }
  // Copy of the elements as a vector.
  template <class T>
  std::vector<T> to_vector() const {
    auto d = data<T>();
    return {d.begin(), d.end()};
  }

 private:
  void check_type(DType wanted) const;
  void check_count(size_t count) const;

  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_;
  std::shared_ptr<std::byte> storage_;
};

}  // namespace onemodel
