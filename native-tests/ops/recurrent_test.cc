// RNN, GRU and LSTM through Session against a double-precision reference of ops-recurrent.md's step
// equations written here; exact mode must give the same bits on every kernel path and thread count, and
// layout 1 must be layout 0 transposed. Plus the ONNX backend node cases in both modes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "ops/op_test_util.h"
#include "support/allocation_counter.h"

namespace onemodel::test {
namespace {

struct Config {
  std::string op = "LSTM";
  std::string direction = "forward";
  int64_t seq = 3, batch = 2, input = 4, hidden = 5;
  bool bias = true, lengths = false, initial_h = false, initial_c = false, peepholes = false;
  bool constant_weights = false;
  float clip = 0.0f;
  std::vector<std::string> activations;
  std::vector<float> alpha, beta;
  bool input_forget = false, linear_before_reset = false;
};

int64_t gates(const Config& c) {
  return c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
}
int64_t dirs(const Config& c) {
  return c.direction == "bidirectional" ? 2 : 1;
}

// Every input in layout 0, as the operator defines them.
struct Inputs {
  std::vector<float> x, w, r, b, h0, c0, p;
  std::vector<int32_t> lengths;
};

Inputs random_inputs(const Config& c, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 0.6f);
  auto fill = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = normal(rng);
    return v;
  };
  const auto gh = static_cast<size_t>(gates(c) * c.hidden), nd = static_cast<size_t>(dirs(c));
  const auto state = nd * static_cast<size_t>(c.batch * c.hidden);
  Inputs in;
  in.x = fill(static_cast<size_t>(c.seq * c.batch * c.input));
  in.w = fill(nd * gh * static_cast<size_t>(c.input));
  in.r = fill(nd * gh * static_cast<size_t>(c.hidden));
  if (c.bias) in.b = fill(nd * 2 * gh);
  if (c.initial_h) in.h0 = fill(state);
  if (c.initial_c) in.c0 = fill(state);
  if (c.peepholes) in.p = fill(nd * 3 * static_cast<size_t>(c.hidden));
  if (c.lengths) {
    std::uniform_int_distribution<int32_t> len(0, static_cast<int32_t>(c.seq));
    for (int64_t b = 0; b < c.batch; ++b) in.lengths.push_back(b == 0 && c.batch > 1 ? 0 : len(rng));
  }
  return in;
}

// --- Reference

struct RefActivation {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "sigmoid") return 1 / (1 + std::exp(-x));
    if (name == "tanh") return std::tanh(x);
    if (name == "relu") return x < 0 ? 0 : x;
    if (name == "affine") return alpha * x + beta;
    if (name == "leakyrelu") return x < 0 ? alpha * x : x;
    if (name == "thresholdedrelu") return x > alpha ? x : 0;
    if (name == "scaledtanh") return alpha * std::tanh(beta * x);
    if (name == "hardsigmoid") return std::min(1.0, std::max(0.0, alpha * x + beta));
    if (name == "elu") return x >= 0 ? x : alpha * (std::exp(x) - 1);
    if (name == "softsign") return x / (1 + std::fabs(x));
    if (name == "softplus") return std::log1p(std::exp(x));
    ADD_FAILURE() << "unknown activation " << name;
    return 0;
  }
};

std::vector<RefActivation> ref_activations(const Config& c) {
  std::vector<std::string> names = c.activations;
  if (names.empty()) {
    names = c.op == "LSTM"  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
            : c.op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                            : std::vector<std::string>{"Tanh"};
  }
  std::vector<RefActivation> out;
  size_t next_alpha = 0, next_beta = 0;
  for (std::string name : names) {
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    RefActivation a{name};
    const bool takes_alpha = name == "affine" || name == "leakyrelu" || name == "thresholdedrelu" ||
                             name == "scaledtanh" || name == "hardsigmoid" || name == "elu";
    const bool takes_beta = name == "affine" || name == "scaledtanh" || name == "hardsigmoid";
    a.alpha = name == "leakyrelu" ? 0.01 : name == "hardsigmoid" ? 0.2 : 1.0;
    a.beta = name == "hardsigmoid" ? 0.5 : 0.0;
    if (takes_alpha && next_alpha < c.alpha.size()) a.alpha = c.alpha[next_alpha++];
    if (takes_beta && next_beta < c.beta.size()) a.beta = c.beta[next_beta++];
    out.push_back(a);
  }
  const size_t per = c.op == "LSTM" ? 3 : c.op == "GRU" ? 2 : 1;
  if (out.size() == per && dirs(c) == 2) {
    const std::vector<RefActivation> shared = out;
    out.insert(out.end(), shared.begin(), shared.end());
  }
  return out;
}

