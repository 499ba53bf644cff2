// MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool through Session, against a naive reference
// written here from ops-conv.md "Output sizes" and "Pooling" (every window tap visited in order, bounds
// checked per tap): output sizes including the ceil_mode shrink and SAME/VALID padding, the maxNum NaN rule,
// first-of-equal ties (-0 / +0), Indices in both storage orders, the count_include_pad divisor, the global
// pools' NaN behaviour; bit-equal results on every kernel path, 1 and 2 threads, fast and exact mode. Plus
// the ONNX backend node cases.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kCanonicalNaN = 0x7FC00000u;
const float kNaN = __builtin_bit_cast(float, 0xFFC00001u);

struct PoolCase {
  std::vector<int64_t> dims;  // N, C, spatial...
  std::vector<int64_t> kernel, strides, dilations, pads;
  std::string auto_pad = "NOTSET";
  int ceil_mode = 0;
  int count_include_pad = 0;
};

// Per spatial axis: input extent, output extent, kernel, stride, dilation, begin and end padding.
struct RefAxis {
  int64_t in, out, k, s, d, pb, pe;
};

std::vector<RefAxis> ref_axes(const PoolCase& c) {
  std::vector<RefAxis> axes;
  const size_t n = c.kernel.size();
  for (size_t i = 0; i < n; ++i) {
    RefAxis a{c.dims[i + 2],
              0,
              c.kernel[i],
              c.strides.empty() ? 1 : c.strides[i],
              c.dilations.empty() ? 1 : c.dilations[i],
              0,
              0};
    const int64_t e = a.d * (a.k - 1) + 1;
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      a.out = static_cast<int64_t>(std::ceil(static_cast<double>(a.in) / static_cast<double>(a.s)));
      const int64_t total = std::max<int64_t>(0, (a.out - 1) * a.s + e - a.in);
      a.pe = c.auto_pad == "SAME_UPPER" ? total - total / 2 : total / 2;
      a.pb = total - a.pe;
    } else {
      if (c.auto_pad == "NOTSET" && !c.pads.empty()) {
        a.pb = c.pads[i];
        a.pe = c.pads[n + i];
      }
      const double q = static_cast<double>(a.in + a.pb + a.pe - e) / static_cast<double>(a.s);
      a.out = static_cast<int64_t>(c.ceil_mode ? std::ceil(q) : std::floor(q)) + 1;
      if (c.ceil_mode && (a.out - 1) * a.s >= a.in + a.pb) --a.out;
    }
    axes.push_back(a);
  }
  return axes;
}

// Calls f(index) for every multi-index below `extents` in row-major order.
void for_each_index(const std::vector<int64_t>& extents,
                    const std::function<void(const std::vector<int64_t>&)>& f) {
  std::vector<int64_t> idx(extents.size(), 0);
  for (int64_t e : extents) {
    if (e == 0) return;
  }
  while (true) {
    f(idx);
    size_t a = extents.size();
    while (a > 0) {
      --a;
      if (++idx[a] < extents[a]) break;
      idx[a] = 0;
      if (a == 0) return;
    }
    if (extents.empty()) return;
  }
}

template <class T>
struct RefPool {
  std::vector<int64_t> dims;
  std::vector<T> values;
  std::vector<int64_t> indices;
};

