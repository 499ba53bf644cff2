// The conformance runner: every case of the ONNX backend test data through Session, classified with the
// statuses and tolerance of the spec's conformance method. A case that throws, crashes or hangs never stops
// the run: natively each case runs in a child process with a time limit; where there are no processes (wasm)
// it runs in-process.
#include "cli/conformance.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cli/conformance_result.h"
#include "cli/value_proto.h"
#include "core/half.h"
#include "core/shape.h"
#include "onemodel/onemodel.h"
#include "onnx/onnx_reader.h"

#if defined(__unix__) && !defined(__EMSCRIPTEN__)
#define ONEMODEL_CONFORMANCE_FORK 1
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace onemodel::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kGroups[] = {"node", "simple", "pytorch-converted", "pytorch-operator"};
constexpr double kAbsoluteTolerance = 1e-7, kRelativeTolerance = 1e-3;
constexpr int kDefaultTimeoutSeconds = 60;
constexpr size_t kProgressEvery = 100;

// Failing cases whose difference is understood, each with the reason the page shows; they count as neither
// pass nor fail. An entry applies only while the failure still contains `symptom`, so a new defect in the
// same case shows. Each comes from a defect of the ONNX 1.12 data, checked against the model and the spec, or
// from random draws: the data holds numpy's draws, the library draws from its own documented generator.
struct KnownDiff {
  std::string_view group, name, symptom, reason;
};
constexpr std::string_view kLikeShape =
    "the data feeds 'like' with shape [1] where the model declares [3, 4]; sessions refuse inputs that "
    "contradict a declared fixed extent";
constexpr std::string_view kAlignCornersDivisor =
    "the expected data divides by the unrounded output size in * scale (2.4); align_corners divides by the "
    "output size (2) as ONNX Runtime does, ops-conv.md \"Resize\"";
constexpr std::string_view kRandomDraws =
    "the expected values are numpy's random draws; the library draws from its own counter-based generator "
    "(src/graph/ops/random/counter_random.h), so no engine reproduces them";
constexpr KnownDiff kKnownDiffs[] = {
    {"node", "test_cast_FLOAT_to_BFLOAT16", "elements differ",
     "the expected data truncates float32 to bfloat16; Cast rounds to nearest even as ops-elementwise.md "
     "requires"},
    {"node", "test_castlike_BFLOAT16_to_FLOAT", "input 'like'", kLikeShape},
    {"node", "test_castlike_BFLOAT16_to_FLOAT_expanded", "input 'like'", kLikeShape},
    {"node", "test_castlike_FLOAT_to_BFLOAT16", "input 'like'", kLikeShape},
    {"node", "test_castlike_FLOAT_to_BFLOAT16_expanded", "input 'like'", kLikeShape},
    {"node", "test_resize_downsample_scales_cubic_align_corners", "elements differ", kAlignCornersDivisor},
    {"node", "test_resize_downsample_scales_linear_align_corners", "elements differ", kAlignCornersDivisor},
    {"node", "test_adam_multiple", "elements differ",
     "the expected data uses epsilon = 0.01, which the model's node does not set (its epsilon is the default "
     "0)"},
    {"node", "test_bernoulli", "elements differ", kRandomDraws},
    {"node", "test_bernoulli_double", "elements differ", kRandomDraws},
    {"node", "test_bernoulli_double_expanded", "elements differ", kRandomDraws},
    {"node", "test_bernoulli_expanded", "elements differ", kRandomDraws},
    {"node", "test_bernoulli_seed", "elements differ", kRandomDraws},
    {"node", "test_bernoulli_seed_expanded", "elements differ", kRandomDraws},
    {"node", "test_training_dropout", "elements differ", kRandomDraws},
    {"node", "test_training_dropout_default", "elements differ", kRandomDraws},
    {"node", "test_training_dropout_default_mask", "elements differ", kRandomDraws},
    {"node", "test_training_dropout_mask", "elements differ", kRandomDraws},
};

