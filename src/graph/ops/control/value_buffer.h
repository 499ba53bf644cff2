// Owned tensor storage for values that outlive one body run: Loop's carried values and the stacked scan
// outputs of Loop and Scan. 64-byte aligned like plan storage, grown by doubling.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/shape.h"
#include "onemodel/error.h"

namespace onemodel::ops {

class ValueBuffer {
 public:
  // Becomes a copy of `src`.
  void assign(const TensorRef& src);
  // Becomes an uninitialised tensor of this type and shape; returns its storage.
  std::byte* reset(DType dtype, const Shape& shape);
  // The held value (non-null data even when empty).
  TensorRef ref() const;

  // Appends one per-iteration slice; every slice must have the type and shape of the first.
  void append_slice(const TensorRef& slice, const std::string& node);
  // The slices stacked on a new first axis of extent `count` (== slices appended); with none, an empty [0]
  // tensor of the declared element type (float32 when the body does not declare a stored type).
  TensorRef stacked(int64_t count, int32_t declared_elem_type);

 private:
  void reserve(size_t bytes);

  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> data_;
  size_t capacity_ = 0, size_ = 0;
  DType dtype_ = DType::F32;
  Shape shape_;  // assign: the value's shape; append_slice: the slice shape
  bool has_slice_ = false;
};

// The single element of a one-element tensor of type `dtype` (a scalar or shape [1]); fails naming `what`.
template <class T>
T scalar_input(const TensorRef& r, DType dtype, const char* what, const std::string& node) {
  if (r.dtype != dtype || r.count() != 1) {
    throw SessionError(SessionError::Kind::InvalidInput,
                       std::string("the ") + what + " must be one " + std::string(dtype_name(dtype)) +
                           ", got " + std::string(dtype_name(r.dtype)) + " " + r.shape.str(),
                       node);
  }
  return *r.as<T>();
}

}  // namespace onemodel::ops
