// JSON form of conformance runs and the markdown page generated from them (docs/conformance.md).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/conformance.h"
#include "cli/conformance_result.h"

namespace onemodel::cli {
namespace {

using Json = nlohmann::ordered_json;

// The data's groups in the order the page lists them; a group not named here sorts after them.
constexpr std::string_view kGroups[] = {"node", "simple", "pytorch-converted", "pytorch-operator"};
constexpr size_t kMaxReason = 200;  // characters of a reason shown in a table cell
constexpr size_t kTopCauses = 3;

// Markdown list items continue on indented lines, so the prose below renders as one bullet per item.
constexpr const char* kLegend =
    R"(- **pass**: every output of every data set matched within the tolerance below.
- **fail**: a wrong result, or an error the library should not have raised. A defect: the test command fails
  on any.
- **gap** = **unsupported-op** (no kernel for the operator at that opset, or an attribute value or case the
  kernel declines) + **unsupported-type** (an element type or value kind the tensor layer does not store).
  The session says so when it is created or first run; nothing is computed wrongly.
- **not-exact** (exact mode only): an operator has no exact kernel yet, so the session refuses exact mode.
- **known-diff**: a failing case whose difference is understood; the runner lists each with its reason. It
  counts as neither pass nor fail.
)";

constexpr const char* kMethod = R"(## Method

- **Data.** Debian's `libonnx-testdata` (the ONNX 1.12 backend test data) under
  `/usr/share/libonnx-testdata/data`: the groups `node`, `simple`, `pytorch-converted` and `pytorch-operator`.
  Each case is a `model.onnx` with one or more `test_data_set_*` directories of serialized input and expected
  output values: TensorProto files, and SequenceProto or OptionalProto files where the model declares a
  sequence or an optional there (read into the packed form, docs/api.md). `tools/setup.sh` installs the data;
  it is never committed.
- **Run.** `onemodel conformance DATA_DIR --mode fast|exact --json FILE` creates a `Session` per case in the
  mode under test with one intra-op thread and the default optimization level, feeds every data set and
  compares every output. Each case runs in its own process with a time limit, so a crash or a hang is recorded
  as that case's `fail` and the run goes on.
- **Tolerance.** Floating-point outputs (float16, bfloat16, float32, float64) match when every element has
  `|got - want| <= 1e-7 + 1e-3 * |want|`, or both are NaN, or both are equal (infinities included). Integer,
  boolean and string outputs must be equal. Shapes and element types must be equal. Sequence and optional outputs
  match when they hold the same kind of content and the same number of tensors, each matching as above.
- **Statuses.** `unsupported-op`: the session reports `UnsupportedOperator`, or `Unsupported` for anything but
  an element type. `unsupported-type`: an element type the tensor layer does not store (4-bit, 8-bit float,
  complex), or a map, a sparse tensor or a sequence or optional of those, which the C++ and JavaScript
  APIs do not pass.
  `not-exact`: `ExactModeUnavailable` in exact mode. `known-diff`: a failing case listed in the runner with
  its reason. Anything else that is not a pass is a `fail`, with the error or the first differing element as
  its reason.
- **Attribution.** An `_expanded` case, whose model is an operator's function body, counts under the operator
  of the case of the same name without `_expanded`. Any other node case counts under its model's only operator
  (`Constant` aside); failing both, under the longest operator name the case name starts with.
- **Opset.** The model's `ai.onnx` opset import (0 when the model imports none, as for the training
  operators).
)";

size_t group_rank(const std::string& group) {
  for (size_t i = 0; i < std::size(kGroups); ++i) {
    if (kGroups[i] == group) return i;
  }
  return std::size(kGroups);
}

bool less_case_insensitive(const std::string& a, const std::string& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
  });
}

