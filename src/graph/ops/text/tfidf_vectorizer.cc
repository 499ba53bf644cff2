// TfIdfVectorizer over integer tokens: counts, per row of X ([C] or [N, C]), how often each n-gram of the
// pool occurs, and writes count (TF), weight when the count is non-zero (IDF) or count * weight (TFIDF) at
// the n-gram's ngram_indexes position. An n-gram of length n >= 2 takes every (k + 1)-th token for each skip
// k in 0 .. max_skip_count; unigrams are counted once per position. String tokens (pool_strings) are not
// served.
//
// Exact: counts are integers, each n-gram contributes one rounded product, and contributions to an output
// position are added in pool order from +0.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/text/factories.h"

namespace onemodel::ops {
namespace {

enum class Weighting { Tf, Idf, TfIdf };

// The pool's n-grams of one length, sorted by their tokens for binary search.
struct GramTable {
  int64_t length = 0;
  std::vector<int64_t> tokens;   // grams side by side, sorted
  std::vector<int64_t> ordinal;  // each gram's position in the pool's order of n-grams
};

struct TfIdfAttributes {
  int64_t min_length = 1, max_length = 1, max_skip = 0, width = 0, grams = 0;
  Weighting weighting = Weighting::Tf;
  std::vector<GramTable> tables;   // by length (index length - 1)
  std::vector<int64_t> output_of;  // n-gram ordinal -> output position
  std::vector<float> weights;      // per n-gram ordinal; 1 when absent
};

class TfIdfVectorizer final : public OpKernel {
 public:
  explicit TfIdfVectorizer(TfIdfAttributes a) : a_(std::move(a)) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    if (t != DType::I32 && t != DType::I64) ctx.fail("X must be int32 or int64 tokens");
    const Shape& x = ctx.input_shape(0);
    if (x.rank == 1) {
      ctx.set_output(0, DType::F32, Shape{a_.width});
    } else if (x.rank == 2) {
      ctx.set_output(0, DType::F32, Shape{x[0], a_.width});
    } else {
      ctx.fail("X " + x.str() + " must be [C] or [N, C]");
    }
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int64_t rows = x.shape.rank == 1 ? 1 : x.shape[0];
    const int64_t columns = x.shape[x.shape.rank - 1];
    int64_t* counts =
        run.scratch->allocate_array<int64_t>(static_cast<size_t>(std::max<int64_t>(a_.grams, 1)));
    int64_t* row = run.scratch->allocate_array<int64_t>(static_cast<size_t>(std::max<int64_t>(columns, 1)));
    int64_t* gram = run.scratch->allocate_array<int64_t>(static_cast<size_t>(a_.max_length));
    float* out = run.outputs[0].as<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < columns; ++c) {
        row[c] = x.dtype == DType::I64 ? x.as<const int64_t>()[r * columns + c]
                                       : x.as<const int32_t>()[r * columns + c];
      }
      std::fill(counts, counts + a_.grams, 0);
      count_row(row, columns, gram, counts);
      float* y = out + r * a_.width;
      std::fill(y, y + a_.width, 0.0f);
      for (int64_t g = 0; g < a_.grams; ++g) {
        if (counts[g] == 0) continue;
        const float w = a_.weights[static_cast<size_t>(g)];
        float v = static_cast<float>(counts[g]);
        if (a_.weighting == Weighting::Idf) v = w;
        if (a_.weighting == Weighting::TfIdf) v = v * w;
        float& slot = y[a_.output_of[static_cast<size_t>(g)]];
        slot = slot + v;
      }
    }
  }

 private:
  void count_row(const int64_t* row, int64_t columns, int64_t* gram, int64_t* counts) const {
    for (int64_t s = 0; s < columns; ++s) {
      for (int64_t n = std::max<int64_t>(a_.min_length, 1); n <= a_.max_length; ++n) {
        const int64_t skips = n == 1 ? 0 : a_.max_skip;
        for (int64_t k = 0; k <= skips; ++k) {
          // The last token sits at s + (n - 1) * (k + 1); compared without forming a product that may wrap.
          if ((columns - 1 - s) / (k + 1) < n - 1) break;
          for (int64_t j = 0; j < n; ++j) gram[j] = row[s + j * (k + 1)];
          count(a_.tables[static_cast<size_t>(n - 1)], gram, counts);
        }
      }
    }
  }

  static void count(const GramTable& table, const int64_t* gram, int64_t* counts) {
    const int64_t n = table.length, entries = static_cast<int64_t>(table.ordinal.size());
    int64_t lo = 0, hi = entries;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (std::lexicographical_compare(table.tokens.data() + mid * n, table.tokens.data() + (mid + 1) * n,
                                       gram, gram + n)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo < entries && std::equal(gram, gram + n, table.tokens.data() + lo * n))
      ++counts[table.ordinal[static_cast<size_t>(lo)]];
  }

  TfIdfAttributes a_;
};

}  // namespace