const KnownDiff* find_known_diff(const std::string& group, const std::string& name,
                                 const std::string& reason) {
  for (const KnownDiff& k : kKnownDiffs) {
    if (k.group == group && k.name == name && reason.find(k.symptom) != std::string::npos) return &k;
  }
  return nullptr;
}

struct Options {
  fs::path data_dir;
  ExecutionMode mode = ExecutionMode::Fast;
  std::string json_path, markdown_path, filter;
  int timeout_seconds = kDefaultTimeoutSeconds;
  bool isolate = true;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--mode") {
      const std::string& v = value();
      if (v != "fast" && v != "exact") throw UsageError("--mode takes fast or exact, got '" + v + "'");
      o.mode = v == "exact" ? ExecutionMode::Exact : ExecutionMode::Fast;
    } else if (a == "--json") {
      o.json_path = value();
    } else if (a == "--markdown") {
      o.markdown_path = value();
    } else if (a == "--filter") {
      o.filter = value();
    } else if (a == "--timeout") {
      o.timeout_seconds = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--no-isolate") {
      o.isolate = false;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else if (o.data_dir.empty()) {
      o.data_dir = a;
    } else {
      throw UsageError("unexpected argument " + a);
    }
  }
  if (o.data_dir.empty()) throw UsageError("missing DATA_DIR");
  return o;
}

// --- Cases and what their models contain

struct Case {
  std::string group, name;
  fs::path dir;
  // Distinct operators of the top-level graph in node order; outside ai.onnx named "domain.Type".
  std::vector<std::string> ops;
  int64_t opset = 0;
  std::string op;            // attribution
  std::string import_error;  // the model failed to import: the error text
  bool import_error_is_type = false;
  std::string non_tensor_value;  // the first graph input or output sessions cannot carry, described
  std::map<std::string, ir::Type> declared;  // the model's types of its graph inputs and outputs, by name
};

// The library names a type it does not store as "... has element type X" or "... is a map, not a tensor".
bool mentions_element_type(std::string_view message) {
  return message.find("element type") != std::string::npos ||
         message.find("not a tensor") != std::string::npos;
}

std::string_view kind_text(ir::Type::Kind kind) {
  switch (kind) {
    case ir::Type::Kind::Sequence:
      return "a sequence";
    case ir::Type::Kind::Map:
      return "a map";
    case ir::Type::Kind::Optional:
      return "an optional";
    case ir::Type::Kind::SparseTensor:
      return "a sparse tensor";
    case ir::Type::Kind::Opaque:
      return "an opaque value";
    default:
      return "not a tensor";
  }
}

// Sessions carry tensors, and packed sequences of tensors and optionals of either.
bool carried(const ir::Type& type) {
  using K = ir::Type::Kind;
  auto tensor = [](const ir::Type* t) { return !t || t->kind == K::Tensor || t->kind == K::None; };
  if (tensor(&type)) return true;
  if (type.kind == K::Sequence) return tensor(type.inner.get());
  if (type.kind == K::Optional) {
    return tensor(type.inner.get()) || (type.inner->kind == K::Sequence && carried(*type.inner));
  }
  return false;
}

void read_model_facts(Case& c) {
  try {
    ir::Model model = onnx::import_model_file(c.dir / "model.onnx");
    auto it = model.opsets.find("");
    c.opset = it == model.opsets.end() ? 0 : it->second;
    const ir::Graph& g = *model.graph;
    for (const ir::Node& node : g.nodes) {
      std::string name =
          node.domain.empty() || node.domain == "ai.onnx" ? node.op_type : node.domain + "." + node.op_type;
      if (std::find(c.ops.begin(), c.ops.end(), name) == c.ops.end()) c.ops.push_back(name);
    }
    for (const auto* ids : {&g.inputs, &g.outputs}) {
      for (int32_t id : *ids) {
        const ir::Value& v = g.values[static_cast<size_t>(id)];
        c.declared[v.name] = v.type;
        if (!carried(v.type) && c.non_tensor_value.empty()) {
          const ir::Type::Kind kind =
              v.type.kind == ir::Type::Kind::Map || !v.type.inner ? v.type.kind : v.type.inner->kind;
          c.non_tensor_value = "value '" + v.name + "' is or holds " + std::string(kind_text(kind));
        }
      }
    }
  } catch (const std::exception& e) {
    c.import_error = e.what();
    c.import_error_is_type = mentions_element_type(c.import_error);
  }
}

