#include "graph/ops/control/value_buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace onemodel::ops {
namespace {

constexpr size_t kAlign = 64;

}  // namespace

void ValueBuffer::Free::operator()(std::byte* p) const {
  std::free(p);
}

void ValueBuffer::reserve(size_t bytes) {
  if (bytes <= capacity_ && data_) return;
  size_t capacity = std::max({bytes, capacity_ * 2, kAlign});
  capacity = (capacity + kAlign - 1) & ~(kAlign - 1);
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlign, capacity));
  if (!p) throw std::bad_alloc();
  if (size_) std::memcpy(p, data_.get(), size_);
  data_.reset(p);
  capacity_ = capacity;
}

std::byte* ValueBuffer::reset(DType dtype, const Shape& shape) {
  // A string's text lives in the body run it came from, which may end before the buffer does.
  if (dtype == DType::String)
    throw SessionError(SessionError::Kind::Unsupported, "string values carried or stacked by Loop or Scan");
  const TensorRef wanted{dtype, shape, nullptr};
  size_ = 0;
  reserve(wanted.bytes());
  size_ = wanted.bytes();
  dtype_ = dtype;
  shape_ = shape;
  return data_.get();
}

void ValueBuffer::assign(const TensorRef& src) {
  std::byte* data = reset(src.dtype, src.shape);
  if (src.bytes()) std::memcpy(data, src.data, src.bytes());
}

TensorRef ValueBuffer::ref() const {
  return TensorRef{dtype_, shape_, data_.get()};
}

void ValueBuffer::append_slice(const TensorRef& slice, const std::string& node) {
  if (slice.dtype == DType::String)
    throw SessionError(SessionError::Kind::Unsupported, "string values carried or stacked by Loop or Scan",
                       node);
  if (!has_slice_) {
    dtype_ = slice.dtype;
    shape_ = slice.shape;
    has_slice_ = true;
  } else if (slice.dtype != dtype_ || slice.shape != shape_) {
    throw SessionError(SessionError::Kind::InvalidInput,
                       "a scan output changed from " + std::string(dtype_name(dtype_)) + " " + shape_.str() +
                           " to " + std::string(dtype_name(slice.dtype)) + " " + slice.shape.str() +
                           " between iterations",
                       node);
  }
  reserve(size_ + slice.bytes());
  if (slice.bytes()) std::memcpy(data_.get() + size_, slice.data, slice.bytes());
  size_ += slice.bytes();
}

TensorRef ValueBuffer::stacked(int64_t count, int32_t declared_elem_type) {
  reserve(size_);
  if (!has_slice_) {
    DType dtype = is_stored_dtype(declared_elem_type) ? static_cast<DType>(declared_elem_type) : DType::F32;
    return TensorRef{dtype, Shape::of(std::vector<int64_t>{0}), data_.get()};
  }
  std::vector<int64_t> dims{count};
  for (int d = 0; d < shape_.rank; ++d) dims.push_back(shape_[d]);
  return TensorRef{dtype_, Shape::of(dims), data_.get()};
}

}  // namespace onemodel::ops
