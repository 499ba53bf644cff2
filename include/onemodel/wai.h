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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/error.h"

namespace onemodel::wai {

// The refusal codes of wai-ops/1 §4.
// StreamExhausted and StreamNoncanonical are the entropy decoders' codes (stage operators, §5E).
enum class Refusal : uint8_t {
  None,
  ModelMismatch,
  TooLarge,
  FieldRange,
  GeometryMismatch,
  StreamExhausted,
  StreamNoncanonical
};

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
struct Certified;
}  // namespace detail

// The accumulator profiles of §7 that a graph is loaded against (§8.6, §11). `None` checks no profile: the
// graph is still refused at load step 8 for what the bounds pass refuses whatever the profile (an empty check
// interval, a lut16 input range past i16), which is what a certifier needs to certify a graph that fails
// both.
enum class Profile : uint8_t { Acc64, Acc32, None };

// An interval of the bounds certificate (§8.5). Its ends are decimal strings: they can pass 64 bits.
struct CertifiedInterval {
  std::string key;  // an intermediate's key (Table 8.5-A), or "out.<k>" for a producer result
  std::string lo, hi;
  int bits = 0;
};

struct CertificateNode {
  std::string op;
  bool saturated = false;
  bool fits_acc64 = false, fits_acc32 = false;
  std::vector<CertifiedInterval> intermediates;  // in Table 8.5-A's order
  std::vector<CertifiedInterval> results;        // producer results, in output order
};

// Where a profile first fails (§8.5): where is "input", "scalar" or "node"; bits is 0 when the failure has
// none.
struct CertificateFailure {
  std::string where;
  size_t index = 0;
  std::string key;
  int bits = 0;
};

// The bounds certificate of one graph (§8): its canonical JSON bytes, and the same facts as a structure.
struct Certificate {
  std::string bytes;
  bool acc64 = false, acc32 = false, npu = false;
  std::optional<CertificateFailure> acc64_failure, acc32_failure;
  std::vector<std::string> npu_reasons, npu_flags;
  std::vector<CertificateNode> nodes;
};

// One loaded WHG1 graph. Copies share the immutable model.
class Graph {
 public:
  // Runs the load checks of §10.5 in order, the bounds pass of step 8 included, and refuses
  // (model_mismatch, step 8) a graph whose verdict does not meet `profile`. Throws RefusalError.
  static Graph load(std::span<const uint8_t> bytes, Profile profile = Profile::Acc64);

  // The graph's bounds certificate, computed at load (§8.5: a WHG1 graph certified on its own).
  const Certificate& certify() const;

  size_t data_input_count() const;
  size_t state_input_count() const;
  size_t scalar_count() const;
  size_t output_count() const;
  const detail::Model& model() const { return *model_; }
  const detail::Certified& certified() const { return *certified_; }

 private:
  Graph(std::shared_ptr<const detail::Model> model, std::shared_ptr<const detail::Certified> certified)
      : model_(std::move(model)), certified_(std::move(certified)) {}
  std::shared_ptr<const detail::Model> model_;
  std::shared_ptr<const detail::Certified> certified_;
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

struct SessionOptions {
  // Debug mode: every tensor element, producer result and named intermediate a decode forms is checked
  // against the interval the certificate gives it (§8); a value outside throws std::logic_error, which means
  // the certifier or the interpreter is wrong. Slow; for tests.
  bool check_bounds = false;
};

class IntSession {
 public:
  explicit IntSession(Graph graph, SessionOptions options = {})
      : graph_(std::move(graph)), options_(options) {}

  // One decode: `inputs` are the graph's data inputs in input-table order, `scalars` its scalars in table
  // order. State inputs come from `state`, which is updated only when the decode completes.
  RunResult run(std::span<const IntTensor> inputs, std::span<const int64_t> scalars, State& state) const;

  const Graph& graph() const { return graph_; }

 private:
  Graph graph_;
  SessionOptions options_;
};

}  // namespace onemodel::wai
