// The ONNX Runtime oracle cases of testdata/oracle/<family>.json.gz (docs/oracle.md): every recorded case
// runs on every kernel path in fast mode and, when the case has an exact kernel, in exact mode at 1 and 2
// threads. Results must match ONNX Runtime's recorded output under the case's rule (bits, integers or scaled
// error), or the documented result of a deviation; exact-mode bytes must also be identical across paths and
// thread counts.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

#include "core/half.h"
#include "ops/op_test_util.h"
#include "support/gunzip.h"

namespace onemodel::test {
namespace {

using nlohmann::json;

std::vector<uint8_t> base64_decode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const int v = value(c);
    if (v < 0) throw std::runtime_error("invalid base64");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
}

Tensor tensor_from_json(const json& j) {
  std::vector<int64_t> dims = j.at("dims").get<std::vector<int64_t>>();
  Tensor t(static_cast<DType>(j.at("type").get<int32_t>()), dims);
  const std::vector<uint8_t> bytes = base64_decode(j.at("data").get<std::string>());
  if (bytes.size() != t.byte_size())
    throw std::runtime_error("tensor " + j.at("name").get<std::string>() + ": size");
  if (!bytes.empty()) std::memcpy(t.raw(), bytes.data(), bytes.size());
  return t;
}

struct OracleCase {
  std::string id;
  std::vector<std::byte> model;
  std::vector<NamedTensor> inputs;
  std::vector<Tensor> want;  // ONNX Runtime's outputs, or the deviation's documented ones
  std::string check;
  double tol = 0;
  bool exact = true;
  std::string why;  // the deviation's reason, empty when the case follows ONNX Runtime
};

struct Family {
  std::vector<OracleCase> cases;
  std::string error;
};

Family load_family(const std::string& family) {
  Family f;
  // ONEMODEL_ORACLE_DIR points at files recorded with another seed (record.mjs --seed ... --out ...).
  const char* dir = std::getenv("ONEMODEL_ORACLE_DIR");
  const std::string path =
      (dir != nullptr ? std::string(dir) : std::string(ONEMODEL_SOURCE_DIR) + "/testdata/oracle") + "/" +
      family + ".json.gz";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    f.error = "cannot open " + path;
    return f;
  }
  const std::vector<uint8_t> gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<uint8_t> text = gunzip(gz);
  const json doc = json::parse(text.begin(), text.end());
  if (doc.at("family") != family) f.error = "family field is " + doc.at("family").dump();
  for (const json& c : doc.at("cases")) {
    OracleCase oc;
    oc.id = c.at("id").get<std::string>();
    const std::vector<uint8_t> model = base64_decode(c.at("model").get<std::string>());
    oc.model.resize(model.size());
    if (!model.empty()) std::memcpy(oc.model.data(), model.data(), model.size());
    for (const json& t : c.at("inputs"))
      oc.inputs.push_back({t.at("name").get<std::string>(), tensor_from_json(t)});
    const json* want = &c.at("outputs");
    if (c.contains("deviation")) {
      oc.why = c.at("deviation").at("why").get<std::string>();
      want = &c.at("deviation").at("expect");
    }
    for (const json& t : *want) oc.want.push_back(tensor_from_json(t));
    oc.check = c.at("check").get<std::string>();
    oc.tol = c.at("tol").get<double>();
    oc.exact = c.at("exact").get<bool>();
    f.cases.push_back(std::move(oc));
  }
  return f;
}

// The value of element i of a float tensor as a double, or nullopt for a non-float type.
std::optional<double> float_at(const Tensor& t, size_t i) {
  switch (t.dtype()) {
    case DType::F32:
      return static_cast<const float*>(t.raw())[i];
    case DType::F64:
      return static_cast<const double*>(t.raw())[i];
    case DType::F16:
      return half_to_float(static_cast<const uint16_t*>(t.raw())[i]);
    case DType::BF16:
      return bfloat16_to_float(static_cast<const uint16_t*>(t.raw())[i]);
    default:
      return std::nullopt;
  }
}

std::string describe(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool same_element_bytes(const Tensor& a, const Tensor& b, size_t i) {
  const size_t w = dtype_size(a.dtype());
  return std::memcmp(static_cast<const std::byte*>(a.raw()) + i * w,
                     static_cast<const std::byte*>(b.raw()) + i * w, w) == 0;
}

// Empty when `got` matches `want` under the case's rule, else where and how it differs.
std::string compare(const Tensor& got, const Tensor& want, const std::string& check, double tol) {
  if (got.dtype() != want.dtype()) {
    return std::string("element type ") + std::string(dtype_name(got.dtype())) + ", expected " +
           std::string(dtype_name(want.dtype()));
  }
  if (got.shape() != want.shape()) return "shape differs";
  const size_t n = static_cast<size_t>(want.size());
  const DType t = want.dtype();
  const bool is_float = t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16;
  if (!is_float || check == "int" || check == "bits") {
    for (size_t i = 0; i < n; ++i) {
      if (same_element_bytes(got, want, i)) continue;
      if (is_float) {
        const double g = *float_at(got, i), w = *float_at(want, i);
        if (std::isnan(g) && std::isnan(w)) continue;
        return "element " + std::to_string(i) + ": got " + describe(g) + ", expected " + describe(w);
      }
      return "element " + std::to_string(i) + " differs";
    }
    return {};
  }
  // Scaled error over the finite expected values; non-finite ones must be matched exactly.
  double scale = 1e-3, worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < n; ++i) {
    const double w = *float_at(want, i);
    if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
  }
  for (size_t i = 0; i < n; ++i) {
    const double g = *float_at(got, i), w = *float_at(want, i);
    if (!std::isfinite(w)) {
      if (!(g == w || (std::isnan(g) && std::isnan(w))))
        return "element " + std::to_string(i) + ": got " + describe(g) + ", expected " + describe(w);
      continue;
    }
    const double d = std::isfinite(g) ? std::fabs(g - w) : INFINITY;
    if (d > worst) {
      worst = d;
      worst_at = i;
    }
  }
  if (worst / scale <= tol) return {};
  return "element " + std::to_string(worst_at) + ": got " + describe(*float_at(got, worst_at)) +
         ", expected " + describe(*float_at(want, worst_at)) + " (scaled error " + describe(worst / scale) +
         " > " + describe(tol) + ")";
}

