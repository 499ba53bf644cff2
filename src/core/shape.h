// Fixed-capacity shapes (rank 0..8) and raw tensor references used inside plans and kernels. No heap use, so
// a warm run can pass shapes around without allocating.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "onemodel/tensor.h"

namespace onemodel {

inline constexpr int kMaxRank = 8;
inline constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

struct Shape {
  int32_t rank = 0;
  std::array<int64_t, kMaxRank> dims{};

  Shape() = default;
  Shape(std::initializer_list<int64_t> d);
  // Throws SessionError(InvalidInput) when the rank exceeds 8.
  static Shape of(std::span<const int64_t> d);

  int64_t operator[](int i) const { return dims[static_cast<size_t>(i)]; }
  int64_t& operator[](int i) { return dims[static_cast<size_t>(i)]; }
  std::span<const int64_t> span() const { return {dims.data(), static_cast<size_t>(rank)}; }
  std::vector<int64_t> vec() const { return {dims.begin(), dims.begin() + rank}; }
  // Product of all extents (1 for rank 0). Callers validate with check_shape first.
  int64_t count() const;
  // Product of extents [from, to).
  int64_t count(int from, int to) const;
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string str() const;  // "[2,3]"
};

// tensors.md §3: non-negative 32-bit extents, every prefix product and the byte size within 2^31-1.
// Returns an empty string when valid, else the reason.
std::string shape_problem(std::span<const int64_t> dims, size_t element_size);

// Numpy multidirectional broadcasting; false when the shapes do not broadcast.
bool broadcast_shapes(const Shape& a, const Shape& b, Shape& out);

// Normalise an axis in [-rank, rank) to [0, rank); returns -1 when out of range.
inline int normalize_axis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) return -1;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// A dense row-major tensor somewhere in memory: a plan slab, an arena, a constant, or a caller's buffer.
struct TensorRef {
  DType dtype = DType::F32;
  Shape shape;
  std::byte* data = nullptr;

  int64_t count() const { return shape.count(); }
  size_t bytes() const { return static_cast<size_t>(count()) * dtype_size(dtype); }
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(data);
  }
};

}  // namespace onemodel
