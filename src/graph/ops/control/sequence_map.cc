// SequenceMap (opset 17): runs the body once per element of the input sequence, with the element at the same
// position of every other sequence input and the tensor inputs as they are, and collects each body output
// into an output sequence (graph-runtime.md §8).
#include <vector>

#include "graph/ops/control/factories.h"
#include "graph/ops/control/subgraph.h"
#include "graph/ops/sequence/sequence_common.h"

namespace onemodel::ops {
namespace {

class SequenceMap final : public PackedKernel {
 public:
  explicit SequenceMap(const NodeInfo& node) : body_(node, graph_attribute(node, "body")) {
    if (node.num_inputs() < 1 || body_.num_inputs() != node.num_inputs())
      node.fail("its body must take one input per node input");
    if (body_.num_outputs() != node.num_outputs() || node.num_outputs() < 1)
      node.fail("its body must have one output per node output");
    for (size_t i = 0; i < node.num_inputs(); ++i) declared_.push_back(declared_kind(node, i));
  }

  void run(const OpRun& run) const override {
    const size_t inputs = body_.num_inputs();
    std::vector<packed::SequenceView> sequences(inputs);
    std::vector<bool> is_sequence(inputs, false);
    const size_t count = read_sequence(run, 0).size();
    for (size_t i = 0; i < inputs; ++i) {
      is_sequence[i] = i == 0 || is_packed_input(run, i, declared_[i]);
      if (!is_sequence[i]) continue;
      sequences[i] = read_sequence(run, i);
      if (sequences[i].size() != count) {
        run_fail(run, "sequence input " + std::to_string(i) + " has " + std::to_string(sequences[i].size()) +
                          " elements, the first has " + std::to_string(count));
      }
    }
    const size_t outputs = body_.num_outputs();
    std::vector<std::vector<std::byte>> records(outputs);
    std::vector<DType> element_types(outputs);
    std::vector<TensorRef> in(inputs);
    for (size_t e = 0; e < count; ++e) {
      for (size_t i = 0; i < inputs; ++i) in[i] = is_sequence[i] ? sequences[i].at(e).tensor : run.inputs[i];
      Subgraph::Results results = body_.run(in, run);
      for (size_t k = 0; k < outputs; ++k) {
        const TensorRef& t = results.output(k);
        if (e == 0) element_types[k] = t.dtype;
        if (t.dtype != element_types[k])
          run_fail(run, "body output " + std::to_string(k) + " changed its type");
        const size_t at = records[k].size();
        records[k].resize(at + packed::record_size(t));
        packed::Writer(std::span<std::byte>(records[k]).subspan(at)).record(t);
      }
    }
    for (size_t k = 0; k < outputs; ++k) {
      if (count == 0) {
        const int32_t declared = body_.output_elem_type(k);
        element_types[k] = is_stored_dtype(declared) ? static_cast<DType>(declared) : DType::F32;
      }
      packed::Writer w = allocate_packed(run, k, packed::sequence_size(records[k].size()));
      w.header(packed::Kind::Sequence);
      w.sequence_header(element_types[k], count);
      w.raw(records[k]);
    }
  }

 private:
  Subgraph body_;
  std::vector<Declared> declared_;
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_map(const NodeInfo& node) {
  return std::make_unique<SequenceMap>(node);
}

}  // namespace onemodel::ops