// Text safe inside a markdown table cell: one line, pipes escaped, long text cut at a character boundary.
std::string cell(std::string_view text) {
  std::string out;
  size_t shown = text.size();
  if (shown > kMaxReason) {
    shown = kMaxReason;
    while (shown > 0 && (static_cast<unsigned char>(text[shown]) & 0xC0) == 0x80) --shown;
  }
  for (char c : text.substr(0, shown)) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c == '\n' || c == '\r' || c == '\t' ? ' ' : c;
    }
  }
  if (shown < text.size()) out += "…";
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

// "DeformConv (opset 22)" -> "DeformConv".
std::string operator_without_opset(const std::string& op) {
  size_t paren = op.find(" (opset ");
  return paren == std::string::npos ? op : op.substr(0, paren);
}

// Appends " text |", one cell of a table row.
void add_cell(std::string& row, const std::string& text) {
  row += ' ';
  row += text;
  row += " |";
}

// One case across the runs being reported: its status in each (nullptr when a run did not include it).
struct CaseRow {
  const CaseResult* first =
      nullptr;  // the first run's result that has the case: group, name, operator, opset
  std::vector<const CaseResult*> per_run;

  bool passes_everywhere() const {
    return std::all_of(per_run.begin(), per_run.end(),
                       [](const CaseResult* r) { return r != nullptr && r->status == CaseStatus::Pass; });
  }
  // Distinct reasons, prefixed with the mode when the runs disagree.
  std::string reason(const std::vector<RunResult>& runs) const {
    std::vector<std::pair<std::string, std::string>> reasons;  // mode, reason
    for (size_t r = 0; r < per_run.size(); ++r) {
      if (per_run[r] != nullptr && !per_run[r]->reason.empty())
        reasons.emplace_back(runs[r].mode, per_run[r]->reason);
    }
    bool all_same = std::all_of(reasons.begin(), reasons.end(),
                                [&](const auto& p) { return p.second == reasons.front().second; });
    if (reasons.empty()) return {};
    if (all_same) return reasons.front().second;
    std::vector<std::string> parts;
    for (const auto& [mode, text] : reasons) parts.push_back(mode + ": " + text);
    return join(parts, "; ");
  }
};

std::vector<CaseRow> join_runs(const std::vector<RunResult>& runs) {
  std::map<std::pair<std::string, std::string>, CaseRow> rows;
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const CaseResult& c : runs[r].cases) {
      CaseRow& row = rows[{c.group, c.name}];
      if (row.first == nullptr) {
        row.first = &c;
        row.per_run.assign(runs.size(), nullptr);
      }
      row.per_run[r] = &c;
    }
  }
  std::vector<CaseRow> out;
  for (auto& [key, row] : rows) out.push_back(row);
  std::stable_sort(out.begin(), out.end(), [](const CaseRow& a, const CaseRow& b) {
    size_t ga = group_rank(a.first->group), gb = group_rank(b.first->group);
    if (ga != gb) return ga < gb;
    if (a.first->group != b.first->group) return a.first->group < b.first->group;
    return a.first->name < b.first->name;
  });
  return out;
}

// Counts of the statuses of a set of case rows in one run.
struct Tally {
  size_t cases = 0;
  std::map<CaseStatus, size_t> by_status;
  size_t of(CaseStatus s) const {
    auto it = by_status.find(s);
    return it == by_status.end() ? 0 : it->second;
  }
  size_t gap() const { return of(CaseStatus::UnsupportedOp) + of(CaseStatus::UnsupportedType); }
};

Tally tally(const std::vector<const CaseRow*>& rows, size_t run) {
  Tally t;
  for (const CaseRow* row : rows) {
    if (row->per_run[run] == nullptr) continue;
    ++t.cases;
    ++t.by_status[row->per_run[run]->status];
  }
  return t;
}

// Column titles and cells for the per-run counts of the group and operator tables: pass, fail and gap for
// every run, not-exact for an exact run. With several runs the titles carry the mode.
struct RunColumns {
  const std::vector<RunResult>& runs;

