// CTC decoding for the outputs of recognisers and speech models (docs/ctc.md): greedy best-path decoding with
// per-run confidences, and prefix beam search without a language model. Not an ONNX operator: these are plain
// functions over row-major float32 scores [steps, classes] (a batch is [batch, steps, classes]).
//
// Every function is pure and gives the same bits on every machine and kernel path: greedy probabilities come
// from the exact float32 softmax and exponential, and the beam search does its double-precision arithmetic
// with its own exp and ln built from + - * / only. The npm package's `ctc` namespace (web/ctc.mjs) returns
// the same bits. Bad input throws SessionError with kind InvalidInput.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace onemodel::ctc {

// What the scores are: raw logits, or natural-log probabilities already normalised over each step's classes.
enum class Scores { Logits, LogProbabilities };

struct GreedyOptions {
  Scores scores = Scores::Logits;
  int32_t blank = 0;  // the blank class, in [0, classes)
};

// One emitted label: the consecutive steps [first_step, last_step] whose best class it is.
struct Run {
  int32_t label = 0;
  int32_t first_step = 0, last_step = 0;
  // The largest probability of the label over the run's steps.
  float confidence = 0.0f;
};

// What the allocation-free greedy entry point reports besides the runs it wrote.
struct GreedySummary {
  size_t run_count = 0;
  // Mean of the run confidences (float32 sum in run order, then one division); 0 when nothing is emitted.
  float confidence = 0.0f;
};

struct GreedyResult {
  std::vector<Run> runs;
  float confidence = 0.0f;
  // Probability of each step's best class, blank included.
  std::vector<float> step_probabilities;

  std::vector<int32_t> labels() const;
};

// Greedy decoding of scores [steps, classes] into caller memory: `runs` needs room for `steps` runs, and
// `step_probabilities` is either empty (not wanted) or has room for `steps` values. Apart from a scratch row
// per thread that is kept between calls, it allocates nothing.
GreedySummary greedy_decode(std::span<const float> scores, int64_t steps, int64_t classes,
                            const GreedyOptions& options, std::span<Run> runs,
                            std::span<float> step_probabilities = {});

GreedyResult greedy_decode(std::span<const float> scores, int64_t steps, int64_t classes,
                           const GreedyOptions& options = {});

// Scores [batch, steps, classes]. `lengths`, when given (one per item, each in [0, steps]), says how many
// leading steps of each item are real; the rest is padding and ignored.
std::vector<GreedyResult> greedy_decode_batch(std::span<const float> scores, int64_t batch, int64_t steps,
                                              int64_t classes, const GreedyOptions& options = {},
                                              std::span<const int64_t> lengths = {});

struct BeamOptions {
  Scores scores = Scores::Logits;
  int32_t blank = 0;
  // Prefixes kept after each step, in [1, 4096]; steps * beam_width * (classes - 1) + 1 must not exceed 2^24.
  int32_t beam_width = 16;
  // Hypotheses returned, in [1, beam_width].
  int32_t top_n = 1;
};

struct Hypothesis {
  std::vector<int32_t> labels;
  // Natural log of the summed probability of every alignment that collapses to `labels`.
  double log_probability = 0.0;
  // exp(log_probability / labels.size()), the per-label geometric mean; 0 for the empty text.
  double confidence = 0.0;
};

// Prefix beam search over scores [steps, classes]: up to top_n hypotheses, best first. NaN and +inf scores
// are refused, and so is a row of logits that are all -inf.
std::vector<Hypothesis> beam_search(std::span<const float> scores, int64_t steps, int64_t classes,
                                    const BeamOptions& options = {});

// One beam_search per item of scores [batch, steps, classes]; `lengths` as for greedy_decode_batch.
std::vector<std::vector<Hypothesis>> beam_search_batch(std::span<const float> scores, int64_t batch,
                                                       int64_t steps, int64_t classes,
                                                       const BeamOptions& options = {},
                                                       std::span<const int64_t> lengths = {});

}  // namespace onemodel::ctc
