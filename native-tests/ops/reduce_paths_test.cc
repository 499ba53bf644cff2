// ReduceSum, ReduceMean, ReduceMax and ReduceMin on float32 in every layout of ops-norms.md "Reductions"
// (column layout over a middle or leading axis, row layout over the last axis or over runs split by a kept
// axis) give the same bytes on every kernel path and at 1 and 2 threads: inner extents 1..70, reduced extents
// 0..40 and a few shapes that span several tiles and offset batches, with NaN, infinities and signed zeros in
// the data. The scalar path is also held to the spec's order, computed here from the definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

// A layout: the input shape for kept extent k and reduced extent r, and the reduced axes.
struct Layout {
  const char* name;
  std::vector<int64_t> (*dims)(int64_t k, int64_t r);
  std::vector<int64_t> axes;
};

const Layout kLayouts[] = {
    {"column, middle axis",
     [](int64_t k, int64_t r) {
       return std::vector<int64_t>{3, r, k};
     },
     {1}},
    {"column, leading axis",
     [](int64_t k, int64_t r) {
       return std::vector<int64_t>{r, k};
     },
     {0}},
    {"row, last axis",
     [](int64_t k, int64_t r) {
       return std::vector<int64_t>{k, r};
     },
     {1}},
    {"row, runs split by a kept axis",
     [](int64_t k, int64_t r) {
       return std::vector<int64_t>{r, 2, k};
     },
     {0, 2}},
};

// Values of mixed magnitude (so that a different order shows in the bits), and with probability `special`
// a NaN of either sign and some payload, an infinity or a signed zero.
std::vector<float> mixed_floats(size_t n, std::mt19937& rng, double special) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> scale(-12, 12), kind(0, 5);
  std::bernoulli_distribution is_special(special);
  std::vector<float> x(n);
  for (float& v : x) {
    v = std::ldexp(unit(rng), scale(rng));
    if (!is_special(rng)) continue;
    switch (kind(rng)) {
      case 0:
        v = from_bits(0xFFC00000u | (rng() & 0xFFFFu));
        break;
      case 1:
        v = from_bits(0x7F800001u | (rng() & 0x3FFFFFu));
        break;
      case 2:
        v = std::numeric_limits<float>::infinity();
        break;
      case 3:
        v = -std::numeric_limits<float>::infinity();
        break;
      case 4:
        v = -0.0f;
        break;
      default:
        v = 0.0f;
        break;
    }
  }
  return x;
}

// The spec's result for one output whose terms are `t` (in sequence order).
float spec_result(std::string_view op, const std::vector<float>& t, bool row_layout) {
  float r;
  if (op == "ReduceMax") {
    r = -std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < t.size(); ++i) r = (i == 0 || t[i] > r) ? t[i] : r;
  } else if (op == "ReduceMin") {
    r = std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < t.size(); ++i) r = (i == 0 || t[i] < r) ? t[i] : r;
  } else {
    float partial[16] = {};
    r = 0.0f;
    for (size_t i = 0; i < t.size(); ++i) {
      if (row_layout) {
        partial[i % 16] = partial[i % 16] + t[i];
      } else {
        r = r + t[i];
      }
    }
    if (row_layout) {
      for (int half = 8; half >= 1; half /= 2) {
        for (int i = 0; i < half; ++i) partial[i] = partial[i] + partial[i + half];
      }
      r = partial[0];
    }
    if (op == "ReduceMean") r = t.empty() ? 0.0f : r / static_cast<float>(t.size());
  }
  return std::isnan(r) ? from_bits(kCanonicalNaN) : r;
}