std::string normalized(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (ch != '_' && ch != '.') out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

// The operator of a model with one operator (Constant aside), else empty.
std::string sole_operator(const Case& c) {
  std::vector<std::string> real;
  for (const std::string& op : c.ops) {
    if (op != "Constant") real.push_back(op);
  }
  if (real.empty() && c.ops.size() == 1) return c.ops.front();
  return real.size() == 1 ? real.front() : std::string();
}

// conformance.md "Attribution". An `_expanded` case (the operator's function body, run as plain nodes) counts
// under the operator of its unexpanded sibling; any other case under its model's only operator; failing both,
// under the longest known operator name the case name starts with.
void attribute(std::vector<Case>& cases) {
  std::map<std::string, std::string> sole;  // "group/name" -> operator, for models with one operator
  std::set<std::string> known;
  for (const Case& c : cases) {
    std::string op = sole_operator(c);
    if (op.empty()) continue;
    sole[c.group + "/" + c.name] = op;
    known.insert(op);
  }
  constexpr std::string_view kExpanded = "_expanded";
  for (Case& c : cases) {
    if (size_t at = c.name.find(kExpanded); at != std::string::npos) {
      std::string sibling = c.group + "/" + c.name.substr(0, at) + c.name.substr(at + kExpanded.size());
      if (auto it = sole.find(sibling); it != sole.end()) {
        c.op = it->second;
        continue;
      }
    }
    if (auto it = sole.find(c.group + "/" + c.name); it != sole.end()) {
      c.op = it->second;
      continue;
    }
    std::string key = normalized(std::string_view(c.name).substr(c.name.rfind("test_", 0) == 0 ? 5 : 0));
    std::vector<std::string> candidates(known.begin(), known.end());
    candidates.insert(candidates.end(), c.ops.begin(), c.ops.end());
    size_t best = 0;
    for (const std::string& op : candidates) {
      size_t dot = op.rfind('.');
      std::string short_name = normalized(dot == std::string::npos ? op : op.substr(dot + 1));
      if (short_name.size() > best && key.rfind(short_name, 0) == 0) {
        best = short_name.size();
        c.op = op;
      }
    }
    if (c.op.empty()) c.op = c.ops.empty() ? "(none)" : c.ops.front();
  }
}

// Numbered files or directories "<prefix><N><suffix>" in `dir`, in numeric order.
std::vector<fs::path> numbered(const fs::path& dir, std::string_view prefix, std::string_view suffix) {
  std::vector<std::pair<long, fs::path>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    bool is_number =
        !digits.empty() && digits.size() <= 6 &&
        std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!is_number) continue;
    found.emplace_back(std::stol(digits), entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [n, path] : found) out.push_back(std::move(path));
  return out;
}

std::vector<Case> discover(const fs::path& data_dir, const std::string& filter) {
  std::vector<Case> cases;
  for (std::string_view group : kGroups) {
    fs::path dir = data_dir / group;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<Case> in_group;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (!fs::exists(entry.path() / "model.onnx", ec)) continue;
      Case c;
      c.group = group;
      c.name = entry.path().filename().string();
      c.dir = entry.path();
      if (!filter.empty() && (c.group + "/" + c.name).find(filter) == std::string::npos) continue;
      in_group.push_back(std::move(c));
    }
    std::sort(in_group.begin(), in_group.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
    for (Case& c : in_group) cases.push_back(std::move(c));
  }
  return cases;
}

// --- Running one case

struct Outcome {
  CaseStatus status = CaseStatus::Fail;
  std::string reason;
  std::vector<std::string> missing;
  std::string kernels;
};

struct CaseAbort {  // ends a case early with this outcome
  Outcome outcome;
};

[[noreturn]] void stop(CaseStatus status, std::string reason) {
  throw CaseAbort{{status, std::move(reason), {}, {}}};
}