// kind: 0 max, 1 average. storage_order 1 flattens each plane with the first spatial axis fastest.
template <class T>
RefPool<T> ref_pool(const PoolCase& c, const std::vector<T>& x, int kind, int storage_order = 0) {
  const std::vector<RefAxis> axes = ref_axes(c);
  RefPool<T> r;
  r.dims = {c.dims[0], c.dims[1]};
  std::vector<int64_t> out_extents, in_extents, kernel;
  for (const RefAxis& a : axes) {
    r.dims.push_back(a.out);
    out_extents.push_back(a.out);
    in_extents.push_back(a.in);
    kernel.push_back(a.k);
  }
  int64_t plane = 1;
  for (int64_t e : in_extents) plane *= e;
  for (int64_t p = 0; p < c.dims[0] * c.dims[1]; ++p) {
    for_each_index(out_extents, [&](const std::vector<int64_t>& o) {
      bool found = false;
      T best{};
      int64_t where = -1, counted = 0, padded = 0;
      float sum = 0.0f;
      for_each_index(kernel, [&](const std::vector<int64_t>& k) {
        int64_t flat = 0, column = 0, column_stride = 1;
        bool inside = true, in_padding = true;
        for (size_t a = 0; a < axes.size(); ++a) {
          const int64_t pos = o[a] * axes[a].s - axes[a].pb + k[a] * axes[a].d;
          inside = inside && pos >= 0 && pos < axes[a].in;
          in_padding = in_padding && pos >= -axes[a].pb && pos < axes[a].in + axes[a].pe;
          flat = flat * axes[a].in + pos;
          column += pos * column_stride;
          column_stride *= axes[a].in;
        }
        padded += in_padding ? 1 : 0;
        if (!inside) return;
        ++counted;
        const T v = x[static_cast<size_t>(p * plane + flat)];
        sum = sum + static_cast<float>(v);
        const bool nan_best = best != best, nan_v = v != v;
        if (!found || (v > best) || (nan_best && !nan_v)) {
          found = true;
          best = v;
          where = p * plane + (storage_order == 0 ? flat : column);
        }
      });
      if (kind == 0) {
        r.values.push_back(found ? best : std::numeric_limits<T>::lowest());
        r.indices.push_back(where);
      } else {
        r.values.push_back(static_cast<T>(sum / static_cast<float>(c.count_include_pad ? padded : counted)));
      }
    });
  }
  return r;
}

std::vector<Attr> pool_attrs(const PoolCase& c) {
  std::vector<Attr> attrs = {Attr::ints("kernel_shape", c.kernel)};
  if (!c.strides.empty()) attrs.push_back(Attr::ints("strides", c.strides));
  if (!c.dilations.empty()) attrs.push_back(Attr::ints("dilations", c.dilations));
  if (!c.pads.empty()) attrs.push_back(Attr::ints("pads", c.pads));
  if (c.auto_pad != "NOTSET") attrs.push_back(Attr::s("auto_pad", c.auto_pad));
  if (c.ceil_mode) attrs.push_back(Attr::i("ceil_mode", 1));
  if (c.count_include_pad) attrs.push_back(Attr::i("count_include_pad", 1));
  return attrs;
}

std::vector<Tensor> run_pool(std::string_view op, const PoolCase& c, const Tensor& x, bool indices,
                             const SessionOptions& o = {}, int storage_order = 0, int64_t opset = 19) {
  std::vector<Attr> attrs = pool_attrs(c);
  if (storage_order != 0) attrs.push_back(Attr::i("storage_order", storage_order));
  ModelBuilder m(opset);
  m.input("x", x.dtype(), c.dims).output("y", x.dtype());
  if (indices) {
    m.output("i", DType::I64);
    m.node(op, {"x"}, {"y", "i"}, attrs);
  } else {
    m.node(op, {"x"}, {"y"}, attrs);
  }
  return m.run({{"x", x}}, o);
}

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(-8, 8);
  std::vector<float> v(n);
  // Small integers repeat often, so ties (and the first-wins rule) are common.
  for (auto& x : v) x = static_cast<float>(pick(rng)) * 0.5f;
  return v;
}