  std::string prefix(size_t r) const { return runs.size() > 1 ? runs[r].mode + " " : std::string(); }
  std::string titles() const {
    std::string out;
    for (size_t r = 0; r < runs.size(); ++r) {
      for (const char* title : {"pass", "fail", "gap"}) add_cell(out, prefix(r) + title);
      if (runs[r].mode == "exact") add_cell(out, "not-exact");
    }
    return out;
  }
  std::string alignment() const {
    std::string out;
    for (const RunResult& run : runs) out += run.mode == "exact" ? "---:|---:|---:|---:|" : "---:|---:|---:|";
    return out;
  }
  std::string cells(const std::vector<const CaseRow*>& rows) const {
    std::string out;
    for (size_t r = 0; r < runs.size(); ++r) {
      Tally t = tally(rows, r);
      for (size_t count : {t.of(CaseStatus::Pass), t.of(CaseStatus::Fail), t.gap()})
        add_cell(out, std::to_string(count));
      if (runs[r].mode == "exact") add_cell(out, std::to_string(t.of(CaseStatus::NotExact)));
    }
    return out;
  }
};

// The most frequent reasons of the gap, fail and known-diff cases among `rows`, each case counted once per
// reason.
std::string top_causes(const std::vector<const CaseRow*>& rows) {
  std::map<std::string, size_t> counts;
  for (const CaseRow* row : rows) {
    std::set<std::string> reasons;
    for (const CaseResult* r : row->per_run) {
      if (r == nullptr || r->status == CaseStatus::Pass || r->status == CaseStatus::NotExact) continue;
      reasons.insert(r->reason);
    }
    for (const std::string& reason : reasons) ++counts[reason];
  }
  std::vector<std::pair<std::string, size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (size_t i = 0; i < sorted.size() && i < kTopCauses; ++i) {
    std::string cause = cell(sorted[i].first);
    if (sorted[i].second > 1) cause.append(" ×").append(std::to_string(sorted[i].second));
    parts.push_back(std::move(cause));
  }
  if (sorted.size() > kTopCauses) {
    parts.push_back(std::string("+").append(std::to_string(sorted.size() - kTopCauses)).append(" more"));
  }
  return join(parts, "; ");
}

std::string status_cells(const CaseRow& row) {
  std::string out;
  for (const CaseResult* r : row.per_run) add_cell(out, r ? std::string(status_name(r->status)) : "-");
  return out;
}

std::string mode_titles(const std::vector<RunResult>& runs) {
  std::string out;
  for (const RunResult& run : runs) add_cell(out, run.mode);
  return out;
}

void write_summary(std::ostringstream& md, const std::vector<RunResult>& runs) {
  md << "## Summary\n\n| Mode | Kernels | Cases |";
  for (CaseStatus s : kStatuses) md << " " << status_name(s) << " |";
  md << "\n|---|---|---:|";
  for (size_t i = 0; i < std::size(kStatuses); ++i) md << "---:|";
  md << "\n";
  for (const RunResult& run : runs) {
    md << "| " << run.mode << " | " << run.kernels << " | " << run.cases.size() << " |";
    for (CaseStatus s : kStatuses) md << " " << run.count(s) << " |";
    md << "\n";
  }
  md << "\n" << kLegend << "\n";
}

void write_groups(std::ostringstream& md, const std::vector<RunResult>& runs,
                  const std::vector<CaseRow>& rows) {
  RunColumns columns{runs};
  md << "## Groups\n\n| Group | Cases |" << columns.titles() << "\n|---|---:|" << columns.alignment() << "\n";
  std::map<std::string, std::vector<const CaseRow*>> by_name;
  std::vector<std::string> order;
  for (const CaseRow& row : rows) {
    if (by_name.find(row.first->group) == by_name.end()) order.push_back(row.first->group);
    by_name[row.first->group].push_back(&row);
  }
  for (const std::string& group : order) {
    md << "| " << group << " | " << by_name[group].size() << " |" << columns.cells(by_name[group]) << "\n";
  }
  md << "\n";
}

