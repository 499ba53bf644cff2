// ReduceMax. Each output is a sequential scan of its reduced elements in row-major order: the running value
// starts as the first element and is replaced only by a strictly greater one, so a NaN wins only when it
// comes first (ops-norms.md, which also records that ONNX Runtime's NaN handling depends on its code path).
// An empty reduction gives -inf (the lowest value for integers). NaN results are canonical in both modes:
// there is one code path.
#include <algorithm>
#include <limits>
#include <string>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/reduce/factories.h"
#include "graph/ops/reduce/reduce_geometry.h"
#include "graph/ops/shape/offset_walker.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

constexpr int64_t kTile = 256;         // outputs per unit of work in the column layout
constexpr int64_t kChunkWork = 32768;  // elements read per chunk (at least one unit)

// A reduction laid out for the scans: the kept axes that select a unit (all kept axes in the row layout; all
// but the contiguous last one in the column layout) and the reduced axes walked per unit (all but the
// contiguous last one in the row layout), with input strides.
struct Scan {
  bool column = false;
  int64_t inner = 1;  // column layout: contiguous outputs per group
  int64_t run = 1;    // row layout: contiguous elements per reduced tuple
  int outer_rank = 0;
  int64_t outer_dims[kMaxRank], outer_strides[kMaxRank];
  OffsetWalker reduced;  // offsets in .a()

  explicit Scan(const ReduceGeometry& g) : column(g.column()) {
    int64_t stride[kMaxRank];
    int64_t s = 1;
    for (int a = g.rank - 1; a >= 0; --a) {
      stride[a] = s;
      s *= g.dims[a];
    }
    const int last = g.rank - 1;
    if (g.rank > 0) (column ? inner : run) = g.dims[last];
    for (int a = 0; a < g.rank; ++a) {
      if (a == last) continue;
      if (g.reduced[a]) {
        reduced.add_axis(g.dims[a], stride[a], 0);
      } else {
        outer_dims[outer_rank] = g.dims[a];
        outer_strides[outer_rank++] = stride[a];
      }
    }
  }

  // Input offset of outer tuple number `index`.
  int64_t outer_offset(int64_t index) const {
    int64_t offset = 0;
    for (int a = outer_rank - 1; a >= 0; --a) {
      offset += (index % outer_dims[a]) * outer_strides[a];
      index /= outer_dims[a];
    }
    return offset;
  }
};

template <class T>
void reduce_max(const T* x, T* y, const ReduceGeometry& g, const ThreadContext& threads) {
  if (g.outputs == 0) return;
  if (g.per_output == 0) {
    const T empty = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                         : std::numeric_limits<T>::lowest();
    std::fill(y, y + g.outputs, empty);
    return;
  }
  const Scan scan(g);
  const int64_t tiles = (scan.inner + kTile - 1) / kTile;
  const int64_t units = scan.column ? (g.outputs / scan.inner) * tiles : g.outputs;
  const int64_t unit_work = g.per_output * (scan.column ? std::min(scan.inner, kTile) : 1);
  const int64_t per_chunk = std::max<int64_t>(1, kChunkWork / unit_work);
  const int64_t chunks = (units + per_chunk - 1) / per_chunk;
  auto chunk = [&](int64_t c) {
    OffsetWalker reduced = scan.reduced;
    const int64_t end = std::min(units, (c + 1) * per_chunk);
    for (int64_t u = c * per_chunk; u < end; ++u) {
      if (scan.column) {
        const int64_t group = u / tiles, j0 = (u % tiles) * kTile, width = std::min(kTile, scan.inner - j0);
        const T* base = x + scan.outer_offset(group) + j0;
        T* out = y + group * scan.inner + j0;
        std::copy(base, base + width, out);
        do {
          const T* row = base + reduced.a();
          for (int64_t j = 0; j < width; ++j) out[j] = row[j] > out[j] ? row[j] : out[j];
        } while (reduced.next());
        for (int64_t j = 0; j < width; ++j) out[j] = canonicalize(out[j]);
      } else {
        const T* base = x + scan.outer_offset(u);
        T best = base[0];
        do {
          const T* row = base + reduced.a();
          for (int64_t q = 0; q < scan.run; ++q) best = row[q] > best ? row[q] : best;
        } while (reduced.next());
        y[u] = canonicalize(best);
      }
    }
  };
  parallel_for(threads, chunks, chunk, 0.5 * static_cast<double>(g.outputs * g.per_output));
}