int64_t count_of(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

const std::vector<PoolCase>& pool_cases() {
  static const std::vector<PoolCase> cases = {
      {{1, 2, 9}, {3}, {2}, {}, {1, 1}},
      {{2, 3, 7, 8}, {2, 2}, {2, 2}, {}, {}},
      {{1, 2, 9, 11}, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}},
      {{1, 2, 9, 11}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}, "NOTSET", 1, 1},
      {{1, 1, 5, 5}, {3, 3}, {2, 2}, {2, 2}, {1, 1, 1, 1}, "NOTSET", 1, 1},
      {{1, 1, 5, 5}, {3, 3}, {2, 2}, {2, 2}, {1, 1, 1, 1}, "NOTSET", 1, 0},
      {{1, 2, 6, 7}, {2, 3}, {2, 1}, {}, {}, "SAME_UPPER"},
      {{1, 2, 6, 7}, {2, 3}, {2, 3}, {}, {}, "SAME_LOWER", 0, 1},
      {{1, 2, 6, 7}, {2, 3}, {1, 2}, {}, {}, "VALID"},
      {{1, 1, 10, 12}, {4, 3}, {3, 2}, {}, {0, 2, 3, 1}, "NOTSET", 1, 1},
      {{1, 2, 12, 13}, {3, 2}, {1, 2}, {2, 3}, {2, 0, 1, 2}},
      {{2, 2, 4, 5, 6}, {2, 3, 2}, {2, 1, 2}, {}, {0, 1, 1, 1, 0, 1}, "NOTSET", 1, 1},
      {{1, 1, 5, 4, 6}, {1, 3, 3}, {1, 2, 1}, {}, {0, 1, 1, 0, 1, 1}},
      {{1, 3, 33, 35}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}, "NOTSET", 1, 1},
      {{1, 2, 30, 31}, {5, 4}, {3, 3}, {}, {2, 2, 2, 2}},
  };
  return cases;
}

TEST(PoolOp, OutputSizesFollowTheSpecFormulas) {
  // Hand-computed extents: (input, kernel, stride, pad_begin, pad_end, ceil_mode, auto_pad) -> output.
  struct Size {
    int64_t n, k, s, pb, pe;
    int ceil;
    std::string auto_pad;
    int64_t out;
  };
  const std::vector<Size> sizes = {
      {5, 3, 2, 0, 0, 0, "NOTSET", 2},     {6, 3, 2, 0, 0, 0, "NOTSET", 2},
      {6, 3, 2, 0, 0, 1, "NOTSET", 3},     {5, 2, 2, 1, 1, 0, "NOTSET", 3},
      {5, 2, 2, 1, 1, 1, "NOTSET", 3},  // ceil gives 4, whose window would start in the end padding
      {7, 3, 3, 0, 2, 1, "NOTSET", 3},     {5, 3, 2, 0, 0, 0, "SAME_UPPER", 3},
      {4, 2, 1, 0, 0, 0, "SAME_LOWER", 4}, {5, 2, 2, 0, 0, 0, "VALID", 2},
      {1, 3, 1, 1, 1, 0, "NOTSET", 1},
  };
  for (const Size& z : sizes) {
    PoolCase c{{1, 1, z.n}, {z.k}, {z.s}, {}, {z.pb, z.pe}, z.auto_pad, z.ceil};
    if (z.auto_pad != "NOTSET") c.pads.clear();
    std::vector<float> x(static_cast<size_t>(z.n), 1.0f);
    const auto y = run_pool("MaxPool", c, Tensor::from<float>(x, c.dims), false);
    EXPECT_EQ(y[0].shape(), (std::vector<int64_t>{1, 1, z.out})) << z.n << " " << z.k << " " << z.auto_pad;
  }
  // A window larger than the padded input is refused.
  PoolCase bad{{1, 1, 2}, {4}, {1}, {}, {0, 1}};
  EXPECT_EQ(error_kind([&] {
              run_pool("MaxPool", bad, Tensor::from<float>({1, 2}, bad.dims), false);
            }),
            SessionError::Kind::InvalidInput);
}

