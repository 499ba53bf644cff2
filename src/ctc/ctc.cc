// CTC decoding (include/onemodel/ctc.h, docs/ctc.md): greedy best path with run confidences, and prefix beam
// search (Graves et al. 2006; Hannun et al. 2014, Algorithm 1) over a prefix tree.
#include "onemodel/ctc.h"

#include <algorithm>
#include <climits>
#include <string>
#include <unordered_map>

#include "ctc/deterministic_math.h"
#include "kernels/kernel_table.h"
#include "onemodel/error.h"

namespace onemodel::ctc {
namespace {

using detail::kNegInf;
using detail::log_add;

[[noreturn]] void fail(const std::string& message) {
  throw SessionError(SessionError::Kind::InvalidInput, "ctc: " + message);
}

std::string dims_text(int64_t batch, int64_t steps, int64_t classes, bool batched) {
  std::string text = "[";
  if (batched) text += std::to_string(batch) + ", ";
  return text + std::to_string(steps) + ", " + std::to_string(classes) + "]";
}

// The scores must be exactly [batch,] steps, classes with every extent in int32 range, and the blank a class.
void check_shape(size_t count, int64_t batch, int64_t steps, int64_t classes, int32_t blank, bool batched) {
  const std::string dims = dims_text(batch, steps, classes, batched);
  if (batch < 0 || steps < 0 || classes < 1 || batch > INT32_MAX || steps > INT32_MAX || classes > INT32_MAX)
    fail("scores " + dims + ": extents must be in [0, 2^31) and classes at least 1");
  const uint64_t row_block = static_cast<uint64_t>(steps) * static_cast<uint64_t>(classes);  // < 2^62
  const bool fits = row_block == 0 || static_cast<uint64_t>(batch) <= count / row_block;
  if (!fits || static_cast<uint64_t>(batch) * row_block != count)
    fail("scores hold " + std::to_string(count) + " values but " + dims + " needs a different number");
  if (blank < 0 || blank >= classes)
    fail("blank " + std::to_string(blank) + " is not a class of " + std::to_string(classes));
}

// `lengths`, when given, holds one count of real steps per batch item, each in [0, steps].
void check_lengths(std::span<const int64_t> lengths, int64_t batch, int64_t steps) {
  if (lengths.empty()) return;
  if (lengths.size() != static_cast<size_t>(batch))
    fail("lengths has " + std::to_string(lengths.size()) + " entries for a batch of " +
         std::to_string(batch));
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] < 0 || lengths[b] > steps)
      fail("lengths[" + std::to_string(b) + "] = " + std::to_string(lengths[b]) + " is outside [0, " +
           std::to_string(steps) + "]");
  }
}

int64_t item_steps(std::span<const int64_t> lengths, int64_t steps, int64_t item) {
  return lengths.empty() ? steps : lengths[static_cast<size_t>(item)];
}

// ---- greedy ----

// Exact kernels give the same bits on every path, so the fastest one serves.
const KernelTable& exact_kernels() {
  static const KernelTable* const table = kernel_table(best_kernel_path());
  return *table;
}

// One row of scratch per thread, kept between calls so steady-state decoding allocates nothing.
float* scratch_row(size_t n) {
  thread_local std::vector<float> row;
  if (row.size() < n) row.resize(n);
  return row.data();
}

// The ordering of both the arg-max and the run maximum: a number beats NaN, otherwise plain >.
bool beats(float candidate, float current) {
  return candidate > current || (current != current && candidate == candidate);
}

int64_t best_class(const float* row, int64_t classes) {
  int64_t best = 0;
  for (int64_t j = 1; j < classes; ++j) {
    if (beats(row[j], row[best])) best = j;
  }
  return best;
}

// p(t) of the step's best class: its exact softmax value, or the exact exponential of its log-probability
// capped at 1.
float step_probability(const float* row, int64_t classes, int64_t best, Scores scores) {
  const KernelTable& kernels = exact_kernels();
  if (scores == Scores::Logits) {
    float* y = scratch_row(static_cast<size_t>(classes));
    kernels.softmax_rows(true, row, y, 1, static_cast<size_t>(classes));
    return y[best];
  }
  float p;
  kernels.unary(UnaryFn::Exp, true, row + best, &p, 1);
  return p > 1.0f ? 1.0f : p;
}

