// Einsum: a sum of products over labelled axes, written as an equation such as "bij,bjk->bik". Labels are
// letters; "..." stands for the same run of leading-broadcast axes in every term. Without "->" the output is
// the ellipsis axes followed by the letters used exactly once, in ASCII order (numpy's rule). A label
// repeated inside one term reads that term's diagonal.
//
// Exact, and fast mode runs the same loop. For each output element:
//   acc = 0; for every combination of the summed labels in odometer order (labels in ASCII order, then the
//   ellipsis axes; the last one varies fastest): prod = x0[..]; prod = prod * x1[..]; ...; acc = acc + prod.
// Every operation is rounded on its own; a NaN result is canonical. Integer types wrap on overflow.
#include <algorithm>
#include <array>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/linalg/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

constexpr int kLetters = 52;                  // A-Z then a-z, the ASCII order
constexpr int kLabels = kLetters + kMaxRank;  // then one label per ellipsis axis
constexpr int kEllipsis = -1;                 // marks "..." in a parsed term

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -2;
}

// Appends a term's labels, kEllipsis standing for "..."; false when the term is malformed.
bool parse_term(const std::string& text, std::vector<int>& labels) {
  bool ellipsis = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "...") == 0) {
      if (ellipsis) return false;
      ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int label = label_of(text[i]);
    if (label < 0) return false;
    labels.push_back(label);
  }
  return true;
}

// For given input shapes: the extent of every label (-1 when unused) and the output and summed labels in
// their order.
struct Layout {
  std::array<int64_t, kLabels> extent;
  std::array<int, kLabels> out, summed;
  int out_rank = 0, summed_rank = 0;
};