struct Outputs {
  std::vector<double> y, h, c;  // layout 0
};

Outputs reference(const Config& c, const Inputs& in) {
  const int64_t S = c.seq, B = c.batch, I = c.input, H = c.hidden, G = gates(c), D = dirs(c);
  const size_t per = c.op == "LSTM" ? 3 : c.op == "GRU" ? 2 : 1;
  const std::vector<RefActivation> acts = ref_activations(c);
  Outputs out;
  out.y.assign(static_cast<size_t>(S * D * B * H), 0.0);
  out.h.assign(static_cast<size_t>(D * B * H), 0.0);
  out.c.assign(out.h.size(), 0.0);
  auto clip = [&](double v) {
    return c.clip > 0 ? std::min<double>(c.clip, std::max<double>(-c.clip, v)) : v;
  };
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = c.direction == "reverse" || d == 1;
    const RefActivation* a = &acts[static_cast<size_t>(d) * per];
    const float* w = in.w.data() + d * G * H * I;
    const float* r = in.r.data() + d * G * H * H;
    auto wb = [&](int64_t k) { return c.bias ? double(in.b[static_cast<size_t>(d * 2 * G * H + k)]) : 0.0; };
    auto rb = [&](int64_t k) {
      return c.bias ? double(in.b[static_cast<size_t>(d * 2 * G * H + G * H + k)]) : 0.0;
    };
    auto peep = [&](int64_t k) {
      return c.peepholes ? double(in.p[static_cast<size_t>(d * 3 * H + k)]) : 0.0;
    };
    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = c.lengths ? in.lengths[static_cast<size_t>(b)] : S;
      std::vector<double> h(static_cast<size_t>(H)), cell(static_cast<size_t>(H));
      for (int64_t j = 0; j < H; ++j) {
        h[j] = c.initial_h ? in.h0[static_cast<size_t>((d * B + b) * H + j)] : 0.0;
        cell[j] = c.initial_c ? in.c0[static_cast<size_t>((d * B + b) * H + j)] : 0.0;
      }
      auto xw = [&](int64_t t, int64_t row) {
        double s = 0;
        for (int64_t k = 0; k < I; ++k)
          s += double(in.x[static_cast<size_t>((t * B + b) * I + k)]) * w[row * I + k];
        return s;
      };
      auto rec = [&](const std::vector<double>& v, int64_t row) {
        double s = 0;
        for (int64_t k = 0; k < H; ++k) s += v[k] * r[row * H + k];
        return s;
      };
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = reverse ? len - 1 - step : step;
        std::vector<double> next(static_cast<size_t>(H)), next_c = cell;
        for (int64_t j = 0; j < H; ++j) {
          auto pre = [&](int64_t g) {
            return xw(t, g * H + j) + rec(h, g * H + j) + wb(g * H + j) + rb(g * H + j);
          };
          if (c.op == "RNN") {
            next[j] = a[0](clip(pre(0)));
          } else if (c.op == "LSTM") {
            const double i = a[0](clip(pre(0) + peep(j) * cell[j]));
            const double f = c.input_forget ? 1 - i : a[0](clip(pre(2) + peep(2 * H + j) * cell[j]));
            next_c[j] = f * cell[j] + i * a[1](clip(pre(3)));
            const double o = a[0](clip(pre(1) + peep(H + j) * next_c[j]));
            next[j] = o * a[2](next_c[j]);
          } else {
            const double z = a[0](clip(pre(0)));
            const double rj = a[0](clip(pre(1)));
            double ph;
            if (c.linear_before_reset) {
              ph = xw(t, 2 * H + j) + rj * (rec(h, 2 * H + j) + rb(2 * H + j)) + wb(2 * H + j);
            } else {
              std::vector<double> rh(static_cast<size_t>(H));
              for (int64_t k = 0; k < H; ++k) {
                const double pre_rk = xw(t, H + k) + rec(h, H + k) + wb(H + k) + rb(H + k);
                rh[k] = a[0](clip(pre_rk)) * h[k];
              }
              ph = xw(t, 2 * H + j) + rec(rh, 2 * H + j) + wb(2 * H + j) + rb(2 * H + j);
            }
            next[j] = (1 - z) * a[1](clip(ph)) + z * h[j];
          }
        }
        h = next;
        cell = next_c;
        for (int64_t j = 0; j < H; ++j) out.y[static_cast<size_t>(((t * D + d) * B + b) * H + j)] = h[j];
      }
      // A row of length 0 ends at zero; an empty sequence keeps the initial state.
      const bool zero = len == 0 && S > 0;
      for (int64_t j = 0; j < H; ++j) {
        out.h[static_cast<size_t>((d * B + b) * H + j)] = zero ? 0.0 : h[j];
        out.c[static_cast<size_t>((d * B + b) * H + j)] = zero ? 0.0 : cell[j];
      }
    }
  }
  return out;
}

