#include "cli/ctc.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "onemodel/ctc.h"
#include "onemodel/error.h"

namespace onemodel::cli {
namespace {

using nlohmann::json;

std::string hex(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  char text[16];
  std::snprintf(text, sizeof text, "%08" PRIx32, b);
  return text;
}

std::string hex(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  char text[24];
  std::snprintf(text, sizeof text, "%016" PRIx64, b);
  return text;
}

std::string join(const std::vector<int32_t>& labels) {
  std::string out;
  for (size_t i = 0; i < labels.size(); ++i) out += (i ? "," : "") + std::to_string(labels[i]);
  return out;
}

// JSON has no NaN or infinities: they come as the strings "nan", "inf" and "-inf".
float score(const json& v) {
  if (!v.is_string()) return v.get<float>();
  const std::string& s = v.get_ref<const std::string&>();
  if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<float>::infinity();
  if (s == "-inf") return -std::numeric_limits<float>::infinity();
  throw std::runtime_error("ctc cases: unknown score '" + s + "'");
}

// The hypotheses, or the library's refusal.
void print_beam(const std::vector<float>& values, int64_t steps, int64_t classes,
                const ctc::BeamOptions& options) {
  std::printf("beam width=%d top=%d\n", options.beam_width, options.top_n);
  try {
    for (const ctc::Hypothesis& h : ctc::beam_search(values, steps, classes, options))
      std::printf("hyp labels=%s logp=%s confidence=%s\n", join(h.labels).c_str(),
                  hex(h.log_probability).c_str(), hex(h.confidence).c_str());
  } catch (const Error& e) {
    std::printf("error %s\n", e.what());
  }
}

// One case: greedy, the beam search with the case's width, and the wide beam of the exhaustive check if any.
void decode_case(const json& c) {
  const ctc::Scores kind = c.at("scores") == "logits" ? ctc::Scores::Logits : ctc::Scores::LogProbabilities;
  const int64_t steps = c.at("steps"), classes = c.at("classes");
  const int32_t blank = c.at("blank");
  std::vector<float> values;
  for (const json& v : c.at("values")) values.push_back(score(v));
  std::printf("case %s\n", c.at("name").get<std::string>().c_str());

  const ctc::GreedyResult g = ctc::greedy_decode(values, steps, classes, {kind, blank});
  std::string runs, probabilities;
  for (const ctc::Run& r : g.runs)
    runs += (runs.empty() ? "" : ";") + std::to_string(r.label) + ":" + std::to_string(r.first_step) + ":" +
            std::to_string(r.last_step) + ":" + hex(r.confidence);
  for (float p : g.step_probabilities) probabilities += (probabilities.empty() ? "" : ",") + hex(p);
  std::printf("greedy labels=%s runs=%s confidence=%s steps=%s\n", join(g.labels()).c_str(), runs.c_str(),
              hex(g.confidence).c_str(), probabilities.c_str());

  print_beam(values, steps, classes, {kind, blank, c.at("beamWidth"), c.at("topN")});
  if (c.contains("exhaustive"))
    print_beam(values, steps, classes, {kind, blank, c.at("exhaustive").at("beamWidth"), 1});
}

}  // namespace

int ctc_main(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fputs("usage: onemodel ctc CASES.json\n", stderr);
    return 2;
  }
  std::ifstream in(args[0]);
  if (!in) throw std::runtime_error("cannot read " + args[0]);
  const json cases = json::parse(in);
  for (const json& c : cases.at("cases")) decode_case(c);
  return 0;
}

}  // namespace onemodel::cli
