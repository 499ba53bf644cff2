// Session::load and Model::load of shared bytes (issue 7 item 2, docs/api.md): the session keeps the caller's
// buffer itself rather than a copy (the wasm bindings rely on it to copy a Uint8Array into the heap once), a
// buffer may serve several sessions, and the outcome equals that of loading the same bytes by span.
// load_shared does the same for bytes that another object keeps alive.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "format_test_util.h"
#include "onemodel/onemodel.h"

namespace onemodel::test {
namespace {

const std::filesystem::path kSource = ONEMODEL_SOURCE_DIR;

std::vector<std::shared_ptr<const std::vector<std::byte>>> both_formats(const char* model) {
  std::vector<std::byte> onnx = read_bytes(kSource / "examples/models" / model);
  std::vector<std::byte> converted = ModelFormat::convert(onnx);
  return {std::make_shared<const std::vector<std::byte>>(std::move(onnx)),
          std::make_shared<const std::vector<std::byte>>(std::move(converted))};
}

SessionOptions one_thread(ExecutionMode mode) {
  SessionOptions options;
  options.mode = mode;
  options.intra_op_threads = 1;
  return options;
}

// The outputs' bytes of one run on generated inputs.
std::vector<std::string> run_bytes(Session& session) {
  std::vector<std::string> result;
  for (const Tensor& t : session.run(generated_inputs(session))) {
    const auto b = t.bytes();
    result.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
  }
  return result;
}

TEST(SharedBytes, SessionHoldsTheCallersBufferAndComputesAsFromASpan) {
  for (const auto& bytes : both_formats("wide.onnx")) {
    const std::byte* data = bytes->data();
    std::weak_ptr<const std::vector<std::byte>> watch = bytes;
    {
      Session shared = Session::load(bytes, one_thread(ExecutionMode::Exact));
      // A session that copied the bytes would have let go of the caller's buffer by now.
      EXPECT_GT(watch.use_count(), 1);
      EXPECT_EQ(bytes->data(), data);
      Session copied = Session::load(std::span<const std::byte>(*bytes), one_thread(ExecutionMode::Exact));
      EXPECT_EQ(run_bytes(shared), run_bytes(copied));
    }
    EXPECT_EQ(watch.use_count(), 1);  // released with the session
  }
}

TEST(SharedBytes, OneBufferServesSeveralSessionsAndOutlivesTheCaller) {
  for (auto bytes : both_formats("classifier.onnx")) {
    const long before = bytes.use_count();
    Session fast = Session::load(bytes, one_thread(ExecutionMode::Fast));
    Model exact = Model::load(bytes, one_thread(ExecutionMode::Exact));
    EXPECT_GE(bytes.use_count(), before + 2);
    bytes.reset();  // the sessions keep it alive
    const std::vector<float> iris = {5.1f, 3.5f, 1.4f, 0.2f};
    const std::vector<std::byte> file = read_bytes(kSource / "examples/models/classifier.onnx");
    Model reference = Model::load(std::span<const std::byte>(file), one_thread(ExecutionMode::Exact));
    EXPECT_EQ(exact.run(std::span<const float>(iris)), reference.run(std::span<const float>(iris)));
    EXPECT_FALSE(run_bytes(fast).empty());
  }
}

TEST(SharedBytes, LoadSharedViewsBytesInsideALargerAllocation) {
  for (const auto& bytes : both_formats("wide.onnx")) {
    // The model 64 bytes into a larger block, kept alive through the block.
    auto block = std::make_shared<std::vector<std::byte>>(bytes->size() + 128);
    std::copy(bytes->begin(), bytes->end(), block->begin() + 64);
    const std::span<const std::byte> view(block->data() + 64, bytes->size());
    std::weak_ptr<const std::vector<std::byte>> watch = block;
    {
      Session shared = Session::load_shared(view, block, one_thread(ExecutionMode::Exact));
      Model model = Model::load_shared(view, block, one_thread(ExecutionMode::Exact));
      block.reset();
      EXPECT_FALSE(watch.expired());  // the sessions hold the block
      Session copied = Session::load(std::span<const std::byte>(*bytes), one_thread(ExecutionMode::Exact));
      EXPECT_EQ(run_bytes(shared), run_bytes(copied));
      EXPECT_EQ(run_bytes(model.session()), run_bytes(copied));
    }
    EXPECT_TRUE(watch.expired());
  }
}

TEST(SharedBytes, NullBufferIsInvalidInput) {
  try {
    Session::load(std::shared_ptr<const std::vector<std::byte>>(), {});
    FAIL() << "a null buffer was accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionError::Kind::InvalidInput);
  }
  const std::vector<std::byte> bytes = read_bytes(kSource / "examples/models/wide.onnx");
  try {
    Session::load_shared(bytes, nullptr, {});
    FAIL() << "shared bytes without an owner were accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionError::Kind::InvalidInput);
  }
}

}  // namespace
}  // namespace onemodel::test