// The decoder itself, on already checked arguments. `runs` has room for `steps`; `step_probabilities` too, or
// is null.
GreedySummary greedy_rows(const float* scores, int64_t steps, int64_t classes, const GreedyOptions& options,
                          Run* runs, float* step_probabilities) {
  size_t count = 0;
  int64_t previous = -1;
  for (int64_t t = 0; t < steps; ++t) {
    const float* row = scores + t * classes;
    const int64_t best = best_class(row, classes);
    const float p = step_probability(row, classes, best, options.scores);
    if (step_probabilities != nullptr) step_probabilities[t] = p;
    if (best != options.blank) {
      if (best == previous) {
        Run& run = runs[count - 1];
        run.last_step = static_cast<int32_t>(t);
        if (beats(p, run.confidence)) run.confidence = p;
      } else {
        runs[count++] = Run{static_cast<int32_t>(best), static_cast<int32_t>(t), static_cast<int32_t>(t), p};
      }
    }
    previous = best;
  }
  float sum = 0.0f;
  for (size_t i = 0; i < count; ++i) sum = sum + runs[i].confidence;
  return {count, count == 0 ? 0.0f : sum / static_cast<float>(count)};
}

GreedyResult greedy_result(const float* scores, int64_t steps, int64_t classes,
                           const GreedyOptions& options) {
  GreedyResult result;
  result.runs.resize(static_cast<size_t>(steps));
  result.step_probabilities.resize(static_cast<size_t>(steps));
  const GreedySummary summary =
      greedy_rows(scores, steps, classes, options, result.runs.data(), result.step_probabilities.data());
  result.runs.resize(summary.run_count);
  result.confidence = summary.confidence;
  return result;
}

// ---- prefix beam search ----

constexpr int64_t kMaxBeamWidth = 4096;
constexpr int64_t kMaxPrefixes = int64_t{1} << 24;

void check_beam_options(const BeamOptions& options, int64_t steps, int64_t classes) {
  if (options.beam_width < 1 || options.beam_width > kMaxBeamWidth)
    fail("beam width " + std::to_string(options.beam_width) + " is outside [1, 4096]");
  if (options.top_n < 1 || options.top_n > options.beam_width)
    fail("top_n " + std::to_string(options.top_n) + " is outside [1, beam width " +
         std::to_string(options.beam_width) + "]");
  // steps * beam_width * (classes - 1) + 1 <= 2^24, without overflowing.
  const int64_t per_step = options.beam_width * (classes - 1);
  if (per_step > 0 && steps > (kMaxPrefixes - 1) / per_step)
    fail("steps * beam width * (classes - 1) + 1 exceeds 2^24 (" + std::to_string(steps) +
         " steps, beam width " + std::to_string(options.beam_width) + ", " + std::to_string(classes) +
         " classes)");
}

// NaN and +inf have no probability meaning, and logits that are all -inf have no softmax.
void check_beam_scores(const float* scores, int64_t steps, int64_t classes, Scores kind) {
  for (int64_t t = 0; t < steps; ++t) {
    const float* row = scores + t * classes;
    bool any_finite = false;
    for (int64_t j = 0; j < classes; ++j) {
      const float v = row[j];
      if (v != v || v == __builtin_inff())
        fail("score [" + std::to_string(t) + ", " + std::to_string(j) + "] is " + (v != v ? "NaN" : "+inf") +
             "; the beam search needs finite scores or -inf");
      any_finite = any_finite || v != -__builtin_inff();
    }
    if (kind == Scores::Logits && !any_finite)
      fail("the logits of step " + std::to_string(t) + " are all -inf");
  }
}

