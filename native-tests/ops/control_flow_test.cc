// If, Loop and Scan beyond the oracle cases (testdata/oracle/control.json.gz): errors at creation and at run
// time, outer values that only a body reads staying alive in the slab, and concurrent runs of one session.
#include <thread>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

Proto branch(std::string_view op, std::string_view in_a, std::string_view in_b, std::string_view out) {
  ModelBuilder b(17);
  b.node(op, {in_a, in_b}, {out}).output(out, DType::F32);
  return b.graph(std::string(out) + "_branch");
}

Tensor floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  return Tensor::from(values, std::move(dims));
}

Tensor scalar_bool(bool v) {
  Tensor t(DType::Bool, {});
  t.data<bool>()[0] = v;
  return t;
}

// y = If(c) then x + b else x * b, with x and b read only inside the branches.
ModelBuilder if_model() {
  ModelBuilder m(17);
  m.input("c", DType::Bool, {}).input("x", DType::F32, {3}).input("b", DType::F32, {3});
  m.node("If", {"c"}, {"y"},
         {Attr::graph("then_branch", branch("Add", "x", "b", "t")),
          Attr::graph("else_branch", branch("Mul", "x", "b", "e"))},
         "choose");
  m.output("y", DType::F32);
  return m;
}

TEST(ControlFlow, IfConditionMustBeOneBool) {
  ModelBuilder m(17);
  m.input("c", DType::F32, {}).input("x", DType::F32, {3}).input("b", DType::F32, {3});
  m.node("If", {"c"}, {"y"},
         {Attr::graph("then_branch", branch("Add", "x", "b", "t")),
          Attr::graph("else_branch", branch("Mul", "x", "b", "e"))},
         "choose");
  m.output("y", DType::F32);
  Session s = m.session();
  std::string node;
  Tensor c(DType::F32, {});
  EXPECT_EQ(error_kind(
                [&] {
                  s.run({{"c", c}, {"x", floats({3}, {1, 2, 3})}, {"b", floats({3}, {1, 1, 1})}});
                },
                nullptr, &node),
            SessionError::Kind::InvalidInput);
  EXPECT_EQ(node, "choose");
}

TEST(ControlFlow, BranchesPickedAndOuterValuesRead) {
  Session s = if_model().session();
  auto x = floats({3}, {1, 2, 3}), b = floats({3}, {10, 20, 30});
  std::vector<Tensor> then_out = s.run({{"c", scalar_bool(true)}, {"x", x}, {"b", b}});
  std::vector<Tensor> else_out = s.run({{"c", scalar_bool(false)}, {"x", x}, {"b", b}});
  EXPECT_EQ(then_out[0].to_vector<float>(), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(else_out[0].to_vector<float>(), (std::vector<float>{10, 40, 90}));
}

// A constant condition shapes the If at plan time (what follows is planned and prepared like any step); a
// branch whose output size depends on values (NonZero) makes the If allocate its output as the branch
// finishes.
TEST(ControlFlow, ConstantConditionsAndDataDependentBranches) {
  ModelBuilder nonzero(17);
  nonzero.node("NonZero", {"x"}, {"nz"}).output("nz", DType::I64);
  ModelBuilder shape(17);
  shape.node("Shape", {"x"}, {"sh"}).output("sh", DType::I64);
  for (bool cond : {true, false}) {
    ModelBuilder m(17);
    m.input("x", DType::F32, {2, 3});
    m.initializer("c", scalar_bool(cond));
    m.node(
        "If", {"c"}, {"y"},
        {Attr::graph("then_branch", nonzero.graph("then")), Attr::graph("else_branch", shape.graph("else"))});
    m.node("Cast", {"y"}, {"z"}, {Attr::i("to", 1)});
    m.output("z", DType::F32);
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      Session s = m.session(options(mode));
      for (int round = 0; round < 2; ++round) {
        std::vector<Tensor> out = s.run({{"x", floats({2, 3}, {0, 1, 0, 2, 0, 3})}});
        if (cond) {
          EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
          EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 1, 1, 1, 0, 2}));
        } else {
          EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 3}));
        }
      }
    }
  }
}

