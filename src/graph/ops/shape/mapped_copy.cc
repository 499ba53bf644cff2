#include "graph/ops/shape/mapped_copy.h"

#include <cstring>

#include "onemodel/tensor.h"

namespace onemodel::ops {
namespace {

// One output row along the last axis. W is the element size, so each memcpy is a single load and store.
template <size_t W>
void copy_row(const std::byte* src, std::byte* dst, const int32_t* map, int64_t n, const std::byte* fill) {
  for (int64_t i = 0; i < n; ++i) {
    const std::byte* from = map[i] < 0 ? fill : src + static_cast<size_t>(map[i]) * W;
    std::memcpy(dst + static_cast<size_t>(i) * W, from, W);
  }
}

template <size_t W>
void fill_row(std::byte* dst, int64_t n, const std::byte* fill) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * W, fill, W);
}

template <size_t W>
void copy_all(const TensorRef& in, const TensorRef& out, const AxisMaps& maps, const std::byte* fill) {
  const int rank = out.shape.rank;
  if (out.count() == 0) return;
  if (rank == 0) {
    std::memcpy(out.data, in.data, W);
    return;
  }
  int64_t in_stride[kMaxRank];
  int64_t stride = 1;
  for (int a = rank - 1; a >= 0; --a) {
    in_stride[a] = stride;
    stride *= in.shape[a];
  }
  const int last = rank - 1;
  const int64_t row = out.shape[last];
  // A last-axis map that reads one unbroken run (Slice with step 1; Tile, Expand or Pad leaving that axis
  // alone) copies rows whole.
  const int32_t* inner = maps.axis[last];
  bool run_of_input = inner[0] >= 0;
  for (int64_t i = 1; run_of_input && i < row; ++i) run_of_input = inner[i] == inner[0] + i;
  int64_t index[kMaxRank] = {};
  std::byte* dst = out.data;
  for (;;) {
    int64_t offset = 0;
    bool filled = false;
    for (int a = 0; a < last; ++a) {
      const int64_t at = maps.axis[a][index[a]];
      filled = filled || at < 0;
      offset += at * in_stride[a];
    }
    if (filled) {
      fill_row<W>(dst, row, fill);
    } else if (run_of_input) {
      std::memcpy(dst, in.data + static_cast<size_t>(offset + inner[0]) * W, static_cast<size_t>(row) * W);
    } else {
      copy_row<W>(in.data + static_cast<size_t>(offset) * W, dst, inner, row, fill);
    }
    dst += static_cast<size_t>(row) * W;
    int a = last - 1;
    while (a >= 0 && ++index[a] == out.shape[a]) index[a--] = 0;
    if (a < 0) return;
  }
}

}  // namespace

AxisMaps allocate_axis_maps(Arena& scratch, const Shape& out) {
  AxisMaps maps;
  for (int a = 0; a < out.rank; ++a)
    maps.axis[a] = scratch.allocate_array<int32_t>(static_cast<size_t>(out[a]) + 1);
  return maps;
}

void mapped_copy(const TensorRef& in, const TensorRef& out, const AxisMaps& maps, const std::byte* fill) {
  switch (dtype_size(out.dtype)) {
    case 1:
      return copy_all<1>(in, out, maps, fill);
    case 2:
      return copy_all<2>(in, out, maps, fill);
    case 4:
      return copy_all<4>(in, out, maps, fill);
    case 16:  // String handles
      return copy_all<16>(in, out, maps, fill);
    default:
      return copy_all<8>(in, out, maps, fill);
  }
}

}  // namespace onemodel::ops