// lp(j) of one step: log-probabilities as given, or logits minus their log-sum-exp, in double.
void log_probabilities(const float* row, int64_t classes, Scores kind, double* lp) {
  if (kind == Scores::LogProbabilities) {
    for (int64_t j = 0; j < classes; ++j) lp[j] = row[j];
    return;
  }
  float max = row[0];
  for (int64_t j = 1; j < classes; ++j) max = row[j] > max ? row[j] : max;
  const double m = max;
  double sum = 0.0;
  for (int64_t j = 0; j < classes; ++j) sum = sum + detail::exp(static_cast<double>(row[j]) - m);
  const double log_sum = detail::ln(sum);
  for (int64_t j = 0; j < classes; ++j) lp[j] = (static_cast<double>(row[j]) - m) - log_sum;
}

// Every prefix the search keeps, each text once: node 0 is the empty prefix, and a node's child for a label
// is looked up before it is created, so a prefix dropped from the beam and found again gets its old node
// back.
class PrefixTree {
 public:
  explicit PrefixTree(int64_t classes) : classes_(static_cast<uint64_t>(classes)) {
    nodes_.push_back({-1, -1});
  }

  int32_t child(int32_t parent, int32_t label) {
    const uint64_t key = static_cast<uint64_t>(parent) * classes_ + static_cast<uint64_t>(label);
    const auto [it, created] = children_.try_emplace(key, static_cast<int32_t>(nodes_.size()));
    if (created) nodes_.push_back({parent, label});
    return it->second;
  }
  int32_t parent(int32_t node) const { return nodes_[static_cast<size_t>(node)].parent; }
  int32_t label(int32_t node) const { return nodes_[static_cast<size_t>(node)].label; }
  size_t size() const { return nodes_.size(); }

  std::vector<int32_t> labels(int32_t node) const {
    std::vector<int32_t> out;
    for (; node > 0; node = parent(node)) out.push_back(label(node));
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  struct Node {
    int32_t parent, label;
  };
  uint64_t classes_;
  std::vector<Node> nodes_;
  std::unordered_map<uint64_t, int32_t> children_;
};

struct Prefix {
  int32_t node;
  double pb, pnb;  // log probability of the alignments ending in blank / in the last label
};

// A candidate of the next step: beam prefix `from` itself (label -1) or `from` extended by `label`. `order`
// is its place in the listing (candidates are listed at their first contribution); `score` = logadd(pb, pnb).
struct Candidate {
  int32_t order, from, label;
  double pb, pnb, score;
};

// The ranking: higher score first, equal scores in listing order. A strict total order, as orders are unique.
bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.score != b.score ? a.score > b.score : a.order < b.order;
}

// The best `width` candidates offered, in a heap whose front is the worst of them, so a candidate that cannot
// make the cut costs one comparison and no memory.
class BestCandidates {
 public:
  void reset(size_t width) {
    width_ = width;
    heap_.clear();
  }
  void offer(const Candidate& c) {
    if (heap_.size() < width_) {
      heap_.push_back(c);
      std::push_heap(heap_.begin(), heap_.end(), ranks_before);
    } else if (ranks_before(c, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), ranks_before);
      heap_.back() = c;
      std::push_heap(heap_.begin(), heap_.end(), ranks_before);
    }
  }
  // The kept candidates, best first (the heap is consumed).
  const std::vector<Candidate>& ranked() {
    std::sort_heap(heap_.begin(), heap_.end(), ranks_before);
    return heap_;
  }

 private:
  size_t width_ = 0;
  std::vector<Candidate> heap_;
};

// A beam prefix whose parent is also in the beam: extending the parent by `label` reaches it.
struct Link {
  int32_t parent, label, child;
};

class BeamSearch {
 public:
  BeamSearch(int64_t classes, const BeamOptions& options)
      : classes_(classes), options_(options), tree_(classes), lp_(static_cast<size_t>(classes)) {
    beam_.push_back({0, 0.0, kNegInf});
  }

  void step(const float* row) {
    log_probabilities(row, classes_, options_.scores, lp_.data());
    find_links();
    list_candidates();
    keep_best();
  }