std::vector<std::byte> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) stop(CaseStatus::Fail, "cannot read " + path.filename().string());
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// A serialized value (TensorProto, or SequenceProto / OptionalProto packed) with the name it carries. Which
// message the file holds follows from the model's type of the value at that position.
LoadedValue load_value(const fs::path& path, const Case& c, const std::vector<TensorInfo>& infos,
                       size_t index) {
  static const ir::Type kUndeclared;
  const ir::Type* declared = &kUndeclared;
  if (index < infos.size()) {
    if (auto it = c.declared.find(infos[index].name); it != c.declared.end()) declared = &it->second;
  }
  return cli::load_value(read_bytes(path), *declared, path.filename().string());
}

// Position of a .pb's value among the session's names: by its own name when it has one we know, else by its
// number.
size_t slot_of(const std::string& name, size_t index, const std::vector<TensorInfo>& infos,
               const char* what) {
  for (size_t i = 0; i < infos.size(); ++i) {
    if (!name.empty() && infos[i].name == name) return i;
  }
  if (index < infos.size()) return index;
  stop(CaseStatus::Fail,
       std::string(what) + " " + std::to_string(index) + " ('" + name + "') matches no model " + what);
}

// ONNX 1.12 stored bfloat16 test values as uint16 tensors (NumPy has no bfloat16): the bits are bfloat16
// bits, so a uint16 value meant for a bfloat16 input or output takes the declared type.
Tensor with_declared_bfloat16(Tensor tensor, DType declared) {
  if (declared != DType::BF16 || tensor.dtype() != DType::U16) return tensor;
  Tensor relabelled(DType::BF16, tensor.shape());
  if (tensor.byte_size() > 0) std::memcpy(relabelled.raw(), tensor.raw(), tensor.byte_size());
  return relabelled;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  return Shape::of(dims).str();
}

double element_as_double(const Tensor& t, size_t i) {
  const void* p = t.raw();
  switch (t.dtype()) {
    case DType::F32:
      return static_cast<const float*>(p)[i];
    case DType::F64:
      return static_cast<const double*>(p)[i];
    case DType::F16:
      return half_to_float(static_cast<const uint16_t*>(p)[i]);
    case DType::BF16:
      return bfloat16_to_float(static_cast<const uint16_t*>(p)[i]);
    default:
      return 0;
  }
}

std::string integer_text(const Tensor& t, size_t i) {
  const void* p = t.raw();
  switch (t.dtype()) {
    case DType::U8:
      return std::to_string(static_cast<const uint8_t*>(p)[i]);
    case DType::I8:
      return std::to_string(static_cast<const int8_t*>(p)[i]);
    case DType::U16:
      return std::to_string(static_cast<const uint16_t*>(p)[i]);
    case DType::I16:
      return std::to_string(static_cast<const int16_t*>(p)[i]);
    case DType::I32:
      return std::to_string(static_cast<const int32_t*>(p)[i]);
    case DType::I64:
      return std::to_string(static_cast<const int64_t*>(p)[i]);
    case DType::U32:
      return std::to_string(static_cast<const uint32_t*>(p)[i]);
    case DType::U64:
      return std::to_string(static_cast<const uint64_t*>(p)[i]);
    case DType::Bool:
      return static_cast<const uint8_t*>(p)[i] ? "true" : "false";
    default:
      return "?";
  }
}

bool is_floating(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16;
}

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Empty when `got` matches `want` under the method's tolerance, else the first difference.
std::string compare(const std::string& name, const Tensor& got, const Tensor& want);

std::string compare_elements(const std::string& name, const std::vector<Tensor>& got,
                             const std::vector<Tensor>& want) {
  if (got.size() != want.size()) {
    return "output '" + name + "': a sequence of " + std::to_string(got.size()) + " tensors, expected " +
           std::to_string(want.size());
  }
  for (size_t i = 0; i < got.size(); ++i) {
    std::string diff = compare(name + "[" + std::to_string(i) + "]", got[i], want[i]);
    if (!diff.empty()) return diff;
  }
  return {};
}

