#include "core/shape.h"

#include <algorithm>

#include "onemodel/error.h"

namespace onemodel {

Shape::Shape(std::initializer_list<int64_t> d) {
  if (d.size() > kMaxRank)
    throw SessionError(SessionError::Kind::InvalidInput, "rank above 8 is not supported");
  rank = static_cast<int32_t>(d.size());
  std::copy(d.begin(), d.end(), dims.begin());
}

Shape Shape::of(std::span<const int64_t> d) {
  if (d.size() > kMaxRank) {
    throw SessionError(SessionError::Kind::InvalidInput,
                       "rank " + std::to_string(d.size()) + " is above the supported maximum of 8");
  }
  Shape s;
  s.rank = static_cast<int32_t>(d.size());
  std::copy(d.begin(), d.end(), s.dims.begin());
  return s;
}

int64_t Shape::count() const {
  return count(0, rank);
}

int64_t Shape::count(int from, int to) const {
  int64_t n = 1;
  for (int i = from; i < to; ++i) n *= dims[static_cast<size_t>(i)];
  return n;
}

bool Shape::operator==(const Shape& o) const {
  return rank == o.rank && std::equal(dims.begin(), dims.begin() + rank, o.dims.begin());
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) s += (i ? "," : "") + std::to_string(dims[static_cast<size_t>(i)]);
  return s + "]";
}

std::string shape_problem(std::span<const int64_t> dims, size_t element_size) {
  if (dims.size() > kMaxRank) return "rank " + std::to_string(dims.size()) + " is above 8";
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return "negative extent " + std::to_string(d);
    if (d > kMaxElements) return "extent " + std::to_string(d) + " is above 2^31-1";
    n *= d;  // both factors <= 2^31-1: no overflow
    if (n > kMaxElements) return "element count is above 2^31-1";
  }
  if (element_size > 0 && n > kMaxElements / static_cast<int64_t>(element_size))
    return "byte size is above 2^31-1";
  return {};
}

bool broadcast_shapes(const Shape& a, const Shape& b, Shape& out) {
  Shape r;
  r.rank = std::max(a.rank, b.rank);
  for (int i = 0; i < r.rank; ++i) {
    int ia = a.rank - r.rank + i, ib = b.rank - r.rank + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1)
      r[i] = da;
    else if (da == 1)
      r[i] = db;
    else
      return false;
  }
  out = r;
  return true;
}

}  // namespace onemodel