  std::vector<Hypothesis> best(int32_t top_n) const {
    std::vector<Hypothesis> out;
    for (size_t i = 0; i < beam_.size() && out.size() < static_cast<size_t>(top_n); ++i) {
      Hypothesis h;
      h.labels = tree_.labels(beam_[i].node);
      h.log_probability = log_add(beam_[i].pb, beam_[i].pnb);
      h.confidence =
          h.labels.empty() ? 0.0 : detail::exp(h.log_probability / static_cast<double>(h.labels.size()));
      out.push_back(std::move(h));
    }
    return out;
  }

 private:
  // Which beam prefixes are one-label extensions of other beam prefixes, sorted in the order the candidate
  // loop visits (parent, label).
  void find_links() {
    beam_index_.resize(tree_.size(), -1);  // -1 everywhere between steps
    for (size_t i = 0; i < beam_.size(); ++i)
      beam_index_[static_cast<size_t>(beam_[i].node)] = static_cast<int32_t>(i);
    links_.clear();
    for (size_t i = 0; i < beam_.size(); ++i) {
      const int32_t node = beam_[i].node;
      if (node == 0) continue;
      const int32_t parent = beam_index_[static_cast<size_t>(tree_.parent(node))];
      if (parent >= 0) links_.push_back({parent, tree_.label(node), static_cast<int32_t>(i)});
    }
    for (const Prefix& p : beam_) beam_index_[static_cast<size_t>(p.node)] = -1;
    std::sort(links_.begin(), links_.end(), [](const Link& a, const Link& b) {
      return a.parent != b.parent ? a.parent < b.parent : a.label < b.label;
    });
  }

  // Adds a contribution to beam prefix `index` itself (ending in blank or not), listing it if it is new.
  void add_to_beam_prefix(int32_t index, bool ends_in_blank, double value) {
    if (value == kNegInf) return;
    Candidate& c = own_[static_cast<size_t>(index)];
    if (c.order < 0) c.order = listed_++;
    double& target = ends_in_blank ? c.pb : c.pnb;
    target = log_add(target, value);
  }

  // Walks the beam best first. Contributions to beam prefixes accumulate in own_; an extension that is not a
  // beam prefix has exactly one contribution, so it is final when listed and goes straight to the selection.
  void list_candidates() {
    listed_ = 0;
    best_.reset(static_cast<size_t>(options_.beam_width));
    own_.resize(beam_.size());
    for (size_t i = 0; i < beam_.size(); ++i)
      own_[i] = {-1, static_cast<int32_t>(i), -1, kNegInf, kNegInf, 0.0};
    size_t link = 0;
    const double lp_blank = lp_[static_cast<size_t>(options_.blank)];
    for (size_t i = 0; i < beam_.size(); ++i) {
      const Prefix& p = beam_[i];
      const auto index = static_cast<int32_t>(i);
      const double total = log_add(p.pb, p.pnb);
      const int32_t last = p.node == 0 ? -1 : tree_.label(p.node);
      add_to_beam_prefix(index, true, total + lp_blank);
      if (last >= 0) add_to_beam_prefix(index, false, p.pnb + lp_[static_cast<size_t>(last)]);
      for (int64_t j = 0; j < classes_; ++j) {
        if (j == options_.blank) continue;
        const auto label = static_cast<int32_t>(j);
        int32_t existing = -1;
        if (link < links_.size() && links_[link].parent == index && links_[link].label == label)
          existing = links_[link++].child;
        const double value = (label == last ? p.pb : total) + lp_[static_cast<size_t>(j)];
        if (value == kNegInf) continue;
        if (existing >= 0)
          add_to_beam_prefix(existing, false, value);
        else
          best_.offer({listed_++, index, label, kNegInf, value, value});  // logadd(-inf, value) = value
      }
    }
  }

  // Keeps the best beam_width of all listed candidates, best first.
  void keep_best() {
    for (Candidate& c : own_) {
      if (c.order < 0) continue;  // received nothing
      c.score = log_add(c.pb, c.pnb);
      best_.offer(c);
    }
    next_.clear();
    for (const Candidate& c : best_.ranked()) {
      const int32_t from = beam_[static_cast<size_t>(c.from)].node;
      next_.push_back({c.label < 0 ? from : tree_.child(from, c.label), c.pb, c.pnb});
    }
    beam_.swap(next_);
  }

