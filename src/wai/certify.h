// The bounds pass of wai-ops/1 §8: an interval for every tensor, scalar and named intermediate, in exact
// saturating 512-bit arithmetic; the acc64/acc32/npu verdicts with their first failures; and the
// certificate's canonical JSON bytes (§8.5). Load check 8 (§10.5) runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "onemodel/wai.h"
#include "wai/eval.h"
#include "wai/model.h"
#include "wai/wide.h"

namespace onemodel::wai {

struct Interval {
  Wide lo, hi;
  int bits() const { return std::max(lo.bits(), hi.bits()); }
  bool contains(i128 v) const { return lo.clamp_i128() <= v && v <= hi.clamp_i128(); }
};

// The width classes of §7.1.
enum class Width : uint8_t { Tensor, Acc, Wide, Product };

// The profiles a node or graph can meet, as indices into the verdict arrays below.
enum ProfileIndex : size_t { kAcc64 = 0, kAcc32 = 1 };

struct RecordedInterval {
  const char* key;
  Width width;
  Interval iv;
};

struct NodeBounds {
  std::vector<RecordedInterval> intermediates;  // exactly the keys of Table 8.5-A, hulled over channels
  std::vector<Interval> results;                // producer results, one per output
  bool saturated = false;
  std::vector<const char*> acc32_params;  // failed §7.2 conditions, in that table's order
  std::vector<const char*> npu_flags;     // ascending
  std::optional<Interval> term;           // the interval k_c is taken over (conv, convT, igdn, gram, apply)
  bool has_mac = false;
  std::vector<int> a_bits;
  std::optional<int> w_bits;
  bool fits[2] = {false, false};  // acc64, acc32
  const RecordedInterval* find(const char* key) const;
};

struct Failure {
  const char* where;  // "input", "scalar" or "node"
  size_t index;
  std::string key;
  std::optional<int> bits;
};

struct Bounds {
  std::vector<Interval> tensors;  // each tensor's interval after its policy
  std::vector<NodeBounds> nodes;
  bool verdict[2] = {false, false};  // acc64, acc32
  std::optional<Failure> first_failure[2];
  std::vector<std::string> npu_reasons, npu_flags;
  bool npu() const { return npu_reasons.empty(); }
};

// IntSession's debug mode (SessionOptions::check_bounds): every intermediate of one node against its
// certified interval. A value outside, or a key the certificate does not record, throws std::logic_error.
class BoundsChecker : public IntermediateObserver {
 public:
  BoundsChecker(const NodeBounds& node, std::string where) : node_(node), where_(std::move(where)) {}
  void seen(const char* key, i128 value) override;

 private:
  const NodeBounds& node_;
  std::string where_;
};

// Debug mode: every element of `t` lies in `iv`, or std::logic_error.
void check_in_interval(const Interval& iv, const IntTensor& t, const std::string& what);

namespace detail {
// What load keeps of the bounds pass: the intervals (for the debug mode of IntSession) and the certificate.
struct Certified {
  Bounds bounds;
  Certificate certificate;
  std::string graph_sha256;  // of the graph's WHG1 bytes, for the certificates of sets that hold it
};
}  // namespace detail

// Runs the bounds pass over a model that has passed load checks 1-7. Throws LoadFailure (step 8,
// model_mismatch) for a check interval that no value can meet and for a lut16 input outside [-32767, 32767].
Bounds bounds_pass(const Model& m);

// One graph of a certificate (§8.5): the model, its bounds pass, its digest and its role (nullopt: none).
struct CertifiedGraph {
  const Model* model;
  const Bounds* bounds;
  std::string graph_sha256;
  std::optional<std::string> role;
};

// The certificate of a set of graphs, in the order given, with the set's verdict and first failures (graphs
// in order, then inputs, scalars and nodes), as canonical JSON bytes. Throws std::invalid_argument for a
// role, capability or lowering outside printable ASCII, or a digest that is not 64 lowercase hex digits.
Certificate set_certificate(std::span<const CertifiedGraph> graphs, const SetInfo& info);

// The §8.4 admissible range of `tensor` for a profile (kAcc64 or kAcc32): [-X*, min(X*, 2^63 - 1)], or
// nullopt when no range lets the tensor's direct consumers meet the profile.
std::optional<AdmissibleRange> admissible_range(const Model& m, const Bounds& b, uint32_t tensor,
                                                size_t profile);

// The bounds pass and the certificate of a model loaded from `graph_bytes`, as Graph keeps them.
detail::Certified certify_model(const Model& m, std::span<const uint8_t> graph_bytes);

}  // namespace onemodel::wai
