// NonMaxSuppression: per batch and class, boxes whose score exceeds score_threshold are taken greedily by
// falling score (ties: lower box index first); a box is dropped when its intersection over union with an
// already taken box exceeds iou_threshold; at most max_output_boxes_per_class are taken. The output rows
// [batch, class, box] follow batch, then class, then selection order. The count depends on the values, so the
// output is allocated in run().
//
// Exact: only comparisons and single-rounded + - * / in the order written below, so every machine takes the
// same boxes.
#include <algorithm>
#include <cstdint>
#include <string>

#include "graph/ops/run_fail.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {
namespace {

struct Corners {
  float y_min, x_min, y_max, x_max;
};

// The box at `b` (4 floats) as ordered corners: [y1, x1, y2, x2] in either order, or [x_center, y_center,
// width, height] when `center` is set.
Corners corners_of(const float* b, bool center) {
  if (center) {
    const float half_w = b[2] * 0.5f, half_h = b[3] * 0.5f;
    return {b[1] - half_h, b[0] - half_w, b[1] + half_h, b[0] + half_w};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// Whether the intersection over union of a and b exceeds `threshold`: inter / ((area_a + area_b) - inter),
// each operation rounded on its own. Disjoint or empty boxes never suppress.
bool overlaps(const Corners& a, const Corners& b, float threshold) {
  const float h = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
  const float w = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
  if (!(h > 0.0f && w > 0.0f)) return false;
  const float inter = h * w;
  const float area_a = (a.y_max - a.y_min) * (a.x_max - a.x_min);
  const float area_b = (b.y_max - b.y_min) * (b.x_max - b.x_min);
  const float uni = (area_a + area_b) - inter;
  if (!(uni > 0.0f)) return false;
  return inter / uni > threshold;
}

class NonMaxSuppression final : public OpKernel {
 public:
  explicit NonMaxSuppression(bool center) : center_(center) {
    supports_exact = true;
    outputs_data_dependent = true;
  }

  // Never called: a data-dependent node is shaped by run().
  void infer(InferContext& ctx) const override { ctx.require_run_time_values(); }

  void run(const OpRun& run) const override {
    const TensorRef& boxes = run.inputs[0];
    const TensorRef& scores = run.inputs[1];
    if (boxes.dtype != DType::F32 || scores.dtype != DType::F32)
      run_fail(run, "boxes and scores must be float32");
    if (boxes.shape.rank != 3 || boxes.shape[2] != 4)
      run_fail(run, "boxes must be [batch, boxes, 4], got " + boxes.shape.str());
    if (scores.shape.rank != 3 || scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1])
      run_fail(run, "scores " + scores.shape.str() + " must be [batch, classes, boxes] for boxes " +
                        boxes.shape.str());
    const int64_t max_per_class = std::max<int64_t>(0, int_scalar(run, 2, "max_output_boxes_per_class"));
    const float iou_threshold = run.has_input(3) ? float_scalar(run, 3, "iou_threshold") : 0.0f;
    // Without score_threshold every score but NaN is a candidate.
    const bool filtered = run.has_input(4);
    const float score_threshold = filtered ? float_scalar(run, 4, "score_threshold") : 0.0f;
    if (!(iou_threshold >= 0.0f && iou_threshold <= 1.0f)) run_fail(run, "iou_threshold must lie in [0, 1]");

    const int64_t batches = boxes.shape[0], classes = scores.shape[1], n = boxes.shape[1];
    const int64_t per_class = std::min(max_per_class, n);
    int64_t* order = run.scratch->allocate_array<int64_t>(static_cast<size_t>(std::max<int64_t>(n, 1)));
    int64_t* taken = run.scratch->allocate_array<int64_t>(
        static_cast<size_t>(std::max<int64_t>(batches * classes * per_class, 1)) * 3);
    int64_t count = 0;
    for (int64_t b = 0; b < batches; ++b) {
      const float* box = boxes.as<const float>() + b * n * 4;
      for (int64_t c = 0; c < classes; ++c) {
        const float* score = scores.as<const float>() + (b * classes + c) * n;
        int64_t candidates = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (filtered ? score[i] > score_threshold : score[i] == score[i]) order[candidates++] = i;
        }
        std::sort(order, order + candidates, [score](int64_t i, int64_t j) {
          return score[i] > score[j] || (score[i] == score[j] && i < j);
        });
        const int64_t first = count;
        for (int64_t k = 0; k < candidates && count - first < per_class; ++k) {
          const Corners candidate = corners_of(box + order[k] * 4, center_);
          bool suppressed = false;
          for (int64_t t = first; t < count && !suppressed; ++t) {
            suppressed = overlaps(corners_of(box + taken[t * 3 + 2] * 4, center_), candidate, iou_threshold);
          }
          if (suppressed) continue;
          taken[count * 3] = b;
          taken[count * 3 + 1] = c;
          taken[count * 3 + 2] = order[k];
          ++count;
        }
      }
    }
    TensorRef& out = run.allocator->allocate(0, DType::I64, Shape{count, 3});
    std::copy(taken, taken + count * 3, out.as<int64_t>());
  }

 private:
  // Optional one-element input i (int64 or int32); 0 when omitted.
  static int64_t int_scalar(const OpRun& run, size_t i, const char* what) {
    if (!run.has_input(i)) return 0;
    const TensorRef& v = run.inputs[i];
    if (v.count() != 1 || (v.dtype != DType::I64 && v.dtype != DType::I32))
      run_fail(run, std::string(what) + " must be one int64 value");
    return v.dtype == DType::I64 ? v.as<const int64_t>()[0] : v.as<const int32_t>()[0];
  }

  // The one float32 value of input i.
  static float float_scalar(const OpRun& run, size_t i, const char* what) {
    const TensorRef& v = run.inputs[i];
    if (v.count() != 1 || v.dtype != DType::F32)
      run_fail(run, std::string(what) + " must be one float32 value");
    return v.as<const float>()[0];
  }

  bool center_;
};

}  // namespace

std::unique_ptr<OpKernel> make_non_max_suppression(const NodeInfo& node) {
  if (node.num_inputs() < 2 || node.num_inputs() > 5 || !node.has_input(0) || !node.has_input(1))
    node.fail("needs boxes and scores and at most five inputs");
  const int64_t center = node.get_int("center_point_box", 0);
  if (center != 0 && center != 1) node.fail("center_point_box must be 0 or 1");
  return std::make_unique<NonMaxSuppression>(center == 1);
}

}  // namespace onemodel::ops