TEST(PoolOp, MaxPoolMatchesReferenceOnEveryPath) {
  std::mt19937 rng(7);
  for (const PoolCase& c : pool_cases()) {
    std::vector<float> x = random_floats(static_cast<size_t>(count_of(c.dims)), rng);
    // Signed zeros and infinities: equal zeros keep the first, -inf is an ordinary value.
    for (size_t i = 0; i < x.size(); i += 5) x[i] = (i / 5) % 2 ? -0.0f : 0.0f;
    for (size_t i = 3; i < x.size(); i += 17) x[i] = (i % 2) ? kInf : -kInf;
    // NaNs here and there, and a run of them long enough to fill some windows; a run of -inf likewise.
    for (size_t i = 7; i < x.size(); i += 23) x[i] = kNaN;
    for (size_t i = x.size() / 3; i < x.size() / 3 + x.size() / 8; ++i) x[i] = kNaN;
    for (size_t i = x.size() / 2; i < x.size() / 2 + x.size() / 8; ++i) x[i] = -kInf;
    const RefPool<float> want = ref_pool(c, x, 0);
    const Tensor input = Tensor::from<float>(x, c.dims);
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
          for (bool indices : {false, true}) {
            const auto y = run_pool("MaxPool", c, input, indices, options(mode, path, threads));
            ASSERT_EQ(y[0].shape(), want.dims);
            const auto got = y[0].to_vector<float>();
            for (size_t i = 0; i < got.size(); ++i) {
              const float w = want.values[i];
              ASSERT_EQ(bits_of(got[i]), w != w ? kCanonicalNaN : bits_of(w))
                  << "case dims " << c.dims.size() << " " << i;
            }
            if (indices) {
              EXPECT_EQ(y[1].to_vector<int64_t>(), want.indices);
            }
          }
        }
      }
    }
  }
}

TEST(PoolOp, MaxPoolNaNRuleAndEmptyWindows) {
  // maxNum: NaN taps are ignored unless the window holds nothing else; the first number starts the maximum.
  PoolCase c{{1, 1, 6}, {2}, {2}, {}, {}};
  const auto y = run_pool("MaxPool", c, Tensor::from<float>({kNaN, 1, 2, kNaN, kNaN, kNaN}, c.dims), true,
                          options(ExecutionMode::Fast));
  const auto v = y[0].to_vector<float>();
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 2.0f);
  EXPECT_EQ(bits_of(v[2]), kCanonicalNaN);
  EXPECT_EQ(y[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 4}));
  // -inf data gives -inf; a window wholly in padding gives the lowest value.
  PoolCase p{{1, 1, 2}, {2}, {2}, {}, {0, 3}};
  const auto q =
      run_pool("MaxPool", p, Tensor::from<float>({-kInf, -kInf}, p.dims), false)[0].to_vector<float>();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0], -kInf);
  EXPECT_EQ(q[1], std::numeric_limits<float>::lowest());
  // Ties: -0 before +0 keeps -0, +0 before -0 keeps +0.
  const auto z =
      run_pool("MaxPool", c, Tensor::from<float>({-0.0f, 0.0f, 0.0f, -0.0f, -1, -1}, c.dims), false)[0]
          .to_vector<float>();
  EXPECT_EQ(bits_of(z[0]), 0x80000000u);
  EXPECT_EQ(bits_of(z[1]), 0u);
}

TEST(PoolOp, MaxPoolIndicesInBothStorageOrders) {
  // 2x2x3x3 of distinct values, kernel 2x2, stride 1: the maximum of each window is its bottom-right tap.
  PoolCase c{{2, 2, 3, 3}, {2, 2}, {1, 1}, {}, {}};
  std::vector<float> x(36);
  std::iota(x.begin(), x.end(), 0.0f);
  const Tensor input = Tensor::from<float>(x, c.dims);
  for (int order : {0, 1}) {
    const auto y = run_pool("MaxPool", c, input, true, {}, order, 12);
    std::vector<int64_t> want;
    for (int64_t p = 0; p < 4; ++p) {
      for (int64_t oh = 0; oh < 2; ++oh) {
        for (int64_t ow = 0; ow < 2; ++ow) {
          const int64_t h = oh + 1, w = ow + 1;
          want.push_back(p * 9 + (order == 0 ? h * 3 + w : w * 3 + h));
        }
      }
    }
    EXPECT_EQ(y[1].to_vector<int64_t>(), want) << "storage_order " << order;
  }
  // Three spatial axes, column-major: the first spatial axis runs fastest.
  PoolCase d{{1, 1, 2, 3, 4}, {2, 2, 2}, {}, {}, {}};
  std::mt19937 rng(3);
  const std::vector<float> x3 = random_floats(24, rng);
  const RefPool<float> want3 = ref_pool(d, x3, 0, 1);
  EXPECT_EQ(run_pool("MaxPool", d, Tensor::from<float>(x3, d.dims), true, {}, 1)[1].to_vector<int64_t>(),
            want3.indices);
}

