// Transpose. The copy first simplifies the problem: extent-1 axes are dropped and input axes that stay
// neighbours in the output are merged. Then one of three loops runs: a single memcpy (nothing moves), a
// memcpy per contiguous run (the last axis stays last), or 32x32 tiles between the input's and the output's
// contiguous axes.
#include "graph/ops/shape/transpose.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/string_elem.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/offset_walker.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

constexpr int64_t kTile = 32;

// The simplified problem: input extents and the permutation, with every extent above 1 and no mergeable
// neighbours.
struct Simplified {
  int rank = 0;
  int64_t dims[kMaxRank];
  int perm[kMaxRank];
};

Simplified simplify(std::span<const int64_t> dims, std::span<const int> perm) {
  const int rank = static_cast<int>(dims.size());
  // Positions of the kept (extent > 1) input axes, and those axes in output order.
  int kept_index[kMaxRank];
  int64_t kept_dims[kMaxRank];
  int kept = 0;
  for (int a = 0; a < rank; ++a) {
    kept_index[a] = dims[a] > 1 ? kept : -1;
    if (dims[a] > 1) kept_dims[kept++] = dims[a];
  }
  int order[kMaxRank];
  int n = 0;
  for (int i = 0; i < rank; ++i) {
    if (kept_index[perm[i]] >= 0) order[n++] = kept_index[perm[i]];
  }
  // Runs of consecutive input axes in output order become one axis each.
  int group_start[kMaxRank], group_end[kMaxRank];
  int groups = 0;
  for (int i = 0; i < n; ++i) {
    if (groups > 0 && order[i] == group_end[groups - 1]) {
      ++group_end[groups - 1];
    } else {
      group_start[groups] = order[i];
      group_end[groups] = order[i] + 1;
      ++groups;
    }
  }
  Simplified s;
  s.rank = groups;
  for (int g = 0; g < groups; ++g) {
    int input_axis = 0;  // rank of this group among the groups in input order
    for (int h = 0; h < groups; ++h) input_axis += group_start[h] < group_start[g] ? 1 : 0;
    s.perm[g] = input_axis;
    int64_t extent = 1;
    for (int a = group_start[g]; a < group_end[g]; ++a) extent *= kept_dims[a];
    s.dims[input_axis] = extent;
  }
  return s;
}

// Moves R x C blocks: element (r, c) is src[r + c * src_col] -> dst[r * dst_row + c], over every tuple of
// `outer`.
template <class T>
void transpose_tiles(const T* src, T* dst, int64_t rows, int64_t cols, int64_t src_col, int64_t dst_row,
                     OffsetWalker outer) {
  do {
    const T* s = src + outer.a();
    T* d = dst + outer.b();
    for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) d[r * dst_row + c] = s[r + c * src_col];
        }
      }
    }
  } while (outer.next());
}

class Transpose final : public OpKernel {
 public:
  explicit Transpose(std::vector<int64_t> perm) : perm_(std::move(perm)) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    int perm[kMaxRank];
    resolve_perm(ctx, in.rank, perm);
    Shape out;
    out.rank = in.rank;
    for (int i = 0; i < in.rank; ++i) out[i] = in[perm[i]];
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    int perm[kMaxRank];
    for (int i = 0; i < x.shape.rank; ++i)
      perm[i] = perm_.empty() ? x.shape.rank - 1 - i : static_cast<int>(perm_[i]);
    transpose_copy(x.data, run.outputs[0].data, dtype_size(x.dtype), x.shape.span(),
                   std::span<const int>(perm, static_cast<size_t>(x.shape.rank)));
  }

 private:
  void resolve_perm(const InferContext& ctx, int rank, int* perm) const {
    if (perm_.empty()) {
      for (int i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
      return;
    }
    if (perm_.size() != static_cast<size_t>(rank)) {
      ctx.fail("perm has " + std::to_string(perm_.size()) + " entries for an input of rank " +
               std::to_string(rank));
    }
    for (int i = 0; i < rank; ++i) perm[i] = static_cast<int>(perm_[i]);
  }

  std::vector<int64_t> perm_;  // empty: reverse the axes
};

}  // namespace

void transpose_copy(const std::byte* src, std::byte* dst, size_t element_size, std::span<const int64_t> dims,
                    std::span<const int> perm) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return;
  const Simplified s = simplify(dims, perm);
  const int r = s.rank;
  if (r <= 1) {
    std::memcpy(dst, src, static_cast<size_t>(count) * element_size);
    return;
  }
  int64_t in_stride[kMaxRank], out_stride[kMaxRank];
  in_stride[r - 1] = out_stride[r - 1] = 1;
  for (int a = r - 2; a >= 0; --a) {
    in_stride[a] = in_stride[a + 1] * s.dims[a + 1];
    out_stride[a] = out_stride[a + 1] * s.dims[s.perm[a + 1]];
  }
  if (s.perm[r - 1] == r - 1) {
    // The last axis stays last: copy its contiguous runs.
    const size_t run_bytes = static_cast<size_t>(s.dims[r - 1]) * element_size;
    OffsetWalker outer;
    for (int i = 0; i < r - 1; ++i) outer.add_axis(s.dims[s.perm[i]], in_stride[s.perm[i]], out_stride[i]);
    do {
      std::memcpy(dst + static_cast<size_t>(outer.b()) * element_size,
                  src + static_cast<size_t>(outer.a()) * element_size, run_bytes);
    } while (outer.next());
    return;
  }
  // Tiles between output axis `j` (the input's contiguous axis) and the output's last axis.
  int j = 0;
  while (s.perm[j] != r - 1) ++j;
  OffsetWalker outer;
  for (int i = 0; i < r - 1; ++i) {
    if (i != j) outer.add_axis(s.dims[s.perm[i]], in_stride[s.perm[i]], out_stride[i]);
  }
  const int64_t rows = s.dims[r - 1], cols = s.dims[s.perm[r - 1]];
  const int64_t src_col = in_stride[s.perm[r - 1]], dst_row = out_stride[j];
  switch (element_size) {
    case 1:
      transpose_tiles(reinterpret_cast<const uint8_t*>(src), reinterpret_cast<uint8_t*>(dst), rows, cols,
                      src_col, dst_row, outer);
      break;
    case 2:
      transpose_tiles(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<uint16_t*>(dst), rows, cols,
                      src_col, dst_row, outer);
      break;
    case 4:
      transpose_tiles(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(dst), rows, cols,
                      src_col, dst_row, outer);
      break;
    case 16:  // String handles
      transpose_tiles(reinterpret_cast<const StringElem*>(src), reinterpret_cast<StringElem*>(dst), rows,
                      cols, src_col, dst_row, outer);
      break;
    default:  // 8: every other stored type has 1, 2, 4 or 8 bytes
      transpose_tiles(reinterpret_cast<const uint64_t*>(src), reinterpret_cast<uint64_t*>(dst), rows, cols,
                      src_col, dst_row, outer);
      break;
  }
}

std::unique_ptr<OpKernel> make_transpose(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  std::vector<int64_t> perm = node.get_ints("perm");
  if (perm.size() > static_cast<size_t>(kMaxRank)) node.fail("perm has more than 8 entries");
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) node.fail("perm is not a permutation of the axes");
  }
  return std::make_unique<Transpose>(std::move(perm));
}

}  // namespace onemodel::ops
