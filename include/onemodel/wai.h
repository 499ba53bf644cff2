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
  size_t graph = 0;                 // the graph's position in its set (0 for a graph certified on its own)
  std::optional<std::string> role;  // the graph's role, as the failure's "graph" member writes it
};

// The bounds certificate of one graph (§8): its canonical JSON bytes, and the same facts as a structure.
struct Certificate {
  std::string bytes;
  bool acc64 = false, acc32 = false, npu = false;
  std::optional<CertificateFailure> acc64_failure, acc32_failure;
  std::vector<std::string> npu_reasons, npu_flags;
  std::vector<CertificateNode> nodes;
};

// The admissible range of a tensor (§8.4): the values its direct consumers can read and still meet a profile.
struct AdmissibleRange {
  int64_t lo = 0, hi = 0;
};

// What a certificate over a set of graphs says about the set (§8.5). A "whg1" set lists its graphs in file
// order; a lowering (§13) names each graph's role. The set digest's listing format is not in the text, so
// the caller supplies it (64 lowercase hex digits) or leaves it null.
struct SetInfo {
  std::optional<std::string> capability;
  std::string lowering = "whg1";
  std::optional<std::string> set_sha256;
};

class Graph;

struct SetMember {
  const Graph* graph = nullptr;
  std::optional<std::string> role;  // null for a graph with no role (a "whg1" set)
};

// The certificate of several loaded graphs certified together: one "graphs" member each, in the order given,
// and one verdict over all of them. `nodes` is left empty. Throws std::invalid_argument for a name outside
// printable ASCII or a malformed digest.
Certificate certify_set(std::span<const SetMember> members, const SetInfo& info = {});

// One loaded WHG1 graph. Copies share the immutable model.
class Graph {
 public:
  // Runs the load checks of §10.5 in order, the bounds pass of step 8 included, and refuses
  // (model_mismatch, step 8) a graph whose verdict does not meet `profile`. Throws RefusalError.
  static Graph load(std::span<const uint8_t> bytes, Profile profile = Profile::Acc64);

  // The graph's bounds certificate, computed at load (§8.5: a WHG1 graph certified on its own).
  const Certificate& certify() const;

  // The admissible range of tensor `tensor` (§8.4) for Profile::Acc64 or Acc32, or nullopt when no range
  // lets its consumers meet the profile. Throws std::out_of_range for a tensor index or profile outside.
  std::optional<AdmissibleRange> admissible_range(uint32_t tensor, Profile profile) const;
  size_t tensor_count() const;

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
  // The acc32 fast path (docs/wai-ops.md): a conv node whose certificate meets acc32 forms its sums in int32
  // on a vector kernel path. The integers are the same either way; false runs the acc64 interpreter for every
  // node. The debug mode above always runs the interpreter, which reports every intermediate.
  bool acc32_fast_path = true;
  // That path's kernels: "scalar", "v128", "avx2" or "avx512"; empty for the best this CPU has. A path this
  // build or CPU lacks makes run() throw std::invalid_argument.
  std::string kernel_path;
  // Threads one fast-path node may use (the caller included).
  int threads = 1;
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