template <class T>
void check_max_pool_type(DType dtype) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(std::is_signed_v<T> ? -128 : 0, std::is_signed_v<T> ? 127 : 255);
  for (const PoolCase& c : pool_cases()) {
    std::vector<T> x(static_cast<size_t>(count_of(c.dims)));
    for (auto& v : x) v = static_cast<T>(pick(rng));
    const RefPool<T> want = ref_pool(c, x, 0);
    const std::vector<Tensor> y =
        run_pool("MaxPool", c, tensor_of<T>(dtype, c.dims, x), true, options(ExecutionMode::Exact, {}, 2));
    EXPECT_EQ(elements_of<T>(y[0]), want.values);
    EXPECT_EQ(y[1].to_vector<int64_t>(), want.indices);
  }
}

TEST(PoolOp, MaxPoolOtherElementTypes) {
  check_max_pool_type<int8_t>(DType::I8);
  check_max_pool_type<uint8_t>(DType::U8);
  check_max_pool_type<double>(DType::F64);
  PoolCase c{{1, 1, 2}, {2}, {}, {}, {}};
  EXPECT_EQ(error_kind([&] {
              run_pool("MaxPool", c, Tensor::from<int32_t>({1, 2}, c.dims), false);
            }),
            SessionError::Kind::Unsupported);
}

TEST(PoolOp, AveragePoolMatchesReferenceOnEveryPath) {
  std::mt19937 rng(5);
  for (const PoolCase& c : pool_cases()) {
    const std::vector<float> x = random_floats(static_cast<size_t>(count_of(c.dims)), rng);
    const RefPool<float> want = ref_pool(c, x, 1);
    const Tensor input = Tensor::from<float>(x, c.dims);
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
          const auto y = run_pool("AveragePool", c, input, false, options(mode, path, threads));
          ASSERT_EQ(y[0].shape(), want.dims);
          const auto got = y[0].to_vector<float>();
          for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(bits_of(got[i]), bits_of(want.values[i])) << i;
        }
      }
    }
  }
}

TEST(PoolOp, AveragePoolDivisor) {
  // Ones 3x3, kernel 3, pad 1: a corner window has 4 taps inside and 9 counting the padding.
  PoolCase c{{1, 1, 3, 3}, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}};
  const Tensor ones = Tensor::from<float>(std::vector<float>(9, 1.0f), c.dims);
  EXPECT_EQ(run_pool("AveragePool", c, ones, false)[0].to_vector<float>()[0], 1.0f);
  c.count_include_pad = 1;
  const auto y = run_pool("AveragePool", c, ones, false)[0].to_vector<float>();
  EXPECT_EQ(y[0], 4.0f / 9.0f);
  EXPECT_EQ(y[1], 6.0f / 9.0f);
  EXPECT_EQ(y[4], 1.0f);
  // ceil_mode's overhang beyond the declared padding is never counted: n 6, kernel 3, stride 2, no pads
  // gives windows [0, 2], [2, 4] and, by ceil_mode, [4, 6] whose tap 6 lies in no padding.
  PoolCase o{{1, 1, 6}, {3}, {2}, {}, {0, 0}, "NOTSET", 1, 1};
  const auto z = run_pool("AveragePool", o, Tensor::from<float>({1, 2, 3, 4, 5, 6}, o.dims), false)[0]
                     .to_vector<float>();
  ASSERT_EQ(z.size(), 3u);
  EXPECT_EQ(z[0], (1.0f + 2.0f + 3.0f) / 3.0f);
  EXPECT_EQ(z[2], (5.0f + 6.0f) / 2.0f);
  PoolCase e{{1, 1, 5}, {3}, {2}, {}, {1, 1}, "NOTSET", 1, 1};
  const auto w =
      run_pool("AveragePool", e, Tensor::from<float>({1, 2, 3, 4, 5}, e.dims), false)[0].to_vector<float>();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[2], (4.0f + 5.0f) / 3.0f);  // taps 3, 4 inside, 5 in the padding
  // NaN sums are canonical.
  PoolCase n{{1, 1, 2}, {2}, {}, {}, {}};
  EXPECT_EQ(bits_of(run_pool("AveragePool", n, Tensor::from<float>({kNaN, 1}, n.dims), false,
                             options(ExecutionMode::Fast))[0]
                        .to_vector<float>()[0]),
            kCanonicalNaN);
}

