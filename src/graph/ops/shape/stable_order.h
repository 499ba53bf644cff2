// A stable sort of element positions without heap allocation (run() draws its buffers from scratch), shared
// by TopK and Unique.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

namespace onemodel::ops {

// Sorts the n positions in `order` stably by the strict ordering before(p, q), with a bottom-up merge sort
// through `tmp` (n entries). Returns whichever of the two buffers holds the result.
template <class Before>
int64_t* stable_order(int64_t* order, int64_t* tmp, int64_t n, Before before) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      int64_t a = lo, b = mid, out = lo;
      while (a < mid && b < hi) tmp[out++] = before(order[b], order[a]) ? order[b++] : order[a++];
      while (a < mid) tmp[out++] = order[a++];
      while (b < hi) tmp[out++] = order[b++];
    }
    std::swap(order, tmp);
  }
  return order;
}

}  // namespace onemodel::ops
