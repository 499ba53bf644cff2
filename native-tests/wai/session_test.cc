// IntSession::run (wai-ops/1 §4, §10.3): the four run-time refusal steps come in order, and a refused decode
// changes no state while a completed one carries the state output forward.
#include <gtest/gtest.h>

#include "onemodel/wai.h"
#include "wai/model.h"

namespace onemodel::wai {
namespace {

// input 0 [1, H, W] check [-9, 9]; scalar 0 in [0, 3]; crop(y0 = 0, x0 = scalar 0, h = 1, w = 1).
Graph crop_graph() {
  Model m;
  m.max_elems = 64;
  m.scalars.push_back({0, 3});
  m.inputs.push_back({.tensor = 0});
  m.outputs = {1};
  m.tensors.push_back({.channels = 1, .policy = Policy::Check, .lo = -9, .hi = 9});
  m.tensors.push_back({.channels = 1});
  Node crop;
  crop.op = Op::Crop;
  crop.in = {0};
  crop.out = {1};
  crop.crop = {Operand{false, 0}, Operand{true, 0}, Operand{false, 1}, Operand{false, 1}};
  m.nodes.push_back(crop);
  return Graph::load(write_whg1(m));
}

IntTensor tensor(int64_t c, int64_t h, int64_t w, int64_t fill) {
  return {{c, h, w}, std::vector<int64_t>(size_t(c * h * w), fill)};
}

Refusal refusal(const Graph& g, const IntTensor& x, int64_t scalar) {
  State state;
  const std::vector<IntTensor> inputs{x};
  const std::vector<int64_t> scalars{scalar};
  return IntSession(g).run(inputs, scalars, state).refusal;
}

TEST(WaiSession, RunStepsComeInOrder) {
  const Graph g = crop_graph();
  EXPECT_EQ(refusal(g, tensor(1, 1, 4, 5), 3), Refusal::None);
  // Step 4 alone: a value outside the input's check range.
  EXPECT_EQ(refusal(g, tensor(1, 1, 4, 10), 3), Refusal::FieldRange);
  // Step 3 before step 4: the crop does not fit a narrower input, whatever the values.
  EXPECT_EQ(refusal(g, tensor(1, 1, 3, 10), 3), Refusal::GeometryMismatch);
  // Step 2 before step 3: the scalar is outside its range.
  EXPECT_EQ(refusal(g, tensor(1, 1, 3, 10), 4), Refusal::FieldRange);
  // Step 1 before step 2: the input passes max_elems, then a wrong channel count.
  EXPECT_EQ(refusal(g, tensor(1, 8, 9, 10), 4), Refusal::TooLarge);
  EXPECT_EQ(refusal(g, tensor(2, 1, 3, 10), 4), Refusal::ModelMismatch);
}

// input 0 [1, H, W] check [-100, 100]; state input 1 clamp [-50, 50], init 7, fed by output 1;
// tensor 2 = add(input, state) with check [-60, 60]; outputs: tensor 2 and (as output 1) tensor 2.
TEST(WaiSession, StateCarriesOnlyAcrossCompletedDecodes) {
  Model m;
  m.inputs.push_back({.tensor = 0});
  m.inputs.push_back({.tensor = 1, .kind = InputKind::State, .src = 1, .init = 7});
  m.outputs = {2, 2};
  m.tensors.push_back({.channels = 1, .policy = Policy::Check, .lo = -100, .hi = 100});
  m.tensors.push_back({.channels = 1, .policy = Policy::Clamp, .lo = -50, .hi = 50});
  m.tensors.push_back({.channels = 1, .policy = Policy::Check, .lo = -60, .hi = 60});
  Node add;
  add.op = Op::Add;
  add.in = {0, 1};
  add.out = {2};
  m.nodes.push_back(add);
  const IntSession session(Graph::load(write_whg1(m)));
  State state;
  auto run = [&](std::vector<int64_t> x) {
    const std::vector<IntTensor> in{{{1, 1, int64_t(x.size())}, x}};
    return session.run(in, {}, state);
  };
  RunResult r = run({1, -2});  // the state starts as init = 7 at input 0's size
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.outputs[0].data, (std::vector<int64_t>{8, 5}));
  r = run({40, 0});  // 40 + 8 = 48 is fine; the state becomes {48, 5}
  ASSERT_TRUE(r.ok()) << r.message;
  const State before = state;
  r = run({20, 0});  // 20 + 48 = 68 fails tensor 2's check: refused, and the state is unchanged
  EXPECT_EQ(r.refusal, Refusal::FieldRange);
  EXPECT_TRUE(r.outputs.empty());
  EXPECT_EQ(state.tensors[0].data, before.tensors[0].data);
  r = run({1, 1});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.outputs[0].data, (std::vector<int64_t>{49, 6}));
  r = run({1, 1, 1});  // the carried state no longer matches the input's size: add's plan refuses
  EXPECT_EQ(r.refusal, Refusal::GeometryMismatch);
  r = run({6, 0});  // 55 is inside tensor 2's check range and becomes the state
  ASSERT_TRUE(r.ok()) << r.message;
  r = run({0, 0});  // the state input's own clamp policy turns 55 into 50
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.outputs[0].data, (std::vector<int64_t>{50, 6}));
}

}  // namespace
}  // namespace onemodel::wai
