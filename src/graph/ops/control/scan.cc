// Scan (opsets 8-latest): runs the body once per position along the scan inputs' axes, carrying the state
// values and placing the per-iteration scan outputs along the output axes (graph-runtime.md §8). Opset 8 has
// a leading batch axis on every input and output and optional per-batch sequence lengths.
#include <algorithm>
#include <cstring>

#include "graph/ops/control/factories.h"
#include "graph/ops/control/subgraph.h"
#include "graph/ops/control/value_buffer.h"

namespace onemodel::ops {
namespace {

struct ScanInput {
  TensorRef tensor;
  int axis = 0;
  bool reverse = false;
};

Shape without_axis(const Shape& shape, int axis) {
  std::vector<int64_t> dims;
  for (int d = 0; d < shape.rank; ++d) {
    if (d != axis) dims.push_back(shape[d]);
  }
  return Shape::of(dims);
}

// Position `index` of `src` along `axis`, copied contiguously into `dst`.
void copy_slice(const TensorRef& src, int axis, int64_t index, ValueBuffer& dst) {
  const int64_t outer = src.shape.count(0, axis), extent = src.shape[axis];
  const size_t inner = static_cast<size_t>(src.shape.count(axis + 1, src.shape.rank)) * dtype_size(src.dtype);
  std::byte* out = dst.reset(src.dtype, without_axis(src.shape, axis));
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + static_cast<size_t>(o) * inner,
                src.data + static_cast<size_t>(o * extent + index) * inner, inner);
}

// Iteration-major slices [length, s...] rearranged so iteration t sits at position t (or length-1-t) of
// `axis` of the output [s_0 .. s_axis-1, length, s_axis ..].
void place(const TensorRef& stacked, int axis, bool reverse, std::byte* out) {
  const int64_t length = stacked.shape[0];
  const int64_t outer = stacked.shape.count(1, 1 + axis);
  const size_t inner =
      static_cast<size_t>(stacked.shape.count(1 + axis, stacked.shape.rank)) * dtype_size(stacked.dtype);
  const size_t slice_bytes = static_cast<size_t>(outer) * inner;
  for (int64_t t = 0; t < length; ++t) {
    const int64_t p = reverse ? length - 1 - t : t;
    const std::byte* src = stacked.data + static_cast<size_t>(t) * slice_bytes;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out + static_cast<size_t>(o * length + p) * inner, src + static_cast<size_t>(o) * inner,
                  inner);
  }
}

class Scan final : public OpKernel {
 public:
  explicit Scan(const NodeInfo& node)
      : body_(node, graph_attribute(node, "body")), batched_(node.opset() < 9) {
    const int64_t m = node.get_int("num_scan_inputs", -1);
    const size_t first = batched_ ? 1 : 0;  // opset 8: sequence_lens comes first
    if (m < 1 || static_cast<size_t>(m) + first > node.num_inputs())
      node.fail("num_scan_inputs must be between 1 and the number of inputs");
    scan_inputs_ = static_cast<size_t>(m);
    states_ = node.num_inputs() - first - scan_inputs_;
    if (body_.num_inputs() != states_ + scan_inputs_)
      node.fail("its body must take " + std::to_string(states_ + scan_inputs_) + " inputs");
    if (body_.num_outputs() != node.num_outputs() || node.num_outputs() < states_)
      node.fail("its body must return the states and the scan outputs of the node");
    scan_outputs_ = node.num_outputs() - states_;
    const char* dir_name = batched_ ? "directions" : "scan_input_directions";
    input_directions_ = node.get_ints(dir_name, std::vector<int64_t>(scan_inputs_, 0));
    input_axes_ = node.get_ints("scan_input_axes", std::vector<int64_t>(scan_inputs_, 0));
    output_directions_ = node.get_ints("scan_output_directions", std::vector<int64_t>(scan_outputs_, 0));
    output_axes_ = node.get_ints("scan_output_axes", std::vector<int64_t>(scan_outputs_, 0));
    if (input_directions_.size() != scan_inputs_ || input_axes_.size() != scan_inputs_ ||
        output_directions_.size() != scan_outputs_ || output_axes_.size() != scan_outputs_) {
      node.fail("the axes and directions attributes need one entry per scan input or output");
    }
    if (batched_ && (node.find("scan_input_axes") || node.find("scan_output_axes")))
      node.fail("opset 8 has no scan axes attributes");
    supports_exact = true;
    outputs_data_dependent = true;
  }

  void infer(InferContext&) const override {}  // outputs are shaped when the scan has finished

  void run(const OpRun& run) const override {
    if (batched_)
      run_batched(run);
    else
      run_plain(run);
  }