TEST(ControlFlow, MissingOperatorsInBodiesAreListedWithTheRest) {
  ModelBuilder m(17);
  m.input("c", DType::Bool, {}).input("x", DType::F32, {3});
  m.node("NoSuchTopLevel", {"x"}, {"z"});
  m.node("If", {"c"}, {"y"},
         {Attr::graph("then_branch", branch("NoSuchInBranch", "x", "z", "t")),
          Attr::graph("else_branch", branch("Mul", "x", "z", "e"))});
  m.output("y", DType::F32);
  std::string message;
  EXPECT_EQ(error_kind([&] { m.session(); }, &message), SessionError::Kind::UnsupportedOperator);
  EXPECT_NE(message.find("NoSuchTopLevel (opset 17)"), std::string::npos) << message;
  EXPECT_NE(message.find("NoSuchInBranch (opset 17)"), std::string::npos) << message;
}

TEST(ControlFlow, ExactModeChecksBodies) {
  ModelBuilder body(17);
  body.node("Sin", {"x"}, {"t"}).output("t", DType::F32);
  ModelBuilder m(17);
  m.input("c", DType::Bool, {}).input("x", DType::F32, {3});
  m.node("If", {"c"}, {"y"},
         {Attr::graph("then_branch", body.graph("then")),
          Attr::graph("else_branch", branch("Mul", "x", "x", "e"))});
  m.output("y", DType::F32);
  std::string message;
  EXPECT_EQ(error_kind([&] { m.session(options(ExecutionMode::Exact)); }, &message),
            SessionError::Kind::ExactModeUnavailable);
  EXPECT_NE(message.find("Sin"), std::string::npos) << message;
  EXPECT_NO_THROW(m.session(options(ExecutionMode::Fast)));
}

TEST(ControlFlow, LoopWithoutTripCountOrConditionIsRefused) {
  ModelBuilder body(17);
  body.input("i", DType::I64, {}).input("cond", DType::Bool, {}).input("v", DType::F32, {1});
  body.node("Identity", {"cond"}, {"cond_out"}).node("Identity", {"v"}, {"v_out"});
  body.output("cond_out", DType::Bool).output("v_out", DType::F32);
  ModelBuilder m(17);
  m.input("v0", DType::F32, {1});
  m.node("Loop", {"", "", "v0"}, {"v"}, {Attr::graph("body", body.graph("body"))});
  m.output("v", DType::F32);
  Session s = m.session();
  EXPECT_EQ(error_kind([&] { s.run({{"v0", floats({1}, {1})}}); }), SessionError::Kind::Unsupported);
}

// r is computed before several other values and read only by the branch: the slab must keep it until the If
// runs.
TEST(ControlFlow, ValuesReadOnlyByABodyStayAlive) {
  ModelBuilder m(17);
  m.input("c", DType::Bool, {}).input("x", DType::F32, {64});
  m.node("Neg", {"x"}, {"r"});
  m.node("Abs", {"x"}, {"a1"}).node("Exp", {"a1"}, {"a2"}).node("Add", {"a2", "a1"}, {"a3"});
  m.node("Mul", {"a3", "a3"}, {"a4"});
  m.node("If", {"c"}, {"y"},
         {Attr::graph("then_branch", branch("Add", "r", "a4", "t")),
          Attr::graph("else_branch", branch("Sub", "r", "a4", "e"))});
  m.output("y", DType::F32);
  std::vector<float> xs(64);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) * 0.25f - 8.0f;
  Tensor x = floats({64}, xs);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Session s = m.session(options(mode));
    std::vector<Tensor> out = s.run({{"c", scalar_bool(true)}, {"x", x}});
    std::vector<Tensor> a4 = [&] {
      ModelBuilder ref(17);
      ref.input("x", DType::F32, {64});
      ref.node("Abs", {"x"}, {"a1"}).node("Exp", {"a1"}, {"a2"}).node("Add", {"a2", "a1"}, {"a3"});
      ref.node("Mul", {"a3", "a3"}, {"a4"}).output("a4", DType::F32);
      return ref.run({{"x", x}}, options(mode));
    }();
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_EQ(out[0].data<float>()[i], -xs[i] + a4[0].data<float>()[i]) << i;
  }
}