class ReduceMax final : public OpKernel {
 public:
  explicit ReduceMax(const NodeInfo& node)
      : axes_from_input_(node.opset() >= 18),
        keep_dims_(node.get_int("keepdims", 1) != 0),
        noop_with_empty_axes_(node.opset() >= 18 && node.get_int("noop_with_empty_axes", 0) != 0),
        attribute_axes_(node.get_ints("axes")) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    if (t != DType::F32 && t != DType::F64 && t != DType::I8 && t != DType::U8 && t != DType::I32 &&
        t != DType::U32 && t != DType::I64 && t != DType::U64) {
      ctx.node().unsupported("ReduceMax: element type " + std::string(dtype_name(t)) + " is not supported");
    }
    std::vector<int64_t> axes = attribute_axes_;
    if (axes_from_input_) {
      auto listed = int_list_input(ctx, 1, "axes input");
      if (!listed) return;
      axes = std::move(*listed);
    }
    const Shape& in = ctx.input_shape(0);
    ctx.set_output(0, t,
                   reduced_shape(in, mask(axes_mask(ctx, axes, in.rank), axes.empty(), in.rank), keep_dims_));
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    uint32_t listed = 0;
    bool empty = true;
    if (!axes_from_input_) {
      for (int64_t axis : attribute_axes_) listed |= 1u << normalize_axis(axis, x.shape.rank);
      empty = attribute_axes_.empty();
    } else if (run.has_input(1)) {
      const TensorRef& axes = run.inputs[1];  // validated by infer with this value
      for (int64_t i = 0; i < axes.count(); ++i) {
        const int64_t axis =
            axes.dtype == DType::I64 ? axes.as<const int64_t>()[i] : axes.as<const int32_t>()[i];
        listed |= 1u << normalize_axis(axis, x.shape.rank);
      }
      empty = axes.count() == 0;
    }
    const ReduceGeometry g = reduce_geometry(x.shape, mask(listed, empty, x.shape.rank));
    std::byte* y = run.outputs[0].data;
    switch (x.dtype) {
      case DType::F32:
        return reduce_max(x.as<const float>(), reinterpret_cast<float*>(y), g, run.threads);
      case DType::F64:
        return reduce_max(x.as<const double>(), reinterpret_cast<double*>(y), g, run.threads);
      case DType::I8:
        return reduce_max(x.as<const int8_t>(), reinterpret_cast<int8_t*>(y), g, run.threads);
      case DType::U8:
        return reduce_max(x.as<const uint8_t>(), reinterpret_cast<uint8_t*>(y), g, run.threads);
      case DType::I32:
        return reduce_max(x.as<const int32_t>(), reinterpret_cast<int32_t*>(y), g, run.threads);
      case DType::U32:
        return reduce_max(x.as<const uint32_t>(), reinterpret_cast<uint32_t*>(y), g, run.threads);
      case DType::I64:
        return reduce_max(x.as<const int64_t>(), reinterpret_cast<int64_t*>(y), g, run.threads);
      default:
        return reduce_max(x.as<const uint64_t>(), reinterpret_cast<uint64_t*>(y), g, run.threads);  // U64
    }
  }

 private:
  // The reduced axes: those listed, or with no list every axis (none with noop_with_empty_axes).
  uint32_t mask(uint32_t listed, bool empty, int rank) const {
    if (!empty) return listed;
    return noop_with_empty_axes_ ? 0u : (1u << rank) - 1u;
  }

  bool axes_from_input_, keep_dims_, noop_with_empty_axes_;
  std::vector<int64_t> attribute_axes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_reduce_max(const NodeInfo& node) {
  require_inputs(node, 1, node.opset() >= 18 ? 2 : 1);
  return std::make_unique<ReduceMax>(node);
}

}  // namespace onemodel::ops
