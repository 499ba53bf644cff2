// CTC decoding (include/onemodel/ctc.h) against tools/ctc_reference.py, an independent double-precision
// Python implementation: the 40 seeded cases of testdata/ctc/cases.json give the greedy runs and
// probabilities, the beam search hypotheses, and for small sizes the best text found by enumerating every
// alignment. Also the deterministic exp/ln against the C library, batches, the allocation-free entry point
// and every refusal.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "ctc/deterministic_math.h"
#include "onemodel/ctc.h"
#include "onemodel/error.h"
#include "support/allocation_counter.h"

namespace onemodel::ctc {
namespace {

using nlohmann::json;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Case {
  std::string name;
  Scores kind = Scores::Logits;
  int64_t steps = 0, classes = 0;
  int32_t blank = 0, beam_width = 1, top_n = 1;
  std::vector<float> values;
  json expected;
};

const json& reference() {
  static const json data = [] {
    std::ifstream in(std::string(ONEMODEL_SOURCE_DIR) + "/testdata/ctc/cases.json");
    if (!in)
      throw std::runtime_error("testdata/ctc/cases.json is missing (tools/ctc_reference.py --out writes it)");
    return json::parse(in);
  }();
  return data;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const json& c : reference().at("cases")) {
    Case k;
    k.name = c.at("name");
    k.kind = c.at("scores") == "logits" ? Scores::Logits : Scores::LogProbabilities;
    k.steps = c.at("steps");
    k.classes = c.at("classes");
    k.blank = c.at("blank");
    k.beam_width = c.at("beamWidth");
    k.top_n = c.at("topN");
    // The reference writes float32 values exactly; minus infinity is the string "-inf".
    for (const json& v : c.at("values")) k.values.push_back(v.is_string() ? -kInf : v.get<float>());
    k.expected = c;
    out.push_back(std::move(k));
  }
  return out;
}

double probability_tolerance() {
  return reference().at("tolerances").at("probability");
}
double log_tolerance() {
  return reference().at("tolerances").at("logProbability");
}

uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

TEST(Ctc, ReferenceHasFortyCases) {
  EXPECT_EQ(cases().size(), 40u);
  int exhaustive = 0;
  for (const Case& c : cases()) exhaustive += c.expected.contains("exhaustive");
  EXPECT_GE(exhaustive, 10);
}

TEST(Ctc, GreedyMatchesTheReference) {
  const double tol = probability_tolerance();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const GreedyResult got = greedy_decode(c.values, c.steps, c.classes, {c.kind, c.blank});
    const json& want = c.expected.at("greedy");
    ASSERT_EQ(got.runs.size(), want.at("runs").size());
    for (size_t i = 0; i < got.runs.size(); ++i) {
      const json& run = want.at("runs")[i];
      EXPECT_EQ(got.runs[i].label, run.at("label").get<int32_t>());
      EXPECT_EQ(got.runs[i].first_step, run.at("firstStep").get<int32_t>());
      EXPECT_EQ(got.runs[i].last_step, run.at("lastStep").get<int32_t>());
      EXPECT_NEAR(got.runs[i].confidence, run.at("confidence").get<double>(), tol);
    }
    EXPECT_NEAR(got.confidence, want.at("confidence").get<double>(), tol);
    ASSERT_EQ(got.step_probabilities.size(), static_cast<size_t>(c.steps));
    for (size_t t = 0; t < got.step_probabilities.size(); ++t)
      EXPECT_NEAR(got.step_probabilities[t], want.at("stepProbabilities")[t].get<double>(), tol)
          << "step " << t;
  }
}