// --- Model

Attr strings_attr(std::string_view name, const std::vector<std::string>& v) {
  switch (v.size()) {
    case 1:
      return Attr::strings(name, {v[0]});
    case 2:
      return Attr::strings(name, {v[0], v[1]});
    case 3:
      return Attr::strings(name, {v[0], v[1], v[2]});
    case 4:
      return Attr::strings(name, {v[0], v[1], v[2], v[3]});
    default:
      return Attr::strings(name, {v[0], v[1], v[2], v[3], v[4], v[5]});
  }
}

Attr floats_attr(std::string_view name, const std::vector<float>& v) {
  switch (v.size()) {
    case 1:
      return Attr::floats(name, {v[0]});
    case 2:
      return Attr::floats(name, {v[0], v[1]});
    default:
      return Attr::floats(name, {v[0], v[1], v[2]});
  }
}

// Transposes the two leading axes of a [a, b, rest] array.
template <class T>
std::vector<T> swap01(const std::vector<T>& v, int64_t a, int64_t b, int64_t rest) {
  std::vector<T> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < rest; ++k)
        out[static_cast<size_t>((j * a + i) * rest + k)] = v[static_cast<size_t>((i * b + j) * rest + k)];
  return out;
}

// A one-node model of the operator with `layout`, and its feeds.
struct Built {
  ModelBuilder model{14};
  std::vector<NamedTensor> feeds;
};

Built build(const Config& c, const Inputs& in, int layout) {
  Built built;
  const int64_t S = c.seq, B = c.batch, I = c.input, H = c.hidden, G = gates(c), D = dirs(c);
  ModelBuilder& m = built.model;
  std::vector<NamedTensor>& feeds = built.feeds;
  auto add = [&](std::string_view name, const Tensor& t, bool constant) {
    if (constant) {
      m.initializer(name, t);
    } else {
      m.input(name, t.dtype(), t.shape());
      feeds.push_back({std::string(name), t});
    }
  };
  const bool l1 = layout == 1;
  add("X",
      Tensor::from(l1 ? swap01(in.x, S, B, I) : in.x,
                   l1 ? std::vector<int64_t>{B, S, I} : std::vector<int64_t>{S, B, I}),
      false);
  add("W", Tensor::from(in.w, {D, G * H, I}), c.constant_weights);
  add("R", Tensor::from(in.r, {D, G * H, H}), c.constant_weights);
  if (c.bias) add("B", Tensor::from(in.b, {D, 2 * G * H}), c.constant_weights);
  if (c.lengths) add("L", Tensor::from(in.lengths, {B}), false);
  const std::vector<int64_t> state = l1 ? std::vector<int64_t>{B, D, H} : std::vector<int64_t>{D, B, H};
  if (c.initial_h) add("H0", Tensor::from(l1 ? swap01(in.h0, D, B, H) : in.h0, state), false);
  if (c.initial_c) add("C0", Tensor::from(l1 ? swap01(in.c0, D, B, H) : in.c0, state), false);
  if (c.peepholes) add("P", Tensor::from(in.p, {D, 3 * H}), c.constant_weights);
  std::vector<Attr> attrs = {Attr::s("direction", c.direction), Attr::i("hidden_size", H),
                             Attr::i("layout", layout)};
  if (c.clip > 0) attrs.push_back(Attr::f("clip", c.clip));
  if (!c.activations.empty()) attrs.push_back(strings_attr("activations", c.activations));
  if (!c.alpha.empty()) attrs.push_back(floats_attr("activation_alpha", c.alpha));
  if (!c.beta.empty()) attrs.push_back(floats_attr("activation_beta", c.beta));
  if (c.input_forget) attrs.push_back(Attr::i("input_forget", 1));
  if (c.linear_before_reset) attrs.push_back(Attr::i("linear_before_reset", 1));
  const std::string_view b = c.bias ? "B" : "", l = c.lengths ? "L" : "", h0 = c.initial_h ? "H0" : "";
  if (c.op == "LSTM") {
    m.node("LSTM", {"X", "W", "R", b, l, h0, c.initial_c ? "C0" : "", c.peepholes ? "P" : ""},
           {"Y", "Y_h", "Y_c"}, attrs);
    m.output("Y", DType::F32).output("Y_h", DType::F32).output("Y_c", DType::F32);
  } else {
    m.node(c.op, {"X", "W", "R", b, l, h0}, {"Y", "Y_h"}, attrs);
    m.output("Y", DType::F32).output("Y_h", DType::F32);
  }
  return built;
}

