// The result of one conformance run, as the runner produces it, its JSON form, and the markdown page made
// from one or more runs (docs/conformance.md). Shared by `onemodel conformance` and `onemodel
// conformance-report`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel::cli {

// The statuses of the spec's conformance method ("Method", conformance.md), in the order tables list them.
enum class CaseStatus { Pass, Fail, UnsupportedOp, UnsupportedType, NotExact, KnownDiff };
inline constexpr CaseStatus kStatuses[] = {CaseStatus::Pass,          CaseStatus::Fail,
                                           CaseStatus::UnsupportedOp, CaseStatus::UnsupportedType,
                                           CaseStatus::NotExact,      CaseStatus::KnownDiff};

std::string_view status_name(CaseStatus status);
std::optional<CaseStatus> parse_status(std::string_view name);
// A gap is a case the library declines loudly: no kernel, or an element type or value kind it does not store.
inline bool is_gap(CaseStatus s) {
  return s == CaseStatus::UnsupportedOp || s == CaseStatus::UnsupportedType;
}

struct CaseResult {
  std::string group, name;
  std::string op;     // the operator the case is attributed to
  int64_t opset = 0;  // the model's ai.onnx opset import, 0 when it has none
  CaseStatus status = CaseStatus::Fail;
  std::string reason;                // empty for a pass
  std::vector<std::string> missing;  // unsupported-op: the operators without a kernel, "Type (opset N)"
};

struct RunResult {
  std::string mode;     // "fast" or "exact"
  std::string kernels;  // kernel path the sessions used
  std::string data_dir;
  std::vector<CaseResult> cases;
  size_t count(CaseStatus status) const;
};

std::string to_json(const RunResult& run);
// Throws std::runtime_error naming the file when it cannot be read or is not a run result.
RunResult read_run_json(const std::filesystem::path& path);

// The generated conformance page for runs of the same data (normally fast then exact).
std::string markdown_report(const std::vector<RunResult>& runs);

}  // namespace onemodel::cli