TEST(Ctc, GreedySpanEntryGivesTheSameBitsAndAllocatesNothingWhenWarm) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const GreedyResult whole = greedy_decode(c.values, c.steps, c.classes, {c.kind, c.blank});
    std::vector<ctc::Run> runs(static_cast<size_t>(c.steps));
    std::vector<float> probabilities(static_cast<size_t>(c.steps));
    greedy_decode(c.values, c.steps, c.classes, {c.kind, c.blank}, runs,
                  probabilities);  // warm the scratch row
    const int64_t before = test::allocation_count();
    const GreedySummary summary =
        greedy_decode(c.values, c.steps, c.classes, {c.kind, c.blank}, runs, probabilities);
    const GreedySummary without_steps = greedy_decode(c.values, c.steps, c.classes, {c.kind, c.blank}, runs);
    EXPECT_EQ(test::allocation_count() - before, 0);
    EXPECT_EQ(bits(without_steps.confidence), bits(summary.confidence));
    ASSERT_EQ(summary.run_count, whole.runs.size());
    EXPECT_EQ(bits(summary.confidence), bits(whole.confidence));
    for (size_t i = 0; i < summary.run_count; ++i) {
      EXPECT_EQ(runs[i].label, whole.runs[i].label);
      EXPECT_EQ(runs[i].first_step, whole.runs[i].first_step);
      EXPECT_EQ(runs[i].last_step, whole.runs[i].last_step);
      EXPECT_EQ(bits(runs[i].confidence), bits(whole.runs[i].confidence));
    }
    for (size_t t = 0; t < probabilities.size(); ++t)
      EXPECT_EQ(bits(probabilities[t]), bits(whole.step_probabilities[t]));
  }
}

void expect_hypothesis(const Hypothesis& got, const json& want, double tol) {
  EXPECT_EQ(got.labels, want.at("labels").get<std::vector<int32_t>>());
  EXPECT_NEAR(got.log_probability, want.at("logProbability").get<double>(), tol);
  if (want.contains("confidence")) {
    EXPECT_NEAR(got.confidence, want.at("confidence").get<double>(), tol);
  }
}

TEST(Ctc, BeamSearchMatchesTheReference) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const BeamOptions options{c.kind, c.blank, c.beam_width, c.top_n};
    const std::vector<Hypothesis> got = beam_search(c.values, c.steps, c.classes, options);
    const json& want = c.expected.at("beam");
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) expect_hypothesis(got[i], want[i], log_tolerance());
  }
}