 private:
  // Runs `length` iterations from `states`; leaves the final states in `final_states` and returns the
  // iteration-major scan outputs [length, s...], held by `stacked`.
  std::vector<TensorRef> iterate(const OpRun& run, std::span<const TensorRef> states,
                                 std::span<const ScanInput> inputs, int64_t length,
                                 std::vector<ValueBuffer>& final_states,
                                 std::vector<ValueBuffer>& stacked) const {
    const std::string node = run.node->display_name();
    final_states.clear();
    final_states.resize(states_);
    stacked.clear();
    stacked.resize(scan_outputs_);
    for (size_t j = 0; j < states_; ++j) final_states[j].assign(states[j]);
    std::vector<ValueBuffer> slices(scan_inputs_), next(states_);
    std::vector<TensorRef> in(states_ + scan_inputs_);
    for (int64_t t = 0; t < length; ++t) {
      for (size_t j = 0; j < states_; ++j) in[j] = final_states[j].ref();
      for (size_t i = 0; i < scan_inputs_; ++i) {
        const ScanInput& s = inputs[i];
        copy_slice(s.tensor, s.axis, s.reverse ? length - 1 - t : t, slices[i]);
        in[states_ + i] = slices[i].ref();
      }
      Subgraph::Results results = body_.run(in, run);
      // Outputs may be views of this iteration's inputs, so the states go to the other buffers.
      for (size_t j = 0; j < states_; ++j) next[j].assign(results.output(j));
      for (size_t k = 0; k < scan_outputs_; ++k) stacked[k].append_slice(results.output(states_ + k), node);
      final_states.swap(next);
    }
    std::vector<TensorRef> scans(scan_outputs_);
    for (size_t k = 0; k < scan_outputs_; ++k)
      scans[k] = stacked[k].stacked(length, body_.output_elem_type(states_ + k));
    return scans;
  }

  static int normalized_axis(int64_t axis, int rank, const OpRun& run, const char* what) {
    if (axis < -rank || axis >= rank) {
      throw SessionError(SessionError::Kind::InvalidInput,
                         std::string(what) + " axis " + std::to_string(axis) + " is out of range for rank " +
                             std::to_string(rank),
                         run.node->display_name());
    }
    return static_cast<int>(axis < 0 ? axis + rank : axis);
  }

  // The common length of the scan inputs along their axes.
  static int64_t common_length(std::span<const ScanInput> inputs, const OpRun& run) {
    int64_t length = inputs.empty() ? 0 : inputs[0].tensor.shape[inputs[0].axis];
    for (const ScanInput& s : inputs) {
      if (s.tensor.shape[s.axis] != length)
        throw SessionError(SessionError::Kind::InvalidInput, "the scan inputs have different lengths",
                           run.node->display_name());
    }
    return length;
  }

  void run_plain(const OpRun& run) const {
    std::vector<ScanInput> inputs(scan_inputs_);
    for (size_t i = 0; i < scan_inputs_; ++i) {
      const TensorRef& t = run.inputs[states_ + i];
      inputs[i] = ScanInput{t, normalized_axis(input_axes_[i], t.shape.rank, run, "scan input"),
                            input_directions_[i] != 0};
    }
    const int64_t length = common_length(inputs, run);
    std::vector<ValueBuffer> states, stacked;
    std::vector<TensorRef> scans =
        iterate(run, run.inputs.subspan(0, states_), inputs, length, states, stacked);
    for (size_t j = 0; j < states_; ++j) copy_to_output(run, j, states[j].ref());
    for (size_t k = 0; k < scan_outputs_; ++k) {
      const TensorRef& all = scans[k];
      const int rank = all.shape.rank;
      const int axis = normalized_axis(output_axes_[k], rank, run, "scan output");
      std::vector<int64_t> dims;
      for (int d = 1; d < rank; ++d) dims.push_back(all.shape[d]);
      dims.insert(dims.begin() + axis, all.shape[0]);
      TensorRef& out = run.allocator->allocate(states_ + k, all.dtype, Shape::of(dims));
      place(all, axis, output_directions_[k] != 0, out.data);
    }
  }