TEST(PoolOp, HugeWindowsOverPadding) {
  // Kernel, pads and stride of 2^30 over 5 elements: window 0 lies wholly in the begin padding, window 1
  // holds the input and 2^30 - 5 padding taps. Only taps inside the input are visited.
  const int64_t big = int64_t{1} << 30;
  PoolCase c{{1, 1, 5}, {big}, {big}, {}, {big, big}};
  const Tensor x = Tensor::from<float>({1, 5, 2, 4, 3}, c.dims);
  const auto mx = run_pool("MaxPool", c, x, true);
  EXPECT_EQ(mx[0].to_vector<float>(), (std::vector<float>{std::numeric_limits<float>::lowest(), 5}));
  EXPECT_EQ(mx[1].to_vector<int64_t>(), (std::vector<int64_t>{-1, 1}));
  const auto av = run_pool("AveragePool", c, x, false)[0].to_vector<float>();
  EXPECT_EQ(bits_of(av[0]), kCanonicalNaN);  // no tap counted
  EXPECT_EQ(av[1], 15.0f / 5.0f);
  c.count_include_pad = 1;
  const auto ap = run_pool("AveragePool", c, x, false)[0].to_vector<float>();
  EXPECT_EQ(ap[0], 0.0f);
  EXPECT_EQ(ap[1], 15.0f / static_cast<float>(big));
  // Three such axes: the window's tap count (2^90) overflows int64 but not the divisor's arithmetic.
  PoolCase d{{1, 1, 2, 2, 2}, {big, big, big}, {big, big, big}, {}, {0, 0, 0, big, big, big}};
  d.count_include_pad = 1;
  const auto a3 = run_pool("AveragePool", d, Tensor::from<float>({1, 1, 1, 1, 1, 1, 1, 1}, d.dims), false)[0]
                      .to_vector<float>();
  ASSERT_EQ(a3.size(), 1u);
  EXPECT_EQ(a3[0], 8.0f / (static_cast<float>(big) * static_cast<float>(big) * static_cast<float>(big)));
}

TEST(PoolOp, GlobalPools) {
  const std::vector<int64_t> dims = {2, 9, 4, 5};  // 18 planes: two groups of 8 and 2 more
  std::mt19937 rng(9);
  std::vector<float> x = random_floats(360, rng);
  for (size_t i = 0; i < 20; ++i) x[20 + i] = kNaN;   // plane 1: all NaN
  for (size_t i = 0; i < 20; ++i) x[40 + i] = -kInf;  // plane 2: all -inf
  x[60] = kNaN;                                       // plane 3: one NaN among numbers
  x[345] = kNaN;                                      // plane 17, in the last, partial group
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (int threads : {1, 2}) {
      ModelBuilder m(11);
      m.input("x", DType::F32, dims).output("mx", DType::F32).output("av", DType::F32);
      m.node("GlobalMaxPool", {"x"}, {"mx"}).node("GlobalAveragePool", {"x"}, {"av"});
      const auto y = m.run({{"x", Tensor::from<float>(x, dims)}}, options(mode, {}, threads));
      EXPECT_EQ(y[0].shape(), (std::vector<int64_t>{2, 9, 1, 1}));
      const auto mx = y[0].to_vector<float>(), av = y[1].to_vector<float>();
      for (size_t p = 0; p < 18; ++p) {
        float best = std::numeric_limits<float>::lowest(), sum = 0.0f;
        for (size_t i = 0; i < 20; ++i) {
          const float v = x[p * 20 + i];
          if (v > best) best = v;
          sum = sum + v;
        }
        const float mean = sum / 20.0f;
        EXPECT_EQ(bits_of(mx[p]), bits_of(best)) << p;
        EXPECT_EQ(bits_of(av[p]), mean != mean ? kCanonicalNaN : bits_of(mean)) << p;
      }
      EXPECT_EQ(mx[1], std::numeric_limits<float>::lowest());
      EXPECT_EQ(mx[2], std::numeric_limits<float>::lowest());
      EXPECT_EQ(av[2], -kInf);
    }
  }
}