TEST(Ctc, WideBeamFindsTheExhaustiveBestText) {
  int checked = 0;
  for (const Case& c : cases()) {
    if (!c.expected.contains("exhaustive")) continue;
    SCOPED_TRACE(c.name);
    const json& exhaustive = c.expected.at("exhaustive");
    const BeamOptions options{c.kind, c.blank, exhaustive.at("beamWidth").get<int32_t>(), 1};
    const std::vector<Hypothesis> got = beam_search(c.values, c.steps, c.classes, options);
    ASSERT_EQ(got.size(), 1u);
    expect_hypothesis(got[0], exhaustive.at("best"), log_tolerance());
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// A batch item decodes like the same item alone, truncated to its length, bit for bit.
TEST(Ctc, BatchItemsDecodeLikeSingleItems) {
  for (const Case& c : cases()) {
    if (c.steps < 2) continue;
    SCOPED_TRACE(c.name);
    std::vector<float> batch;
    for (int copy = 0; copy < 3; ++copy) batch.insert(batch.end(), c.values.begin(), c.values.end());
    const std::vector<int64_t> lengths = {c.steps, c.steps / 2, 0};
    const auto greedy = greedy_decode_batch(batch, 3, c.steps, c.classes, {c.kind, c.blank}, lengths);
    const BeamOptions options{c.kind, c.blank, c.beam_width, c.top_n};
    const auto beams = beam_search_batch(batch, 3, c.steps, c.classes, options, lengths);
    ASSERT_EQ(greedy.size(), 3u);
    ASSERT_EQ(beams.size(), 3u);
    for (size_t b = 0; b < 3; ++b) {
      const std::span<const float> alone(c.values.data(), static_cast<size_t>(lengths[b] * c.classes));
      const GreedyResult g = greedy_decode(alone, lengths[b], c.classes, {c.kind, c.blank});
      EXPECT_EQ(greedy[b].labels(), g.labels());
      EXPECT_EQ(bits(greedy[b].confidence), bits(g.confidence));
      EXPECT_EQ(greedy[b].step_probabilities.size(), g.step_probabilities.size());
      const std::vector<Hypothesis> h = beam_search(alone, lengths[b], c.classes, options);
      ASSERT_EQ(beams[b].size(), h.size());
      for (size_t i = 0; i < h.size(); ++i) {
        EXPECT_EQ(beams[b][i].labels, h[i].labels);
        EXPECT_EQ(beams[b][i].log_probability, h[i].log_probability);
        EXPECT_EQ(beams[b][i].confidence, h[i].confidence);
      }
    }
    const auto unpadded = greedy_decode_batch(batch, 3, c.steps, c.classes, {c.kind, c.blank});
    EXPECT_EQ(unpadded[2].labels(), greedy[0].labels());
  }
}

TEST(Ctc, GreedyBasics) {
  // Log-probabilities of 5 steps over {blank, a, b}: blank a a blank a gives two a's; exp is capped at 1.
  const float lp[] = {-0.1f,  -3.0f, -4.0f,  //
                      -2.0f,  -0.2f, -3.0f,  //
                      -2.0f,  -0.3f, -3.0f,  //
                      -0.05f, -4.0f, -4.0f,  //
                      -2.0f,  0.5f,  -3.0f};
  const GreedyResult r = greedy_decode(lp, 5, 3, {Scores::LogProbabilities, 0});
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].label, 1);
  EXPECT_EQ(r.runs[0].first_step, 1);
  EXPECT_EQ(r.runs[0].last_step, 2);
  EXPECT_NEAR(r.runs[0].confidence, std::exp(-0.2), 2e-7);
  EXPECT_EQ(r.runs[1].label, 1);
  EXPECT_EQ(r.runs[1].first_step, 4);
  EXPECT_EQ(r.runs[1].confidence, 1.0f);  // capped
  EXPECT_EQ(r.step_probabilities[4], 1.0f);
  EXPECT_NEAR(r.confidence, (std::exp(-0.2) + 1.0) / 2, 2e-7);

  // Ties go to the lowest class; a NaN never beats a number; an all-NaN row picks class 0.
  const float ties[] = {1.0f, 2.0f, 2.0f, kNaN, 0.0f, -1.0f, kNaN, kNaN, kNaN};
  const GreedyResult t = greedy_decode(ties, 3, 3, {Scores::Logits, 2});
  // Step 1: class 0 is NaN and class 1 (0.0) beats -1, so the run of class 1 goes on.
  ASSERT_EQ(t.runs.size(), 2u);
  EXPECT_EQ(t.runs[0].label, 1);
  EXPECT_EQ(t.runs[0].first_step, 0);
  EXPECT_EQ(t.runs[0].last_step, 1);
  EXPECT_EQ(t.runs[1].label, 0);
  // A NaN in a row of logits makes its softmax NaN, so that step's probability is the canonical NaN, which
  // does not replace the run's maximum.
  EXPECT_EQ(bits(t.step_probabilities[1]), 0x7FC00000u);
  EXPECT_NEAR(t.step_probabilities[0], 1.0 / (std::exp(-1.0) + 2.0), 2e-7);
  EXPECT_EQ(bits(t.runs[0].confidence), bits(t.step_probabilities[0]));

  // Nothing emitted: confidence 0; no steps at all is fine too.
  const float blanks[] = {5.0f, 0.0f, 4.0f, 1.0f};
  EXPECT_EQ(greedy_decode(blanks, 2, 2).confidence, 0.0f);
  EXPECT_TRUE(greedy_decode(std::span<const float>(), 0, 7).runs.empty());
}