  // Opset 8: every input and output has a leading batch axis; each batch item scans its own sequence length
  // and the scan outputs past it are zero.
  void run_batched(const OpRun& run) const {
    const std::string node = run.node->display_name();
    const TensorRef& first = run.inputs[1 + states_];
    if (first.shape.rank < 2)
      throw SessionError(SessionError::Kind::InvalidInput, "scan inputs need batch and sequence axes", node);
    const int64_t batch = first.shape[0], max_length = first.shape[1];
    std::vector<int64_t> lengths(static_cast<size_t>(batch), max_length);
    if (run.has_input(0)) {
      const TensorRef& lens = run.inputs[0];
      if (lens.dtype != DType::I64 || lens.count() != batch)
        throw SessionError(SessionError::Kind::InvalidInput, "sequence_lens must be int64 [batch]", node);
      for (int64_t b = 0; b < batch; ++b) {
        lengths[static_cast<size_t>(b)] = lens.as<int64_t>()[b];
        if (lengths[static_cast<size_t>(b)] < 0 || lengths[static_cast<size_t>(b)] > max_length)
          throw SessionError(SessionError::Kind::InvalidInput, "a sequence length is out of range", node);
      }
    }
    auto batch_item = [&](const TensorRef& t, int64_t b) {
      if (t.shape.rank < 1 || t.shape[0] != batch)
        throw SessionError(SessionError::Kind::InvalidInput, "every input needs the batch axis first", node);
      Shape item = without_axis(t.shape, 0);
      return TensorRef{
          t.dtype, item,
          t.data + static_cast<size_t>(b) * static_cast<size_t>(item.count()) * dtype_size(t.dtype)};
    };
    const auto items = static_cast<size_t>(batch);
    std::vector<std::vector<ValueBuffer>> states(items), stacked(items);
    std::vector<std::vector<TensorRef>> scans(items);
    for (size_t b = 0; b < items; ++b) {
      std::vector<TensorRef> item_states(states_);
      for (size_t j = 0; j < states_; ++j)
        item_states[j] = batch_item(run.inputs[1 + j], static_cast<int64_t>(b));
      std::vector<ScanInput> inputs(scan_inputs_);
      for (size_t i = 0; i < scan_inputs_; ++i) {
        TensorRef item = batch_item(run.inputs[1 + states_ + i], static_cast<int64_t>(b));
        if (item.shape.rank < 1 || item.shape[0] != max_length)
          throw SessionError(SessionError::Kind::InvalidInput, "the scan inputs have different lengths",
                             node);
        inputs[i] = ScanInput{item, 0, input_directions_[i] != 0};
      }
      // A reversed input of a shorter item starts at its last valid position, not at the padded end.
      for (ScanInput& in : inputs) in.tensor.shape[0] = lengths[b];
      scans[b] = iterate(run, item_states, inputs, lengths[b], states[b], stacked[b]);
    }
    std::vector<TensorRef> per_batch(items);
    for (size_t j = 0; j < states_; ++j) {
      for (size_t b = 0; b < items; ++b) per_batch[b] = states[b][j].ref();
      assemble(run, j, per_batch, -1);
    }
    for (size_t k = 0; k < scan_outputs_; ++k) {
      for (size_t b = 0; b < items; ++b) per_batch[b] = scans[b][k];
      assemble(run, states_ + k, per_batch, max_length);
    }
  }

  // Output i of opset 8 from one value per batch item: the final states (padded_length < 0), or
  // iteration-major scan outputs [length_b, s...] placed at [b, 0 .. length_b) with zeros up to
  // padded_length.
  void assemble(const OpRun& run, size_t i, std::span<const TensorRef> per_batch,
                int64_t padded_length) const {
    const bool scan = padded_length >= 0;
    const TensorRef* model = per_batch.empty() ? nullptr : &per_batch[0];
    for (const TensorRef& r : per_batch) {
      if (!scan || r.shape[0] > 0) {
        model = &r;
        break;
      }
    }
    std::vector<int64_t> dims{static_cast<int64_t>(per_batch.size())};
    if (scan) dims.push_back(padded_length);
    DType dtype = DType::F32;
    if (model) {
      dtype = model->dtype;
      for (int d = scan ? 1 : 0; d < model->shape.rank; ++d) dims.push_back(model->shape[d]);
    }
    TensorRef& out = run.allocator->allocate(i, dtype, Shape::of(dims));
    std::memset(out.data, 0, out.bytes());
    const size_t block = per_batch.empty() ? 0 : out.bytes() / per_batch.size();
    for (size_t b = 0; b < per_batch.size(); ++b) {
      const TensorRef& r = per_batch[b];
      if (r.bytes() == 0) continue;
      const Shape item = scan ? without_axis(r.shape, 0) : r.shape;
      const Shape expected = scan ? without_axis(model->shape, 0) : model->shape;
      if (r.dtype != dtype || item != expected)
        throw SessionError(SessionError::Kind::InvalidInput, "batch items produced different shapes",
                           run.node->display_name());
      std::memcpy(out.data + b * block, r.data, r.bytes());
    }
  }

  Subgraph body_;
  bool batched_;
  size_t scan_inputs_ = 0, states_ = 0, scan_outputs_ = 0;
  std::vector<int64_t> input_directions_, input_axes_, output_directions_, output_axes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_scan(const NodeInfo& node) {
  return std::make_unique<Scan>(node);
}

}  // namespace onemodel::ops