// compare() for packed sequences and optionals: what they hold, element by element.
std::string compare_value(const std::string& name, ValueKind kind, const Tensor& got, const Tensor& want) {
  if (kind == ValueKind::Tensor) return compare(name, got, want);
  if (kind == ValueKind::Sequence) return compare_elements(name, unpack_sequence(got), unpack_sequence(want));
  UnpackedOptional g = unpack_optional(got), w = unpack_optional(want);
  static constexpr const char* kContent[] = {"nothing", "a tensor", "a sequence"};
  if (g.content != w.content) {
    return "output '" + name + "': the optional holds " + kContent[static_cast<int>(g.content)] +
           ", expected " + kContent[static_cast<int>(w.content)];
  }
  if (g.content == OptionalContent::Tensor) return compare(name, g.tensor, w.tensor);
  return compare_elements(name, g.sequence, w.sequence);
}

std::string compare(const std::string& name, const Tensor& got, const Tensor& want) {
  std::string where = "output '" + name + "'";
  if (got.dtype() != want.dtype()) {
    return where + ": element type " + std::string(dtype_name(got.dtype())) + ", expected " +
           std::string(dtype_name(want.dtype()));
  }
  if (got.shape() != want.shape()) {
    return where + ": shape " + shape_text(got.shape()) + ", expected " + shape_text(want.shape());
  }
  size_t n = static_cast<size_t>(want.size()), bad = 0, first = 0;
  std::string first_text;
  size_t width = dtype_size(want.dtype());
  for (size_t i = 0; i < n; ++i) {
    bool ok;
    if (want.dtype() == DType::String) {
      const auto g = got.string(static_cast<int64_t>(i)), w = want.string(static_cast<int64_t>(i));
      ok = g == w;
      if (!ok && bad == 0) first_text = "got \"" + std::string(g) + "\", expected \"" + std::string(w) + "\"";
    } else if (is_floating(want.dtype())) {
      double g = element_as_double(got, i), w = element_as_double(want, i);
      ok = g == w || (std::isnan(g) && std::isnan(w)) ||
           std::fabs(g - w) <= kAbsoluteTolerance + kRelativeTolerance * std::fabs(w);
      if (!ok && bad == 0) first_text = "got " + number_text(g) + ", expected " + number_text(w);
    } else {
      ok = std::memcmp(static_cast<const std::byte*>(got.raw()) + i * width,
                       static_cast<const std::byte*>(want.raw()) + i * width, width) == 0;
      if (!ok && bad == 0) first_text = "got " + integer_text(got, i) + ", expected " + integer_text(want, i);
    }
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return {};
  return where + ": " + std::to_string(bad) + " of " + std::to_string(n) + " elements differ; first at " +
         std::to_string(first) + ": " + first_text;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Maps whatever a case threw to its status (conformance.md "Method").
Outcome classify_current_exception(ExecutionMode mode) {
  try {
    throw;
  } catch (const CaseAbort& a) {
    return a.outcome;
  } catch (const SessionError& e) {
    using K = SessionError::Kind;
    Outcome o{CaseStatus::Fail, e.what(), {}, {}};
    switch (e.kind()) {
      case K::UnsupportedOperator:
        o.status = CaseStatus::UnsupportedOp;
        o.missing = e.operators();
        if (!e.operators().empty()) o.reason = "no kernel: " + join(e.operators());
        break;
      case K::Unsupported:
        o.status = mentions_element_type(e.what()) ? CaseStatus::UnsupportedType : CaseStatus::UnsupportedOp;
        break;
      case K::ExactModeUnavailable:
        // Fast mode never needs an exact kernel: this error there is a defect.
        if (mode == ExecutionMode::Exact) {
          o.status = CaseStatus::NotExact;
        } else {
          o.reason = "ExactModeUnavailable in fast mode: " + o.reason;
        }
        break;
      default:
        o.reason = std::string(e.kind_name()) + ": " + o.reason;
        break;
    }
    return o;
  } catch (const ImportError& e) {
    return {
        mentions_element_type(e.what()) ? CaseStatus::UnsupportedType : CaseStatus::Fail, e.what(), {}, {}};
  } catch (const std::exception& e) {
    return {CaseStatus::Fail, std::string("exception: ") + e.what(), {}, {}};
  } catch (...) {
    return {CaseStatus::Fail, "unknown exception", {}, {}};
  }
}

Outcome run_case(const Case& c, ExecutionMode mode) {
  Outcome outcome;
  try {
    if (!c.import_error.empty()) {
      stop(c.import_error_is_type ? CaseStatus::UnsupportedType : CaseStatus::Fail,
           "import: " + c.import_error);
    }
    SessionOptions options;
    options.mode = mode;
    options.intra_op_threads = 1;
    Session session = Session::load(c.dir / "model.onnx", options);
    outcome.kernels = std::string(session.kernel_path());
    // Checked after loading so that a missing operator is still reported as such.
    if (!c.non_tensor_value.empty()) stop(CaseStatus::UnsupportedType, c.non_tensor_value);
    std::vector<fs::path> sets = numbered(c.dir, "test_data_set_", "");
    if (sets.empty()) stop(CaseStatus::Fail, "no test_data_set_* directory");
    for (const fs::path& set : sets) {
      std::vector<NamedTensor> feeds;
      std::vector<fs::path> inputs = numbered(set, "input_", ".pb");
      for (size_t i = 0; i < inputs.size(); ++i) {
        auto [name, tensor] = load_value(inputs[i], c, session.inputs(), i);
        const TensorInfo& info = session.inputs()[slot_of(name, i, session.inputs(), "input")];
        feeds.push_back({info.name, with_declared_bfloat16(std::move(tensor), info.dtype)});
      }
      std::vector<std::string> names;
      std::vector<ValueKind> kinds;
      std::vector<Tensor> expected;
      std::vector<fs::path> outputs = numbered(set, "output_", ".pb");
      for (size_t i = 0; i < outputs.size(); ++i) {
        auto [name, tensor] = load_value(outputs[i], c, session.outputs(), i);
        const TensorInfo& info = session.outputs()[slot_of(name, i, session.outputs(), "output")];
        names.push_back(info.name);
        kinds.push_back(info.kind);
        expected.push_back(with_declared_bfloat16(std::move(tensor), info.dtype));
      }
      std::vector<Tensor> got = session.run(feeds, names);
      if (got.size() != expected.size()) {
        stop(CaseStatus::Fail,
             std::to_string(got.size()) + " outputs, expected " + std::to_string(expected.size()));
      }
      for (size_t i = 0; i < got.size(); ++i) {
        std::string diff = compare_value(names[i], kinds[i], got[i], expected[i]);
        if (!diff.empty()) stop(CaseStatus::Fail, set.filename().string() + ": " + diff);
      }
    }
    outcome.status = CaseStatus::Pass;
  } catch (...) {
    std::string kernels = outcome.kernels;
    outcome = classify_current_exception(mode);
    outcome.kernels = kernels;
  }
  return outcome;
}

#ifdef ONEMODEL_CONFORMANCE_FORK
// The child's report: status, kernels, missing operators (tab-separated), then the reason as the rest.
std::string serialize(const Outcome& o) {
  std::string missing;
  for (const std::string& m : o.missing) missing += (missing.empty() ? "" : "\t") + m;
  return std::string(status_name(o.status)) + "\n" + o.kernels + "\n" + missing + "\n" + o.reason;
}

Outcome deserialize(const std::string& text) {
  Outcome o;
  size_t a = text.find('\n'), b = a == std::string::npos ? a : text.find('\n', a + 1);
  size_t c = b == std::string::npos ? b : text.find('\n', b + 1);
  auto status = parse_status(text.substr(0, a));
  if (c == std::string::npos || !status) return {CaseStatus::Fail, "the case process sent no result", {}, {}};
  o.status = *status;
  o.kernels = text.substr(a + 1, b - a - 1);
  std::string missing = text.substr(b + 1, c - b - 1);
  for (size_t start = 0; !missing.empty();) {
    size_t tab = missing.find('\t', start);
    o.missing.push_back(missing.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  o.reason = text.substr(c + 1);
  return o;
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Runs the case in a child process so a crash or a hang costs only this case.
Outcome run_isolated(const Case& c, ExecutionMode mode, int timeout_seconds) {
  int fds[2];
  if (::pipe(fds) != 0) return run_case(c, mode);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return run_case(c, mode);
  }
  if (pid == 0) {
    ::close(fds[0]);
    write_all(fds[1], serialize(run_case(c, mode)));
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  bool timed_out = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  for (;;) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[4096];
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return {CaseStatus::Fail, "timed out after " + std::to_string(timeout_seconds) + " s", {}, {}};
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return {
        CaseStatus::Fail, "crashed with signal " + std::to_string(sig) + " (" + strsignal(sig) + ")", {}, {}};
  }
  return deserialize(text);
}
#endif

Outcome run_one(const Case& c, const Options& o) {
#ifdef ONEMODEL_CONFORMANCE_FORK
  if (o.isolate) return run_isolated(c, o.mode, o.timeout_seconds);
#endif
  return run_case(c, o.mode);
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  return static_cast<bool>(out << text);
}

}  // namespace

int conformance_main(const std::vector<std::string>& args) {
  Options options;
  try {
    options = parse_options(args);
  } catch (const UsageError& e) {
    std::fprintf(
        stderr,
        "onemodel conformance: %s\nusage: onemodel conformance DATA_DIR [--mode fast|exact] [--json FILE] "
        "[--markdown FILE] [--filter SUBSTR] [--timeout SECONDS] [--no-isolate]\n",
        e.what());
    return 2;
  }
  std::string mode = options.mode == ExecutionMode::Exact ? "exact" : "fast";
  std::vector<Case> cases = discover(options.data_dir, options.filter);
  if (cases.empty()) {
    std::fprintf(stderr, "onemodel conformance: no cases under %s\n", options.data_dir.string().c_str());
    return 2;
  }
  for (Case& c : cases) read_model_facts(c);
  attribute(cases);

  RunResult run{mode, {}, options.data_dir.string(), {}};
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    Outcome o = run_one(c, options);
    if (run.kernels.empty()) run.kernels = o.kernels;
    if (o.status == CaseStatus::Fail) {
      if (const KnownDiff* k = find_known_diff(c.group, c.name, o.reason)) {
        o = {CaseStatus::KnownDiff, std::string(k->reason), {}, {}};
      }
    }
    run.cases.push_back({c.group, c.name, c.op, c.opset, o.status, o.reason, o.missing});
    if ((i + 1) % kProgressEvery == 0 || i + 1 == cases.size()) {
      std::fprintf(stderr, "conformance %s: %zu/%zu cases, pass %zu, fail %zu\n", mode.c_str(), i + 1,
                   cases.size(), run.count(CaseStatus::Pass), run.count(CaseStatus::Fail));
    }
  }

  for (const CaseResult& c : run.cases) {
    if (c.status == CaseStatus::Fail) {
      std::printf("FAIL %s/%s: %s\n", c.group.c_str(), c.name.c_str(), c.reason.c_str());
    }
  }
  std::printf("mode %s\nkernels %s\ncases %zu\n", mode.c_str(), run.kernels.c_str(), run.cases.size());
  for (CaseStatus s : kStatuses) std::printf("%s %zu\n", std::string(status_name(s)).c_str(), run.count(s));

  if (!options.json_path.empty() && !write_text(options.json_path, to_json(run))) {
    std::fprintf(stderr, "onemodel conformance: cannot write %s\n", options.json_path.c_str());
    return 2;
  }
  if (!options.markdown_path.empty() && !write_text(options.markdown_path, markdown_report({run}))) {
    std::fprintf(stderr, "onemodel conformance: cannot write %s\n", options.markdown_path.c_str());
    return 2;
  }
  return run.count(CaseStatus::Fail) == 0 ? 0 : 1;
}

}  // namespace onemodel::cli