TEST(Ctc, BeamSearchEdges) {
  // No steps: the empty text with probability 1.
  const auto empty = beam_search(std::span<const float>(), 0, 3, {Scores::Logits, 0, 4, 2});
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_TRUE(empty[0].labels.empty());
  EXPECT_EQ(empty[0].log_probability, 0.0);
  EXPECT_EQ(empty[0].confidence, 0.0);
  // A step where every class has probability zero leaves nothing.
  const float zero[] = {-0.5f, -1.0f, -kInf, -kInf};
  EXPECT_TRUE(beam_search(zero, 2, 2, {Scores::LogProbabilities, 0, 4, 1}).empty());
  // One class, the blank: always the empty text with the summed log probability.
  const float blank_only[] = {3.0f, -2.0f};
  const auto only = beam_search(blank_only, 2, 1, {Scores::Logits, 0, 1, 1});
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].log_probability, 0.0);
  // Confidence is the per-label geometric mean.
  const float certain[] = {-kInf, 0.0f, 0.0f, -kInf, -kInf, 0.0f};  // a, blank, a
  const auto aa = beam_search(certain, 3, 2, {Scores::LogProbabilities, 0, 2, 1});
  ASSERT_EQ(aa.size(), 1u);
  EXPECT_EQ(aa[0].labels, (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(aa[0].log_probability, 0.0);
  EXPECT_EQ(aa[0].confidence, 1.0);
}

TEST(Ctc, DeterministicExpAndLnAreAccurate) {
  double worst_exp = 0, worst_ln = 0;
  for (double x = -699.99; x <= 700.0; x += 0.0137) {
    const double want = std::exp(x);
    worst_exp = std::max(worst_exp, std::abs(detail::exp(x) - want) / want);
  }
  for (double x = -45.0; x <= 0.0; x += 1.0 / 4096) {
    const double want = std::exp(x);
    worst_exp = std::max(worst_exp, std::abs(detail::exp(x) - want) / want);
  }
  for (double x = 1.0; x <= 2.0; x += 1.0 / 65536) {
    const double want = std::log(x);
    if (want != 0) worst_ln = std::max(worst_ln, std::abs(detail::ln(x) - want) / want);
  }
  for (double x = 1e-300; x < 1e300; x *= 1.37) {
    const double want = std::log(x);
    worst_ln = std::max(worst_ln, std::abs(detail::ln(x) - want) / std::abs(want));
  }
  EXPECT_LT(worst_exp, 1e-15);
  EXPECT_LT(worst_ln, 1e-15);
  EXPECT_EQ(detail::exp(0.0), 1.0);
  EXPECT_EQ(detail::ln(1.0), 0.0);
  EXPECT_EQ(detail::exp(-700.0), 0.0);
  EXPECT_EQ(detail::exp(-std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(detail::exp(std::numeric_limits<double>::quiet_NaN()), 0.0);
  EXPECT_EQ(detail::exp(1e6), detail::exp(700.0));
  EXPECT_EQ(detail::ln(0.0), -std::numeric_limits<double>::infinity());
  const double subnormal = 4.9406564584124654e-324 * 12345;
  EXPECT_NEAR(detail::ln(subnormal), std::log(subnormal), 1e-15 * 750);
  EXPECT_EQ(detail::log_add(-3.0, detail::kNegInf), -3.0);
  EXPECT_EQ(detail::log_add(detail::kNegInf, detail::kNegInf), detail::kNegInf);
  EXPECT_EQ(detail::log_add(0.0, -40.5), 0.0);
  EXPECT_EQ(detail::log_add(-1.0, -2.0), detail::log_add(-2.0, -1.0));
  EXPECT_NEAR(detail::log_add(-1.0, -2.0), std::log(std::exp(-1.0) + std::exp(-2.0)), 1e-15);
}

// Runs `f` and checks that it throws SessionError InvalidInput with a message containing `needle`.
template <class F>
void expect_refused(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionError::Kind::InvalidInput);
    EXPECT_EQ(std::string(e.what()).rfind("ctc: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Ctc, BadInputIsRefused) {
  const std::vector<float> six(6, 0.0f);
  const GreedyOptions logits;
  expect_refused([&] { greedy_decode(six, 2, 4, logits); }, "scores hold 6 values");
  expect_refused([&] { greedy_decode(six, -1, 6, logits); }, "extents");
  expect_refused([&] { greedy_decode(std::span<const float>(), 0, 0, logits); }, "classes at least 1");
  expect_refused([&] { greedy_decode(six, 2, 3, {Scores::Logits, 3}); }, "blank 3");
  expect_refused([&] { greedy_decode(six, 2, 3, {Scores::Logits, -1}); }, "blank -1");
  expect_refused([&] { beam_search(six, 3, 3, {}); }, "scores hold 6 values");
  expect_refused([&] { beam_search(six, 2, 3, {Scores::Logits, 7, 4, 1}); }, "blank 7");

  std::vector<ctc::Run> runs(1);
  std::vector<float> probabilities(1);
  expect_refused([&] { greedy_decode(six, 2, 3, logits, runs); }, "room for 1 runs");
  std::vector<ctc::Run> enough(2);
  expect_refused([&] { greedy_decode(six, 2, 3, logits, enough, probabilities); }, "room for 1 step");

  const std::vector<float> twelve(12, 0.0f);
  expect_refused([&] { greedy_decode_batch(twelve, 2, 3, 3, logits); }, "needs a different number");
  expect_refused([&] { greedy_decode_batch(twelve, 2, 2, 3, logits, std::vector<int64_t>{1}); },
                 "lengths has 1");
  expect_refused(
      [&] {
        greedy_decode_batch(twelve, 2, 2, 3, logits, std::vector<int64_t>{1, 3});
      },
      "lengths[1] = 3");
  expect_refused(
      [&] {
        beam_search_batch(twelve, 2, 2, 3, {}, std::vector<int64_t>{-1, 0});
      },
      "lengths[0] = -1");
  expect_refused(
      [&] {
        beam_search_batch(std::span<const float>(), 0, 2, 3, {Scores::Logits, 0, 0, 1});
      },
      "beam width 0");

  expect_refused([&] { beam_search(six, 2, 3, {Scores::Logits, 0, 0, 1}); }, "beam width 0");
  expect_refused([&] { beam_search(six, 2, 3, {Scores::Logits, 0, 4097, 1}); }, "beam width 4097");
  expect_refused([&] { beam_search(six, 2, 3, {Scores::Logits, 0, 4, 0}); }, "top_n 0");
  expect_refused([&] { beam_search(six, 2, 3, {Scores::Logits, 0, 4, 5}); }, "top_n 5");

  // The prefix limit: 4097 * 4095 * 1 + 1 is exactly 2^24 and runs; one more step does not.
  std::vector<float> two_classes(2 * 4098, 0.0f);
  for (size_t i = 1; i < two_classes.size(); i += 2)
    two_classes[i] = -kInf;  // class 1 impossible: a quick run
  const std::span<const float> all(two_classes);
  const auto at_limit = beam_search(all.first(2 * 4097), 4097, 2, {Scores::LogProbabilities, 0, 4095, 1});
  ASSERT_EQ(at_limit.size(), 1u);
  EXPECT_TRUE(at_limit[0].labels.empty());
  expect_refused([&] { beam_search(all, 4098, 2, {Scores::LogProbabilities, 0, 4095, 1}); }, "exceeds 2^24");
  expect_refused(
      [&] {
        beam_search(all.first(2 * 4097), 4097, 2, {Scores::LogProbabilities, 0, 4096, 1});
      },
      "exceeds 2^24");

  // NaN and +inf scores, and a row of logits that are all -inf.
  std::vector<float> bad = six;
  bad[4] = kNaN;
  expect_refused([&] { beam_search(bad, 2, 3, {}); }, "score [1, 1] is NaN");
  bad[4] = kInf;
  expect_refused(
      [&] {
        beam_search(bad, 2, 3, {Scores::LogProbabilities, 0, 4, 1});
      },
      "score [1, 1] is +inf");
  bad = six;
  bad[3] = bad[4] = bad[5] = -kInf;
  expect_refused([&] { beam_search(bad, 2, 3, {}); }, "step 1 are all -inf");
  EXPECT_NO_THROW(beam_search(bad, 2, 3, {Scores::LogProbabilities, 0, 4, 1}));
  // Padding past an item's length is never looked at.
  std::vector<float> padded = six;
  padded[5] = kNaN;
  EXPECT_NO_THROW(beam_search_batch(padded, 1, 2, 3, {}, std::vector<int64_t>{1}));
  // Greedy decoding accepts NaN (it is never chosen over a number).
  EXPECT_NO_THROW(greedy_decode(bad, 2, 3));
}

}  // namespace
}  // namespace onemodel::ctc