  int64_t classes_;
  BeamOptions options_;
  PrefixTree tree_;
  std::vector<double> lp_;
  std::vector<Prefix> beam_, next_;
  std::vector<int32_t> beam_index_;
  std::vector<Link> links_;
  std::vector<Candidate> own_;  // one per beam prefix
  int32_t listed_ = 0;
  BestCandidates best_;
};

std::vector<Hypothesis> beam_rows(const float* scores, int64_t steps, int64_t classes,
                                  const BeamOptions& options) {
  BeamSearch search(classes, options);
  for (int64_t t = 0; t < steps; ++t) search.step(scores + t * classes);
  return search.best(options.top_n);
}

}  // namespace

std::vector<int32_t> GreedyResult::labels() const {
  std::vector<int32_t> out;
  out.reserve(runs.size());
  for (const Run& run : runs) out.push_back(run.label);
  return out;
}

GreedySummary greedy_decode(std::span<const float> scores, int64_t steps, int64_t classes,
                            const GreedyOptions& options, std::span<Run> runs,
                            std::span<float> step_probabilities) {
  check_shape(scores.size(), 1, steps, classes, options.blank, false);
  if (runs.size() < static_cast<size_t>(steps))
    fail("room for " + std::to_string(runs.size()) + " runs, but " + std::to_string(steps) + " steps need " +
         std::to_string(steps));
  if (!step_probabilities.empty() && step_probabilities.size() < static_cast<size_t>(steps))
    fail("room for " + std::to_string(step_probabilities.size()) + " step probabilities, but there are " +
         std::to_string(steps) + " steps");
  return greedy_rows(scores.data(), steps, classes, options, runs.data(),
                     step_probabilities.empty() ? nullptr : step_probabilities.data());
}

GreedyResult greedy_decode(std::span<const float> scores, int64_t steps, int64_t classes,
                           const GreedyOptions& options) {
  check_shape(scores.size(), 1, steps, classes, options.blank, false);
  return greedy_result(scores.data(), steps, classes, options);
}

std::vector<GreedyResult> greedy_decode_batch(std::span<const float> scores, int64_t batch, int64_t steps,
                                              int64_t classes, const GreedyOptions& options,
                                              std::span<const int64_t> lengths) {
  check_shape(scores.size(), batch, steps, classes, options.blank, true);
  check_lengths(lengths, batch, steps);
  std::vector<GreedyResult> out;
  out.reserve(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b)
    out.push_back(
        greedy_result(scores.data() + b * steps * classes, item_steps(lengths, steps, b), classes, options));
  return out;
}

std::vector<Hypothesis> beam_search(std::span<const float> scores, int64_t steps, int64_t classes,
                                    const BeamOptions& options) {
  check_shape(scores.size(), 1, steps, classes, options.blank, false);
  check_beam_options(options, steps, classes);
  check_beam_scores(scores.data(), steps, classes, options.scores);
  return beam_rows(scores.data(), steps, classes, options);
}

std::vector<std::vector<Hypothesis>> beam_search_batch(std::span<const float> scores, int64_t batch,
                                                       int64_t steps, int64_t classes,
                                                       const BeamOptions& options,
                                                       std::span<const int64_t> lengths) {
  check_shape(scores.size(), batch, steps, classes, options.blank, true);
  check_lengths(lengths, batch, steps);
  check_beam_options(options, 0, classes);
  // Every item is checked before any is decoded.
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = item_steps(lengths, steps, b);
    check_beam_options(options, length, classes);
    check_beam_scores(scores.data() + b * steps * classes, length, classes, options.scores);
  }
  std::vector<std::vector<Hypothesis>> out;
  out.reserve(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b)
    out.push_back(
        beam_rows(scores.data() + b * steps * classes, item_steps(lengths, steps, b), classes, options));
  return out;
}

}  // namespace onemodel::ctc