// Runs the operator with `layout`; the outputs come back as stored (layout 1 is not transposed back).
std::vector<Tensor> run_op(const Config& c, const Inputs& in, int layout, const SessionOptions& options) {
  const Built built = build(c, in, layout);
  return built.model.run(built.feeds, options);
}

void expect_near(const Tensor& got, const std::vector<double>& want, const std::string& what) {
  const std::vector<float> g = elements_of<float>(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_LE(std::fabs(g[i] - want[i]), 1e-4 * (1 + std::fabs(want[i]))) << what << " element " << i;
  }
}

// Checks one configuration: both modes against the reference, exact bits on every path and at 1 and 2
// threads, and layout 1 equal to layout 0 transposed.
void check(const Config& c, uint32_t seed) {
  SCOPED_TRACE(c.op + " " + c.direction + " seq " + std::to_string(c.seq) + " batch " +
               std::to_string(c.batch) + " hidden " + std::to_string(c.hidden) + " seed " +
               std::to_string(seed));
  std::mt19937 rng(seed);
  const Inputs in = random_inputs(c, rng);
  const Outputs want = reference(c, in);
  std::vector<Tensor> exact;
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const std::vector<Tensor> got = run_op(c, in, 0, options(mode));
    expect_near(got[0], want.y, "Y");
    expect_near(got[1], want.h, "Y_h");
    if (c.op == "LSTM") expect_near(got[2], want.c, "Y_c");
    if (mode == ExecutionMode::Exact) exact = got;
  }
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      const std::vector<Tensor> got = run_op(c, in, 0, options(ExecutionMode::Exact, path, threads));
      for (size_t o = 0; o < got.size(); ++o)
        EXPECT_TRUE(same_bytes(got[o], exact[o])) << path << " " << threads << " output " << o;
    }
  }
  const int64_t D = dirs(c);
  const std::vector<Tensor> l1 = run_op(c, in, 1, options(ExecutionMode::Exact));
  const std::vector<float> y = elements_of<float>(exact[0]);
  // Y: [S, D, B, H] in layout 0, [B, S, D, H] in layout 1.
  std::vector<float> y1(y.size());
  for (int64_t t = 0; t < c.seq; ++t)
    for (int64_t d = 0; d < D; ++d)
      for (int64_t b = 0; b < c.batch; ++b)
        for (int64_t j = 0; j < c.hidden; ++j)
          y1[static_cast<size_t>(((b * c.seq + t) * D + d) * c.hidden + j)] =
              y[static_cast<size_t>(((t * D + d) * c.batch + b) * c.hidden + j)];
  EXPECT_EQ(elements_of<float>(l1[0]), y1);
  for (size_t o = 1; o < l1.size(); ++o) {
    EXPECT_EQ(elements_of<float>(l1[o]), swap01(elements_of<float>(exact[o]), D, c.batch, c.hidden))
        << "output " << o;
  }
}