class Einsum final : public OpKernel {
 public:
  Einsum(std::vector<std::vector<int>> inputs, bool explicit_output, std::vector<int> output)
      : inputs_(std::move(inputs)), explicit_output_(explicit_output), output_(std::move(output)) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    if (t != DType::F32 && t != DType::F64 && t != DType::I32 && t != DType::I64)
      ctx.node().unsupported("only float32, float64, int32 and int64 inputs are served");
    std::vector<Shape> shapes;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (ctx.input_dtype(i) != t) ctx.fail("every input must have input 0's element type");
      shapes.push_back(ctx.input_shape(i));
    }
    std::vector<int64_t> strides(inputs_.size() * kLabels);
    Layout l;
    if (const std::string problem = layout(shapes.data(), l, strides.data()); !problem.empty())
      ctx.fail(problem);
    Shape out;
    out.rank = l.out_rank;
    for (int a = 0; a < l.out_rank; ++a)
      out[a] = l.extent[static_cast<size_t>(l.out[static_cast<size_t>(a)])];
    ctx.set_output(0, t, out);
  }

  void run(const OpRun& run) const override {
    switch (run.inputs[0].dtype) {
      case DType::F32:
        return contract<float>(run);
      case DType::F64:
        return contract<double>(run);
      case DType::I32:
        return contract<int32_t>(run);
      default:
        return contract<int64_t>(run);
    }
  }

 private:
  // Fills `l` and each input's element stride per label, strides[i * kLabels + label] (0 where input i lacks
  // the label or broadcasts it). Returns the problem when the shapes do not fit the equation, else empty.
  std::string layout(const Shape* shapes, Layout& l, int64_t* strides) const {
    const size_t n = inputs_.size();
    l.extent.fill(-1);
    std::array<int, kLabels> uses{};
    int ellipsis_rank = 0;
    for (size_t i = 0; i < n; ++i) {
      const int letters = static_cast<int>(inputs_[i].size()) - (has_ellipsis(inputs_[i]) ? 1 : 0);
      const int rank = shapes[i].rank;
      if (rank < letters || (!has_ellipsis(inputs_[i]) && rank != letters))
        return "input " + std::to_string(i) + " " + shapes[i].str() +
               " does not fit its term of the equation";
      if (has_ellipsis(inputs_[i])) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
    }
    for (size_t i = 0; i < n; ++i) {
      int64_t* s = strides + i * kLabels;
      std::fill(s, s + kLabels, 0);
      const int letters = static_cast<int>(inputs_[i].size()) - (has_ellipsis(inputs_[i]) ? 1 : 0);
      const int spread = shapes[i].rank - letters;  // axes the ellipsis covers in this input
      int axis = 0;
      int64_t stride_of[kMaxRank];
      int64_t stride = 1;
      for (int a = shapes[i].rank - 1; a >= 0; --a) {
        stride_of[a] = stride;
        stride *= shapes[i][a];
      }
      std::array<bool, kLabels> seen{};
      for (int label : inputs_[i]) {
        const int count = label == kEllipsis ? spread : 1;
        for (int k = 0; k < count; ++k, ++axis) {
          // Ellipsis axes are right-aligned across inputs, like broadcasting.
          const int id = label == kEllipsis ? kLetters + (ellipsis_rank - spread) + k : label;
          const int64_t e = shapes[i][axis];
          int64_t& known = l.extent[static_cast<size_t>(id)];
          if (label == kEllipsis) {
            if (known >= 0 && known != 1 && e != 1 && e != known)
              return "the ellipsis axes of the inputs do not broadcast";
            if (e != 1) s[id] += stride_of[axis];
            if (known < 0 || known == 1) known = e;
          } else {
            if (known >= 0 && known != e)
              return std::string("label '") + label_char(id) + "' has extents " + std::to_string(known) +
                     " and " + std::to_string(e);
            known = e;
            s[id] += stride_of[axis];
          }
          if (!seen[static_cast<size_t>(id)]) ++uses[static_cast<size_t>(id)];
          seen[static_cast<size_t>(id)] = true;
        }
      }
    }
    std::array<bool, kLabels> in_output{};
    l.out_rank = 0;
    auto add_out = [&](int id) {
      l.out[static_cast<size_t>(l.out_rank++)] = id;
      in_output[static_cast<size_t>(id)] = true;
    };
    if (explicit_output_) {
      for (int label : output_) {
        if (label == kEllipsis) {
          for (int k = 0; k < ellipsis_rank; ++k) add_out(kLetters + k);
          continue;
        }
        if (l.extent[static_cast<size_t>(label)] < 0)
          return std::string("output label '") + label_char(label) + "' appears in no input";
        if (in_output[static_cast<size_t>(label)])
          return std::string("output label '") + label_char(label) + "' is repeated";
        add_out(label);
      }
    } else {
      for (int k = 0; k < ellipsis_rank; ++k) add_out(kLetters + k);
      for (int id = 0; id < kLetters; ++id) {
        if (uses[static_cast<size_t>(id)] == 1 && !repeated_in_a_term(id)) add_out(id);
      }
    }
    if (l.out_rank > kMaxRank) return "the output would have more than " + std::to_string(kMaxRank) + " axes";
    l.summed_rank = 0;
    double work = 1.0;  // output elements times terms each, in double so a hostile product cannot wrap
    for (int id = 0; id < kLetters + ellipsis_rank; ++id) {
      if (l.extent[static_cast<size_t>(id)] < 0) continue;
      work *= static_cast<double>(l.extent[static_cast<size_t>(id)]);
      if (!in_output[static_cast<size_t>(id)]) l.summed[static_cast<size_t>(l.summed_rank++)] = id;
    }
    if (work > 0x1p62) return "the contraction has more than 2^62 terms";
    return {};
  }

  // numpy counts a label written twice in one term as used twice, so it is summed in implicit mode.
  bool repeated_in_a_term(int id) const {
    for (const auto& term : inputs_) {
      int count = 0;
      for (int label : term) count += label == id ? 1 : 0;
      if (count > 1) return true;
    }
    return false;
  }

  static bool has_ellipsis(const std::vector<int>& term) {
    for (int label : term) {
      if (label == kEllipsis) return true;
    }
    return false;
  }

  static char label_char(int id) {
    return id < 26 ? static_cast<char>('A' + id) : static_cast<char>('a' + id - 26);
  }

  template <class T>
  static T multiply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
  template <class T>
  static T add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }

  template <class T>
  void contract(const OpRun& run) const {
    const size_t n = inputs_.size();
    Shape* in_shapes = run.scratch->allocate_array<Shape>(n);
    for (size_t i = 0; i < n; ++i) new (&in_shapes[i]) Shape(run.inputs[i].shape);
    int64_t* strides = run.scratch->allocate_array<int64_t>(n * kLabels);
    Layout l;
    layout(in_shapes, l, strides);
    const TensorRef& out = run.outputs[0];
    const int64_t outputs = out.count();
    int64_t sum_count = 1;
    for (int k = 0; k < l.summed_rank; ++k)
      sum_count *= l.extent[static_cast<size_t>(l.summed[static_cast<size_t>(k)])];
    // Each output is computed on its own, so the chunking and the threads cannot change a bit.
    const double terms = static_cast<double>(sum_count) * static_cast<double>(n);
    const int64_t per_chunk = std::max<int64_t>(1, static_cast<int64_t>(32768.0 / std::max(1.0, terms)));
    const int64_t chunks = (outputs + per_chunk - 1) / per_chunk;
    int64_t* slot_offsets =
        run.scratch->allocate_array<int64_t>(n * static_cast<size_t>(thread_slots(run.threads)));
    auto chunk = [&](int64_t c, int slot) {
      int64_t* at = slot_offsets + n * static_cast<size_t>(slot);  // each input's offset of the current term
      std::array<int64_t, kLabels> counter{};
      for (int64_t o = c * per_chunk; o < std::min(outputs, (c + 1) * per_chunk); ++o) {
        // The output element's coordinates give each input's first term.
        int64_t rest = o;
        for (size_t i = 0; i < n; ++i) at[i] = 0;
        for (int a = l.out_rank - 1; a >= 0; --a) {
          const int id = l.out[static_cast<size_t>(a)];
          const int64_t e = l.extent[static_cast<size_t>(id)];
          const int64_t coordinate = rest % e;
          rest /= e;
          for (size_t i = 0; i < n; ++i) at[i] += coordinate * strides[i * kLabels + static_cast<size_t>(id)];
        }
        T acc = T(0);
        for (int64_t s = 0; s < sum_count; ++s) {
          T prod = run.inputs[0].as<const T>()[at[0]];
          for (size_t i = 1; i < n; ++i) prod = multiply(prod, run.inputs[i].as<const T>()[at[i]]);
          acc = add(acc, prod);
          // Odometer step over the summed labels, the last fastest; a full turn returns to the first term.
          for (int k = l.summed_rank - 1; k >= 0; --k) {
            const int id = l.summed[static_cast<size_t>(k)];
            for (size_t i = 0; i < n; ++i) at[i] += strides[i * kLabels + static_cast<size_t>(id)];
            if (++counter[static_cast<size_t>(k)] < l.extent[static_cast<size_t>(id)]) break;
            for (size_t i = 0; i < n; ++i)
              at[i] -= counter[static_cast<size_t>(k)] * strides[i * kLabels + static_cast<size_t>(id)];
            counter[static_cast<size_t>(k)] = 0;
          }
        }
        out.as<T>()[o] = canonicalize(acc);
      }
    };
    parallel_for_slots(run.threads, chunks, chunk, static_cast<double>(outputs) * terms);
  }

  std::vector<std::vector<int>> inputs_;
  bool explicit_output_;
  std::vector<int> output_;
};

}  // namespace

std::unique_ptr<OpKernel> make_einsum(const NodeInfo& node) {
  if (node.num_inputs() < 1) node.fail("needs at least one input");
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    if (!node.has_input(i)) node.fail("input " + std::to_string(i) + " is missing");
  }
  std::string equation;
  for (char c : node.get_string("equation", "")) {
    if (c != ' ') equation += c;
  }
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> inputs;
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    inputs.emplace_back();
    if (!parse_term(lhs.substr(start, comma - start), inputs.back()))
      node.fail("equation '" + equation + "' has a term that is not letters with at most one '...'");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (inputs.size() != node.num_inputs())
    node.fail("equation '" + equation + "' has " + std::to_string(inputs.size()) + " terms for " +
              std::to_string(node.num_inputs()) + " inputs");
  std::vector<int> output;
  if (arrow != std::string::npos && !parse_term(equation.substr(arrow + 2), output))
    node.fail("equation '" + equation + "' has an output that is not letters with at most one '...'");
  return std::make_unique<Einsum>(std::move(inputs), arrow != std::string::npos, std::move(output));
}

}  // namespace onemodel::ops