std::unique_ptr<OpKernel> make_tfidf_vectorizer(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  if (node.find("pool_strings") != nullptr && node.find("pool_int64s") == nullptr)
    node.unsupported("string tokens (pool_strings) are not served");
  TfIdfAttributes a;
  a.min_length = node.get_int("min_gram_length", 0);
  a.max_length = node.get_int("max_gram_length", 0);
  a.max_skip = node.get_int("max_skip_count", 0);
  if (a.min_length < 1 || a.max_length < a.min_length || a.max_length > 64)
    node.fail("gram lengths must satisfy 1 <= min_gram_length <= max_gram_length <= 64");
  if (a.max_skip < 0 || a.max_skip > kMaxElements) node.fail("max_skip_count must not be negative");
  const std::string mode = node.get_string("mode", "");
  if (mode == "TF") {
    a.weighting = Weighting::Tf;
  } else if (mode == "IDF") {
    a.weighting = Weighting::Idf;
  } else if (mode == "TFIDF") {
    a.weighting = Weighting::TfIdf;
  } else {
    node.fail("mode '" + mode + "' is not TF, IDF or TFIDF");
  }
  const std::vector<int64_t> pool = node.get_ints("pool_int64s");
  const std::vector<int64_t> starts = node.get_ints("ngram_counts");
  const std::vector<int64_t> indexes = node.get_ints("ngram_indexes");
  // Split the pool into n-grams of lengths 1, 2, ...: starts[i] opens the (i + 1)-grams. Grams longer than
  // max_gram_length get a table that no lookup reaches.
  a.tables.resize(std::max(static_cast<size_t>(a.max_length), starts.size()));
  std::vector<std::vector<int64_t>> grams;  // in pool order
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i) + 1;
    const int64_t begin = starts[i];
    const int64_t end = i + 1 < starts.size() ? starts[i + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) || (end - begin) % n != 0)
      node.fail("ngram_counts does not split pool_int64s into whole n-grams");
    for (int64_t p = begin; p < end; p += n) grams.emplace_back(pool.begin() + p, pool.begin() + p + n);
  }
  a.grams = static_cast<int64_t>(grams.size());
  if (static_cast<int64_t>(indexes.size()) != a.grams)
    node.fail("ngram_indexes needs one position per n-gram of the pool (" + std::to_string(a.grams) + ")");
  for (int64_t index : indexes) {
    if (index < 0 || index >= kMaxElements) node.fail("ngram_indexes holds a negative or huge position");
    a.width = std::max(a.width, index + 1);
  }
  a.output_of = indexes;
  a.weights = node.get_floats("weights", std::vector<float>(static_cast<size_t>(a.grams), 1.0f));
  if (static_cast<int64_t>(a.weights.size()) != a.grams) node.fail("weights needs one value per n-gram");
  std::vector<int64_t> order(grams.size());
  for (size_t g = 0; g < order.size(); ++g) order[g] = static_cast<int64_t>(g);
  std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
    return grams[static_cast<size_t>(p)] < grams[static_cast<size_t>(q)];
  });
  for (size_t i = 0; i < a.tables.size(); ++i) a.tables[i].length = static_cast<int64_t>(i) + 1;
  for (int64_t g : order) {
    GramTable& t = a.tables[grams[static_cast<size_t>(g)].size() - 1];
    const auto& tokens = grams[static_cast<size_t>(g)];
    // A gram listed twice keeps its first position, so a lookup finds one ordinal.
    const int64_t n = t.length, have = static_cast<int64_t>(t.ordinal.size());
    if (have > 0 && std::equal(tokens.begin(), tokens.end(), t.tokens.end() - n)) continue;
    t.tokens.insert(t.tokens.end(), tokens.begin(), tokens.end());
    t.ordinal.push_back(g);
  }
  return std::make_unique<TfIdfVectorizer>(std::move(a));
}

}  // namespace onemodel::ops