// Counts up to a limit with a Loop whose body holds an If: many body plans and run states in flight at once.
TEST(ControlFlow, ConcurrentRunsOfOneSession) {
  ModelBuilder inner_then(17), inner_else(17);
  inner_then.node("Add", {"v", "one"}, {"t"}).output("t", DType::F32);
  inner_else.node("Sub", {"v", "one"}, {"e"}).output("e", DType::F32);
  ModelBuilder body(17);
  body.input("i", DType::I64, {}).input("cond", DType::Bool, {}).input("v", DType::F32, {2});
  body.node("Cast", {"i"}, {"fi"}, {Attr::i("to", 1)});
  body.node("Less", {"fi", "half"}, {"low"});
  body.node("If", {"low"}, {"v2"},
            {Attr::graph("then_branch", inner_then.graph("then")),
             Attr::graph("else_branch", inner_else.graph("else"))});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.output("cond_out", DType::Bool).output("v2", DType::F32).output("fi", DType::F32);
  ModelBuilder m(17);
  m.input("m", DType::I64, {}).input("v0", DType::F32, {2}).input("half", DType::F32, {});
  m.initializer("one", floats({1}, {1})).initializer("c", scalar_bool(true));
  m.node("Loop", {"m", "c", "v0"}, {"v", "iters"}, {Attr::graph("body", body.graph("body"))});
  m.output("v", DType::F32).output("iters", DType::F32);
  Session s = m.session(options(ExecutionMode::Exact, {}, 1));
  auto run_once = [&](int64_t trips) {
    Tensor count(DType::I64, {});
    count.data<int64_t>()[0] = trips;
    Tensor half(DType::F32, {});
    half.data<float>()[0] = static_cast<float>(trips) / 2;
    return s.run({{"m", count}, {"v0", floats({2}, {0, 5})}, {"half", half}});
  };
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 25; ++k) {
        const int64_t trips = (t + k) % 7;
        std::vector<Tensor> out = run_once(trips);
        // ceil(trips/2) additions, then the rest subtractions.
        const int64_t up = (trips + 1) / 2, down = trips - up;
        const float delta = static_cast<float>(up - down);
        bool ok = out[0].data<float>()[0] == delta && out[0].data<float>()[1] == 5 + delta &&
                  out[1].shape() ==
                      std::vector<int64_t>(trips ? std::vector<int64_t>{trips} : std::vector<int64_t>{0});
        for (int64_t i = 0; ok && i < trips; ++i) ok = out[1].data<float>()[i] == static_cast<float>(i);
        if (!ok) ++failures[static_cast<size_t>(t)];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

// Constants of the enclosing plan that a body reads (a weight, a shape computed at plan time) are bound into
// the body's plan. A plan made for other input shapes computes other constants: runs that alternate between
// shapes must each see their own, and the weight product must match a plain loop in both modes.
TEST(ControlFlow, BodiesSeeTheEnclosingPlansConstants) {
  const std::vector<float> w = {1.5f, -2, 0.25f, 3, -1, 0.5f};  // 2x3
  ModelBuilder then_body(17);
  then_body.node("MatMul", {"x", "w"}, {"p"}).node("Add", {"p", "rows"}, {"t"}).output("t", DType::F32);
  ModelBuilder else_body(17);
  else_body.node("MatMul", {"x", "w"}, {"p"}).node("Sub", {"p", "rows"}, {"e"}).output("e", DType::F32);
  ModelBuilder m(17);
  m.input("c", DType::Bool, {}).input("x", DType::F32, {-1, 2});
  m.initializer("w", floats({2, 3}, w));
  m.initializer("zero", Tensor::from(std::vector<int64_t>{0}, {1}));
  m.initializer("one", Tensor::from(std::vector<int64_t>{1}, {1}));
  // rows = float(x's first extent): a constant of each plan, different for each shape of x.
  m.node("Shape", {"x"}, {"shape"}).node("Slice", {"shape", "zero", "one"}, {"first"});
  m.node("Cast", {"first"}, {"rows"}, {Attr::i("to", 1)});
  m.node("If", {"c"}, {"y"},
         {Attr::graph("then_branch", then_body.graph("then")),
          Attr::graph("else_branch", else_body.graph("else"))});
  m.output("y", DType::F32);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Session s = m.session(options(mode));
    for (int64_t rows : {2, 5, 2, 7, 5}) {
      for (bool cond : {true, false}) {
        std::vector<float> x(static_cast<size_t>(rows * 2));
        for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 2.5f;
        std::vector<Tensor> out = s.run({{"c", scalar_bool(cond)}, {"x", floats({rows, 2}, x)}});
        ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{rows, 3}));
        std::vector<float> got = out[0].to_vector<float>();
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t j = 0; j < 3; ++j) {
            const float p = x[static_cast<size_t>(r * 2)] * w[static_cast<size_t>(j)] +
                            x[static_cast<size_t>(r * 2 + 1)] * w[static_cast<size_t>(3 + j)];
            const float want = cond ? p + static_cast<float>(rows) : p - static_cast<float>(rows);
            EXPECT_EQ(got[static_cast<size_t>(r * 3 + j)], want) << "rows " << rows << " cond " << cond;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace onemodel::test
