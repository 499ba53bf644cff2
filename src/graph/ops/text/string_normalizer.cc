// StringNormalizer: drops the stop words from a [C] or [1, C] string tensor, then changes the case of what
// remains (LOWER, UPPER or NONE). Stop words match byte for byte, or, when is_case_sensitive is 0, after
// both sides are lower-cased. Case changes are locale-free (case_mapping.h): the `locale` attribute is
// accepted and not consulted. When every element is dropped the output is one empty string, [1] or [1, 1].
// The output extent depends on the values, so the node runs as data-dependent; unchanged elements keep
// pointing at the input's text, which lives at least as long as the run.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/text/case_mapping.h"
#include "graph/ops/text/factories.h"
#include "graph/string_values.h"

namespace onemodel::ops {
namespace {

enum class CaseChange { None, Lower, Upper };

class StringNormalizer final : public OpKernel {
 public:
  StringNormalizer(CaseChange change, bool case_sensitive, std::vector<std::string> stopwords)
      : change_(change), case_sensitive_(case_sensitive), stopwords_(std::move(stopwords)) {
    supports_exact = true;
    outputs_data_dependent = true;
    if (!case_sensitive_) {
      for (std::string& w : stopwords_) w = to_lower(w);
    }
    std::sort(stopwords_.begin(), stopwords_.end());
  }

  // Never called: a data-dependent node is shaped by run().
  void infer(InferContext& ctx) const override { ctx.require_run_time_values(); }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const std::string node = run.node != nullptr ? run.node->display_name() : std::string();
    if (x.dtype != DType::String) {
      throw SessionError(SessionError::Kind::InvalidInput,
                         "input must be String, got " + std::string(dtype_name(x.dtype)), node);
    }
    const bool row = x.shape.rank == 2;
    if (!(x.shape.rank == 1 || (row && x.shape[0] == 1))) {
      throw SessionError(SessionError::Kind::InvalidInput,
                         "input must be [C] or [1, C], got " + x.shape.str(), node);
    }
    const auto* in = x.as<const StringElem>();
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < x.count(); ++i) {
      if (!is_stopword(in[i].view())) kept.push_back(i);
    }
    const int64_t count = std::max<int64_t>(static_cast<int64_t>(kept.size()), 1);
    TensorRef& y = run.allocator->allocate(0, DType::String, row ? Shape{1, count} : Shape{count});
    auto* out = y.as<StringElem>();
    out[0] = StringElem{};  // all dropped: one empty string
    for (size_t k = 0; k < kept.size(); ++k) {
      const StringElem& s = in[kept[k]];
      switch (change_) {
        case CaseChange::None:
          out[k] = s;
          break;
        case CaseChange::Lower:
          out[k] = make_string(*run.allocator, to_lower(s.view()));
          break;
        case CaseChange::Upper:
          out[k] = make_string(*run.allocator, to_upper(s.view()));
          break;
      }
    }
  }

 private:
  bool is_stopword(std::string_view word) const {
    if (stopwords_.empty()) return false;
    const std::string key = case_sensitive_ ? std::string(word) : to_lower(word);
    return std::binary_search(stopwords_.begin(), stopwords_.end(), key);
  }

  CaseChange change_;
  bool case_sensitive_;
  std::vector<std::string> stopwords_;  // sorted; lower-cased when matching ignores case
};

}  // namespace

std::unique_ptr<OpKernel> make_string_normalizer(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  const std::string action = node.get_string("case_change_action", "NONE");
  CaseChange change = CaseChange::None;
  if (action == "LOWER")
    change = CaseChange::Lower;
  else if (action == "UPPER")
    change = CaseChange::Upper;
  else if (action != "NONE")
    node.fail("case_change_action must be LOWER, UPPER or NONE, got '" + action + "'");
  std::vector<std::string> stopwords;
  if (const ir::Attribute* a = node.find("stopwords")) {
    if (a->type != ir::AttrType::Strings) node.fail("stopwords must be a list of strings");
    stopwords = a->strings;
  }
  return std::make_unique<StringNormalizer>(change, node.get_int("is_case_sensitive", 0) != 0,
                                            std::move(stopwords));
}

}  // namespace onemodel::ops
