// wai-ops/1 integer operator graphs (docs/wai-ops.md): the WHG1 graph form, its load checks, and an
// interpreter in the acc64 profile. A second front end, independent of the ONNX float path: every operator is
// an exact integer function, so the outputs are the same integers on every target, path and thread count.
//
// Failures that the format defines are refusals with one of the codes below, never crashes: Graph::load
// throws RefusalError, and IntSession::run returns the code in its result. A refused run changes no state.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/error.h"

namespace onemodel::wai {

// The refusal codes of wai-ops/1 §4.
enum class Refusal : uint8_t { None, ModelMismatch, TooLarge, FieldRange, GeometryMismatch };

// The code as the format spells it ("model_mismatch", ...); "ok" for None.
std::string_view to_string(Refusal code);

// A refusal at load. `load_step` is the load check of §10.5 that failed (1..8).
class RefusalError : public Error {
 public:
  RefusalError(Refusal code, int load_step, std::string message);
  Refusal code() const { return code_; }
  int load_step() const { return load_step_; }
  std::string_view kind_name() const override;

 private:
  Refusal code_;
  int load_step_;
};

// A tensor [C, H, W] of exact integers in CHW order.
struct IntTensor {
  std::array<int64_t, 3> shape{1, 1, 1};
  std::vector<int64_t> data;
};

namespace detail {
struct Model;
}

// One loaded WHG1 graph. Copies share the immutable model.
class Graph {
 public:
  // Runs the load checks of §10.5 steps 1-7 (the bounds pass of step 8 is not implemented yet, see
  // docs/wai-ops.md). Throws RefusalError.
  static Graph load(std::span<const uint8_t> bytes);

  size_t data_input_count() const;
  size_t state_input_count() const;
  size_t scalar_count() const;
  size_t output_count() const;
  const detail::Model& model() const { return *model_; }

 private:
  explicit Graph(std::shared_ptr<const detail::Model> model) : model_(std::move(model)) {}
  std::shared_ptr<const detail::Model> model_;
  friend class IntSession;
};

// What a sequence carries across decodes (§10.3): the state inputs after the last completed decode. A
// default-constructed State starts a new sequence.
struct State {
  bool started = false;
  std::vector<IntTensor> tensors;  // one per state input, in input-table order
};

struct RunResult {
  Refusal refusal = Refusal::None;
  std::string message;             // why, when refused
  std::vector<IntTensor> outputs;  // in output-table order, when not refused
  bool ok() const { return refusal == Refusal::None; }
};

class IntSession {
 public:
  explicit IntSession(Graph graph) : graph_(std::move(graph)) {}

  // One decode: `inputs` are the graph's data inputs in input-table order, `scalars` its scalars in table
  // order. State inputs come from `state`, which is updated only when the decode completes.
  RunResult run(std::span<const IntTensor> inputs, std::span<const int64_t> scalars, State& state) const;

  const Graph& graph() const { return graph_; }

 private:
  Graph graph_;
};

}  // namespace onemodel::wai