TEST(Recurrent, RandomShapesMatchReferenceAndAreExactEverywhere) {
  std::mt19937 pick(7);
  const char* ops[] = {"RNN", "GRU", "LSTM"};
  const char* directions[] = {"forward", "reverse", "bidirectional"};
  for (int n = 0; n < 36; ++n) {
    Config c;
    c.op = ops[n % 3];
    c.direction = directions[(n / 3) % 3];
    c.seq = std::uniform_int_distribution<int64_t>(0, 4)(pick);
    c.batch = std::uniform_int_distribution<int64_t>(1, 3)(pick);
    c.input = std::uniform_int_distribution<int64_t>(1, 9)(pick);
    c.hidden = std::uniform_int_distribution<int64_t>(1, 19)(pick);
    c.bias = n % 4 != 0;
    c.lengths = n % 5 < 2;
    c.initial_h = n % 2 == 0;
    c.initial_c = c.op == "LSTM" && n % 4 < 2;
    c.peepholes = c.op == "LSTM" && n % 3 == 2;
    c.constant_weights = n % 2 == 1;
    c.linear_before_reset = c.op == "GRU" && n % 4 >= 2;
    c.input_forget = c.op == "LSTM" && n % 7 == 3;
    c.clip = n % 6 == 1 ? 0.7f : 0.0f;
    check(c, static_cast<uint32_t>(100 + n));
  }
}

TEST(Recurrent, ActivationListsWithSeparateAlphaBetaCursors) {
  Config lstm;
  lstm.activations = {"HardSigmoid", "LeakyRelu", "ScaledTanh"};
  lstm.alpha = {0.3f, 0.2f, 1.2f};
  lstm.beta = {0.4f, 0.7f};
  check(lstm, 1);
  Config bi = lstm;
  bi.direction = "bidirectional";
  bi.activations = {"Sigmoid", "Elu", "Softplus", "hardsigmoid", "Softsign", "Affine"};
  bi.alpha = {0.5f, 0.25f, 1.5f};
  bi.beta = {0.1f, -0.2f};
  check(bi, 2);
  Config gru;
  gru.op = "GRU";
  gru.direction = "bidirectional";
  gru.activations = {"Relu", "ThresholdedRelu"};
  gru.alpha = {0.1f};
  check(gru, 3);
  Config rnn;
  rnn.op = "RNN";
  rnn.direction = "bidirectional";
  rnn.activations = {"Affine", "Softsign"};
  rnn.alpha = {0.5f};
  rnn.beta = {0.25f};
  check(rnn, 4);
}

TEST(Recurrent, LengthsOutsideTheSequenceAreRejected) {
  Config c;
  c.op = "RNN";
  c.lengths = true;
  std::mt19937 rng(5);
  Inputs in = random_inputs(c, rng);
  in.lengths[1] = static_cast<int32_t>(c.seq + 1);
  EXPECT_EQ(error_kind([&] { run_op(c, in, 0, options(ExecutionMode::Exact)); }),
            SessionError::Kind::InvalidInput);
}

TEST(Recurrent, WarmRunAllocatesNothing) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    for (bool constant : {false, true}) {
      Config c;
      c.op = op;
      c.direction = "bidirectional";
      c.lengths = c.initial_h = true;
      c.activations = {"Sigmoid", "Elu", "Softplus"};
      c.activations.resize(c.op == "LSTM" ? 3 : c.op == "GRU" ? 2 : 1);
      c.constant_weights = constant;
      std::mt19937 rng(9);
      const Built built = build(c, random_inputs(c, rng), 0);
      for (int threads : {1, 2}) {
        Session session = built.model.session(options(ExecutionMode::Exact, {}, threads));
        const std::vector<std::string> names = {"Y", "Y_h"};
        std::vector<Tensor> out;
        session.run(built.feeds, names, out);
        session.run(built.feeds, names, out);
        const int64_t before = allocation_count();
        session.run(built.feeds, names, out);
        EXPECT_EQ(allocation_count() - before, 0) << op << " constant " << constant << " threads " << threads;
      }
    }
  }
}

TEST(Recurrent, BackendNodeCases) {
  EXPECT_GT(check_backend_cases({"test_rnn", "test_gru", "test_lstm", "test_simple_rnn"}), 0);
}

}  // namespace
}  // namespace onemodel::test