void write_operators(std::ostringstream& md, const std::vector<RunResult>& runs,
                     const std::vector<CaseRow>& rows) {
  RunColumns columns{runs};
  std::map<std::string, std::vector<const CaseRow*>> by_op;
  for (const CaseRow& row : rows) {
    if (row.first->group == "node") by_op[row.first->op].push_back(&row);
  }
  std::vector<std::string> ops;
  for (const auto& [op, list] : by_op) ops.push_back(op);
  std::sort(ops.begin(), ops.end(), less_case_insensitive);

  md << "## Operators (node cases)\n\n"
        "Each node case counts under one operator (see Method). `Opsets passing` lists the model opsets of "
        "the cases that pass in the "
     << runs.front().mode
     << " run. The causes are the most frequent reasons of the gap, fail and known-diff cases.\n\n"
        "| Operator | Opsets passing | Cases |"
     << columns.titles() << " Gap and fail causes |\n|---|---|---:|" << columns.alignment() << "---|\n";
  for (const std::string& op : ops) {
    const auto& list = by_op[op];
    std::set<int64_t> opsets;
    for (const CaseRow* row : list) {
      const CaseResult* first_run = row->per_run.front();
      if (first_run != nullptr && first_run->status == CaseStatus::Pass) opsets.insert(row->first->opset);
    }
    std::vector<std::string> opset_text;
    for (int64_t v : opsets) opset_text.push_back(std::to_string(v));
    md << "| " << cell(op) << " | " << (opset_text.empty() ? "-" : join(opset_text, ", ")) << " | "
       << list.size() << " |" << columns.cells(list) << " " << top_causes(list) << " |\n";
  }
  md << "\n";
}

void write_model_cases(std::ostringstream& md, const std::vector<RunResult>& runs,
                       const std::vector<CaseRow>& rows) {
  md << "## Model cases (simple, pytorch-converted, pytorch-operator)\n\n"
        "The model cases that do not pass in every mode.\n\n| Group | Case | Opset |"
     << mode_titles(runs) << " Reason |\n|---|---|---:|";
  for (size_t r = 0; r < runs.size(); ++r) md << "---|";
  md << "---|\n";
  size_t passing = 0;
  for (const CaseRow& row : rows) {
    if (row.first->group == "node") continue;
    if (row.passes_everywhere()) {
      ++passing;
      continue;
    }
    md << "| " << row.first->group << " | " << row.first->name << " | " << row.first->opset << " |"
       << status_cells(row) << " " << cell(row.reason(runs)) << " |\n";
  }
  md << "\n" << passing << " further model cases pass in every mode.\n\n";
}

void write_missing_operators(std::ostringstream& md, const std::vector<CaseRow>& rows) {
  std::map<std::string, size_t> counts;
  for (const CaseRow& row : rows) {
    std::set<std::string> ops;
    for (const CaseResult* r : row.per_run) {
      if (r == nullptr) continue;
      for (const std::string& op : r->missing) ops.insert(operator_without_opset(op));
    }
    for (const std::string& op : ops) ++counts[op];
  }
  std::vector<std::pair<std::string, size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  md << "## Operators with no kernel\n\n"
        "The operators the `unsupported-op` cases name, with the number of cases that need each (a case "
        "can need several).\n\n| Operator | Cases |\n|---|---:|\n";
  for (const auto& [op, count] : sorted) md << "| " << cell(op) << " | " << count << " |\n";
  md << "\n";
}

void write_case_list(std::ostringstream& md, const std::vector<RunResult>& runs,
                     const std::vector<CaseRow>& rows) {
  md << "## Every case\n\n<details><summary>" << rows.size()
     << " cases</summary>\n\n| Group | Case | Operator | Opset |" << mode_titles(runs)
     << " Reason |\n|---|---|---|---:|";
  for (size_t r = 0; r < runs.size(); ++r) md << "---|";
  md << "---|\n";
  for (const CaseRow& row : rows) {
    md << "| " << row.first->group << " | " << row.first->name << " | " << cell(row.first->op) << " | "
       << row.first->opset << " |" << status_cells(row) << " " << cell(row.reason(runs)) << " |\n";
  }
  md << "\n</details>\n\n";
}