// The spec's output of `op` over `axes` of x (dims), keepdims = 1, in row-major output order.
std::vector<float> spec_reduce(std::string_view op, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& axes, const std::vector<float>& x) {
  uint32_t mask = 0;
  for (int64_t a : axes) mask |= 1u << a;
  int64_t outputs = 1, count = 1;
  for (size_t a = 0; a < dims.size(); ++a) {
    count *= dims[a];
    if (!((mask >> a) & 1u)) outputs *= dims[a];
  }
  std::vector<std::vector<float>> terms(static_cast<size_t>(outputs));
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat, out = 0, scale = 1;
    for (size_t a = dims.size(); a-- > 0;) {
      const int64_t index = rest % dims[a];
      rest /= dims[a];
      if (!((mask >> a) & 1u)) {
        out += index * scale;
        scale *= dims[a];
      }
    }
    terms[static_cast<size_t>(out)].push_back(x[static_cast<size_t>(flat)]);
  }
  // The row layout: the last axis of extent above 1 is reduced.
  bool row_layout = false;
  for (size_t a = dims.size(); a-- > 0;) {
    if (dims[a] != 1) {
      row_layout = (mask >> a) & 1u;
      break;
    }
  }
  std::vector<float> y;
  for (const auto& t : terms) y.push_back(spec_result(op, t, row_layout));
  return y;
}

// One session per operator, layout, path and thread count, fed every shape.
Session reduce_session(std::string_view op, const Layout& layout, const SessionOptions& o) {
  ModelBuilder m(18);
  const int64_t rank = static_cast<int64_t>(layout.dims(1, 1).size());
  m.input("x", DType::F32, std::vector<int64_t>(static_cast<size_t>(rank), -1)).output("y", DType::F32);
  m.initializer("axes", Tensor::from<int64_t>(layout.axes, {static_cast<int64_t>(layout.axes.size())}));
  m.node(op, {"x", "axes"}, {"y"}, {Attr::i("keepdims", 1)});
  return m.session(o);
}

struct Shape {
  std::vector<int64_t> dims;
  std::vector<float> x;
};

std::vector<Shape> shapes_of(const Layout& layout, std::mt19937& rng) {
  std::vector<Shape> shapes;
  auto add = [&](int64_t k, int64_t r, double special) {
    std::vector<int64_t> dims = layout.dims(k, r);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    shapes.push_back({dims, mixed_floats(static_cast<size_t>(n), rng, special)});
  };
  // Every inner extent 1..70 meets every reduced extent 0..40 over the shapes, special values now and then.
  for (int64_t k = 1; k <= 70; ++k) {
    for (int64_t r = k % 3; r <= 40; r += 3) add(k, r, (k + r) % 4 == 0 ? 0.15 : 0.0);
  }
  // Several tiles, several offset batches, long runs; the last is large enough to wake a second thread.
  add(300, 133, 0.0);
  add(257, 129, 0.01);
  add(600, 7, 0.0);
  add(17, 300, 0.01);
  add(700, 600, 0.001);
  return shapes;
}

TEST(ReducePaths, EveryPathAndThreadCountGivesTheScalarBytes) {
  std::mt19937 rng(2026);
  for (const Layout& layout : kLayouts) {
    const std::vector<Shape> shapes = shapes_of(layout, rng);
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"}) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        Session scalar = reduce_session(op, layout, options(mode, "scalar", 1));
        std::vector<Tensor> want;
        for (const Shape& s : shapes) {
          want.push_back(std::move(scalar.run({{"x", Tensor::from<float>(s.x, s.dims)}})[0]));
          const std::vector<float> spec = spec_reduce(op, s.dims, layout.axes, s.x);
          const std::vector<float> got = want.back().to_vector<float>();
          ASSERT_EQ(got.size(), spec.size());
          for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_EQ(bits_of(got[i]), bits_of(spec[i]))
                << op << " " << layout.name << " dims " << testing::PrintToString(s.dims) << " output " << i;
          }
        }
        for (const std::string& path : kernel_paths()) {
          for (int threads : {1, 2}) {
            if (path == "scalar" && threads == 1) continue;
            Session session = reduce_session(op, layout, options(mode, path, threads));
            for (size_t i = 0; i < shapes.size(); ++i) {
              const Tensor got = session.run({{"x", Tensor::from<float>(shapes[i].x, shapes[i].dims)}})[0];
              ASSERT_TRUE(same_bytes(got, want[i]))
                  << op << " " << layout.name << " dims " << testing::PrintToString(shapes[i].dims)
                  << " path " << path << " threads " << threads;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace onemodel::test