std::vector<Tensor> run_case(const OracleCase& c, ExecutionMode mode, const std::string& path, int threads) {
  Session s = Session::load(std::span<const std::byte>(c.model), options(mode, path, threads));
  return s.run(c.inputs);
}

// Runs one family; returns how many cases it has.
size_t check_family(const std::string& family) {
  const Family f = load_family(family);
  EXPECT_EQ(f.error, "");
  const std::vector<std::string> paths = kernel_paths();
  std::vector<std::string> failures;
  // Cases whose operator the library does not register yet, reported as one line per operator.
  std::map<std::string, size_t> unregistered;
  auto fail = [&](const OracleCase& c, const std::string& path, const char* mode, const std::string& what) {
    failures.push_back(c.id + " [" + path + ", " + mode + "]: " + what +
                       (c.why.empty() ? "" : " (deviation: " + c.why + ")"));
  };
  for (const OracleCase& c : f.cases) {
    std::optional<std::vector<Tensor>> exact_reference;
    for (const std::string& path : paths) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        if (mode == ExecutionMode::Exact && !c.exact) continue;
        const char* mode_name = mode == ExecutionMode::Exact ? "exact" : "fast";
        std::vector<Tensor> got;
        try {
          got = run_case(c, mode, path, 1);
        } catch (const SessionError& e) {
          if (e.kind() == SessionError::Kind::UnsupportedOperator) {
            for (const std::string& op : e.operators()) ++unregistered[op];
          }
          fail(c, path, mode_name, std::string("threw: ") + e.what());
          continue;
        } catch (const std::exception& e) {
          fail(c, path, mode_name, std::string("threw: ") + e.what());
          continue;
        }
        if (got.size() != c.want.size()) {
          fail(c, path, mode_name, "output count " + std::to_string(got.size()));
          continue;
        }
        for (size_t i = 0; i < got.size(); ++i) {
          const std::string diff = compare(got[i], c.want[i], c.check, c.tol);
          if (!diff.empty()) fail(c, path, mode_name, "output " + std::to_string(i) + " " + diff);
        }
        if (mode != ExecutionMode::Exact) continue;
        // Exact mode: the same bytes on every path and at 2 threads.
        std::vector<Tensor> two;
        try {
          two = run_case(c, mode, path, 2);
        } catch (const std::exception& e) {
          fail(c, path, "exact, 2 threads", std::string("threw: ") + e.what());
          continue;
        }
        if (!exact_reference) exact_reference = got;
        for (size_t i = 0; i < got.size(); ++i) {
          if (!same_bytes(got[i], (*exact_reference)[i]))
            fail(c, path, mode_name, "output " + std::to_string(i) + " bytes differ from path " + paths[0]);
          if (i >= two.size() || !same_bytes(got[i], two[i]))
            fail(c, path, mode_name, "output " + std::to_string(i) + " bytes differ at 2 threads");
        }
      }
    }
  }
  for (size_t i = 0; i < failures.size() && i < 30; ++i) std::printf("  %s\n", failures[i].c_str());
  // Then every failing case once, so a fix can be aimed at all of them.
  std::string last;
  for (const std::string& f : failures) {
    const std::string id = f.substr(0, f.find(' '));
    if (id != last) std::printf("  failing: %s\n", id.c_str());
    last = id;
  }
  for (const auto& [op, runs] : unregistered) {
    std::printf("  unsupported operator %s: %zu failing runs (not registered)\n", op.c_str(), runs);
  }
  EXPECT_EQ(failures.size(), 0u) << family << ": " << failures.size()
                                 << " failing case runs (first 30 printed above)";
  std::printf("%s: %zu cases on %zu kernel paths\n", family.c_str(), f.cases.size(), paths.size());
  return f.cases.size();
}

// Floors of the recorded case counts, so a truncated or half-generated file cannot pass.
TEST(Oracle, Elementwise) {
  EXPECT_GE(check_family("elementwise"), 1100u);
}
TEST(Oracle, Shape) {
  EXPECT_GE(check_family("shape"), 680u);
}
TEST(Oracle, Norms) {
  EXPECT_GE(check_family("norms"), 660u);
}
TEST(Oracle, Recurrent) {
  EXPECT_GE(check_family("recurrent"), 140u);
}
TEST(Oracle, Control) {
  EXPECT_GE(check_family("control"), 80u);
}
TEST(Oracle, Quant) {
  EXPECT_GE(check_family("quant"), 400u);
}
TEST(Oracle, VisionSignal) {
  EXPECT_GE(check_family("vision-signal"), 330u);
}

}  // namespace
}  // namespace onemodel::test