void write_method(std::ostringstream& md) {
  md << kMethod;
}

}  // namespace

std::string_view status_name(CaseStatus status) {
  switch (status) {
    case CaseStatus::Pass:
      return "pass";
    case CaseStatus::Fail:
      return "fail";
    case CaseStatus::UnsupportedOp:
      return "unsupported-op";
    case CaseStatus::UnsupportedType:
      return "unsupported-type";
    case CaseStatus::NotExact:
      return "not-exact";
    case CaseStatus::KnownDiff:
      return "known-diff";
  }
  return "fail";
}

std::optional<CaseStatus> parse_status(std::string_view name) {
  for (CaseStatus s : kStatuses) {
    if (status_name(s) == name) return s;
  }
  return std::nullopt;
}

size_t RunResult::count(CaseStatus status) const {
  return static_cast<size_t>(
      std::count_if(cases.begin(), cases.end(), [&](const CaseResult& c) { return c.status == status; }));
}

std::string to_json(const RunResult& run) {
  Json cases = Json::array();
  for (const CaseResult& c : run.cases) {
    cases.push_back({{"group", c.group},
                     {"name", c.name},
                     {"operator", c.op},
                     {"opset", c.opset},
                     {"status", status_name(c.status)},
                     {"reason", c.reason},
                     {"missing", c.missing}});
  }
  Json doc = {{"mode", run.mode}, {"kernels", run.kernels}, {"data_dir", run.data_dir}, {"cases", cases}};
  // Reasons quote library messages, which may hold bytes from a model that are not UTF-8: replace, never
  // throw.
  return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

RunResult read_run_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  try {
    Json doc = Json::parse(in);
    RunResult run;
    run.mode = doc.at("mode").get<std::string>();
    run.kernels = doc.value("kernels", "");
    run.data_dir = doc.value("data_dir", "");
    for (const Json& c : doc.at("cases")) {
      CaseResult r;
      r.group = c.at("group").get<std::string>();
      r.name = c.at("name").get<std::string>();
      r.op = c.value("operator", "");
      r.opset = c.value("opset", int64_t{0});
      auto status = parse_status(c.at("status").get<std::string>());
      if (!status) throw std::runtime_error("unknown status '" + c.at("status").get<std::string>() + "'");
      r.status = *status;
      r.reason = c.value("reason", "");
      r.missing = c.value("missing", std::vector<std::string>{});
      run.cases.push_back(std::move(r));
    }
    return run;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": not a conformance result: " + e.what());
  }
}

std::string markdown_report(const std::vector<RunResult>& runs) {
  if (runs.empty()) throw std::invalid_argument("markdown_report needs at least one run");
  std::vector<CaseRow> rows = join_runs(runs);
  std::ostringstream md;
  md << "# Conformance: ONNX backend test data\n\n"
        "Generated by `tools/conformance.sh` (it runs `onemodel conformance` in each mode, then `onemodel "
        "conformance-report`). Do not edit this page by hand; the method is at the end.\n\n";
  write_summary(md, runs);
  write_groups(md, runs, rows);
  write_operators(md, runs, rows);
  write_model_cases(md, runs, rows);
  write_missing_operators(md, rows);
  write_case_list(md, runs, rows);
  write_method(md);
  return md.str();
}

int conformance_report_main(const std::vector<std::string>& args) {
  if (args.empty() || args.size() > 2) {
    std::fputs("usage: onemodel conformance-report FAST.json [EXACT.json]\n", stderr);
    return 2;
  }
  try {
    std::vector<RunResult> runs;
    for (const std::string& file : args) runs.push_back(read_run_json(file));
    std::string page = markdown_report(runs);
    std::fwrite(page.data(), 1, page.size(), stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onemodel conformance-report: %s\n", e.what());
    return 2;
  }
}

}  // namespace onemodel::cli