TEST(PoolOp, LpPoolFastModeOnly) {
  std::mt19937 rng(13);
  for (int64_t p : {1, 2, 3}) {
    for (const PoolCase& c : pool_cases()) {
      const std::vector<float> x = random_floats(static_cast<size_t>(count_of(c.dims)), rng);
      if (c.count_include_pad) continue;  // not an LpPool attribute
      // (sum over taps inside the input of |x|^p)^(1/p), in double; the padding adds nothing.
      PoolCase powered = c;
      std::vector<float> terms(x.size());
      for (size_t i = 0; i < x.size(); ++i) terms[i] = static_cast<float>(std::pow(std::fabs(x[i]), p));
      powered.count_include_pad = 1;
      const RefPool<float> means = ref_pool(powered, terms, 1);  // sum / taps in window and padding
      const std::vector<RefAxis> axes = ref_axes(c);
      int64_t window = 1;
      for (const RefAxis& a : axes) window *= a.k;
      std::vector<Attr> attrs = pool_attrs(c);
      attrs.push_back(Attr::i("p", p));
      ModelBuilder m(18);
      m.input("x", DType::F32, c.dims).output("y", DType::F32);
      m.node("LpPool", {"x"}, {"y"}, attrs);
      for (int threads : {1, 2}) {
        const auto y =
            m.run({{"x", Tensor::from<float>(x, c.dims)}}, options(ExecutionMode::Fast, {}, threads))[0];
        ASSERT_EQ(y.shape(), means.dims);
        const auto got = y.to_vector<float>();
        ASSERT_EQ(got.size(), means.values.size());
        // Windows that reach past the padding (ceil_mode) are skipped here: their mean divides by fewer taps.
        const bool whole_windows = c.ceil_mode == 0;
        for (size_t i = 0; whole_windows && i < got.size(); ++i) {
          const double want =
              std::pow(static_cast<double>(means.values[i]) * static_cast<double>(window), 1.0 / p);
          ASSERT_NEAR(got[i], want, 1e-4 * (1 + want)) << "p " << p << " element " << i;
        }
      }
    }
  }
  ModelBuilder g(11);
  g.input("x", DType::F32, {1, 2, 3}).output("y", DType::F32);
  g.node("GlobalLpPool", {"x"}, {"y"}, {Attr::i("p", 1)});
  EXPECT_EQ(g.run({{"x", Tensor::from<float>({1, -2, 3, -4, 5, 6}, {1, 2, 3})}})[0].to_vector<float>(),
            (std::vector<float>{6, 15}));
  EXPECT_EQ(
      error_kind([&] {
        g.run({{"x", Tensor::from<float>({1, -2, 3, -4, 5, 6}, {1, 2, 3})}}, options(ExecutionMode::Exact));
      }),
      SessionError::Kind::ExactModeUnavailable);
}

TEST(PoolOp, BackendNodeCases) {
  EXPECT_GT(check_backend_cases(
                {"test_maxpool", "test_averagepool", "test_globalmaxpool", "test_globalaveragepool"}),
            0);
}

}  // namespace
}  // namespace onemodel::test
