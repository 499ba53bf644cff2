// External data (onnx-import.md §5) and memory mapping (format.md §5): models written into a temporary
// directory whose weights live in side files. Good references load to the same graph as the model with
// embedded weights; hostile ones (named ExternalData-<case>) are refused with that kind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "format/file_bytes.h"
#include "format/format.h"
#include "format/format_test_util.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_reader.h"

namespace onemodel::test {
namespace {

namespace fs = std::filesystem;
using Kind = ImportError::Kind;

const std::vector<float> kWeights = {0.25f, -1.5f};

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("onemodel-external-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path_ / "sub");
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// x + w -> y, where w (float[2]) is either embedded or described by `entries` (key, value pairs).
Proto add_model(const Proto& w) {
  using namespace onnxb;
  return model(Proto()
                   .bytes(2, "g")
                   .msg(11, value("x"))
                   .msg(5, w)
                   .msg(1, node("Add", {"x", "w"}, {"y"}))
                   .msg(12, value("y")));
}

Proto external_w(const std::vector<std::pair<std::string, std::string>>& entries) {
  Proto t = onnxb::tensor("w", 1, {2});
  for (const auto& [key, value] : entries) t.msg(13, Proto().bytes(1, key).bytes(2, value));
  return t.varint(14, 1);
}

Proto embedded_model() {
  return add_model(onnxb::raw_floats("w", {kWeights[0], kWeights[1]}));
}

// A weights file holding kWeights at `offset`, preceded by `offset` bytes of 0xAB.
void write_weights(const fs::path& path, size_t offset) {
  std::vector<std::byte> bytes(offset, std::byte{0xAB});
  const auto* w = reinterpret_cast<const std::byte*>(kWeights.data());
  bytes.insert(bytes.end(), w, w + 8);
  write_bytes(path, bytes);
}

fs::path write_model(const TempDir& dir, const Proto& m) {
  const fs::path path = dir.path() / "model.onnx";
  write_bytes(path, m.data());
  return path;
}

TEST(ExternalData, GoodReferencesLoadLikeEmbeddedWeights) {
  const std::vector<std::byte> expected = ModelFormat::convert(embedded_model().data());
  struct Good {
    const char* label;
    std::vector<std::pair<std::string, std::string>> entries;
    const char* file;
    size_t offset;
  };
  const std::vector<Good> cases = {
      {"plain", {{"location", "w.bin"}}, "w.bin", 0},
      {"offset and length", {{"location", "w.bin"}, {"offset", "128"}, {"length", "8"}}, "w.bin", 128},
      {"subdirectory", {{"location", "sub/w.bin"}, {"checksum", "ignored"}}, "sub/w.bin", 0},
      {"dot segment", {{"location", "./sub/./w.bin"}}, "sub/w.bin", 0},
      {"last key wins", {{"location", "nowhere.bin"}, {"location", "w.bin"}}, "w.bin", 0},
      {"mapped file", {{"location", "w.bin"}, {"offset", std::to_string(3 << 20)}}, "w.bin", 3 << 20},
  };
  for (const Good& g : cases) {
    TempDir dir;
    write_weights(dir.path() / g.file, g.offset);
    const fs::path path = write_model(dir, add_model(external_w(g.entries)));
    // The converted file carries the weights itself: it equals the conversion of the embedded model.
    const ir::Model m = onnx::import_model_file(path);
    EXPECT_EQ(format::write_model(m), expected) << g.label;
    const fs::path converted = dir.path() / "model.onemodel";
    ModelFormat::convert(path, converted);
    EXPECT_EQ(read_bytes(converted), expected) << g.label;
    // And it runs: x + w.
    Model model = Model::load(path);
    const std::vector<float> y = model.run(std::vector<float>{1.0f, 2.0f});
    EXPECT_EQ(y, (std::vector<float>{1.0f + kWeights[0], 2.0f + kWeights[1]})) << g.label;
  }
}

TEST(ExternalData, SymlinkInsideTheDirectoryIsFollowed) {
  TempDir dir;
  write_weights(dir.path() / "sub" / "real.bin", 0);
  fs::create_symlink("sub/real.bin", dir.path() / "link.bin");
  const fs::path path = write_model(dir, add_model(external_w({{"location", "link.bin"}})));
  EXPECT_EQ(format::write_model(onnx::import_model_file(path)),
            ModelFormat::convert(embedded_model().data()));
}

struct HostileExternal {
  std::string name;
  std::vector<std::pair<std::string, std::string>> entries;
  Kind kind = Kind::ExternalData;
};

TEST(ExternalData, HostileReferencesAreRefused) {
  TempDir outside;
  write_weights(outside.path() / "secret.bin", 0);
  const std::vector<HostileExternal> cases = {
      {"ExternalData-no-location", {{"offset", "0"}}},
      {"ExternalData-empty-location", {{"location", ""}}},
      {"ExternalData-absolute-path", {{"location", (outside.path() / "secret.bin").string()}}},
      {"ExternalData-backslash-rooted", {{"location", "\\w.bin"}}},
      {"ExternalData-drive-letter", {{"location", "C:w.bin"}}},
      {"ExternalData-dot-dot", {{"location", "../secret.bin"}}},
      {"ExternalData-dot-dot-inside", {{"location", "sub/../../secret.bin"}}},
      {"ExternalData-dot-dot-backslash", {{"location", "sub\\..\\w.bin"}}},
      {"ExternalData-nul-byte", {{"location", std::string("w.bin\0x", 7)}}},
      {"ExternalData-missing-file", {{"location", "absent.bin"}}},
      {"ExternalData-directory", {{"location", "sub"}}},
      {"ExternalData-symlink-escapes", {{"location", "escape.bin"}}},
      {"ExternalData-symlinked-dir-escapes", {{"location", "outside/secret.bin"}}},
      {"ExternalData-offset-past-end", {{"location", "w.bin"}, {"offset", "1"}}},
      {"ExternalData-offset-huge", {{"location", "w.bin"}, {"offset", "9223372036854775807"}}},
      {"ExternalData-offset-above-2p63", {{"location", "w.bin"}, {"offset", "18446744073709551615"}}},
      {"ExternalData-offset-negative", {{"location", "w.bin"}, {"offset", "-1"}}},
      {"ExternalData-offset-hex", {{"location", "w.bin"}, {"offset", "0x0"}}},
      {"ExternalData-offset-empty", {{"location", "w.bin"}, {"offset", ""}}},
      {"ExternalData-length-mismatch", {{"location", "w.bin"}, {"length", "4"}}},
      {"ExternalData-length-with-sign", {{"location", "w.bin"}, {"length", "+8"}}},
  };
  std::set<std::string> names;
  for (const HostileExternal& c : cases) {
    ASSERT_TRUE(names.insert(c.name).second);
    TempDir dir;
    write_weights(dir.path() / "w.bin", 0);
    fs::create_symlink(outside.path() / "secret.bin", dir.path() / "escape.bin");
    fs::create_directory_symlink(outside.path(), dir.path() / "outside");
    const fs::path path = write_model(dir, add_model(external_w(c.entries)));
    try {
      onnx::import_model_file(path);
      ADD_FAILURE() << c.name << " was accepted";
    } catch (const ImportError& e) {
      EXPECT_EQ(e.kind(), c.kind) << c.name << ": " << e.what();
      EXPECT_EQ(e.field_path().find("external_data") != std::string::npos, true) << e.what();
    }
  }
  // Bytes in memory name no directory, so even a good reference is refused.
  try {
    onnx::import_model(add_model(external_w({{"location", "w.bin"}})).data(), nullptr);
    ADD_FAILURE() << "external data accepted without a directory";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.kind(), Kind::ExternalData);
    EXPECT_EQ(e.field_path(), "ModelProto.graph.initializer[0].data_location");
  }
}

bool mapped_in_process(const fs::path& file) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const std::string name = fs::canonical(file).string();
  while (std::getline(maps, line)) {
    if (line.size() >= name.size() && line.compare(line.size() - name.size(), name.size(), name) == 0)
      return true;
  }
  return false;
}

TEST(MemoryMapping, FilesFromOneMebibyteAreMappedSmallerOnesRead) {
  TempDir dir;
  const fs::path small = dir.path() / "small.bin", large = dir.path() / "large.bin";
  write_bytes(small, std::vector<std::byte>(format::kMapThreshold - 1, std::byte{1}));
  write_bytes(large, std::vector<std::byte>(format::kMapThreshold, std::byte{2}));
  EXPECT_FALSE(format::load_file(small, "small").mapped);
  {
    const format::FileBytes f = format::load_file(large, "large");
    EXPECT_TRUE(f.mapped);
    EXPECT_EQ(f.bytes.size(), format::kMapThreshold);
    EXPECT_EQ(f.bytes[12345], std::byte{2});
    EXPECT_TRUE(mapped_in_process(large));
  }
  EXPECT_FALSE(mapped_in_process(large));  // released with its owner
}

TEST(MemoryMapping, LargeOneModelFileTensorsViewTheMapping) {
  TempDir dir;
  // A 512x512 float initializer makes the converted file larger than 1 MiB.
  std::vector<float> big(512 * 512);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 97) * 0.5f;
  Proto w = onnxb::tensor("w", 1, {512, 512});
  w.bytes(9, std::span(reinterpret_cast<const std::byte*>(big.data()), big.size() * 4));
  using namespace onnxb;
  const Proto m = model(Proto()
                            .bytes(2, "g")
                            .msg(11, value("x", 1, {512, 512}))
                            .msg(5, w)
                            .msg(1, node("Add", {"x", "w"}, {"y"}))
                            .msg(12, value("y", 1, {512, 512})));
  const fs::path onnx_path = write_model(dir, m), converted = dir.path() / "big.onemodel";
  ModelFormat::convert(onnx_path, converted);
  ASSERT_GE(fs::file_size(converted), format::kMapThreshold);
  {
    const ir::Model loaded = onnx::import_model_file(converted);
    EXPECT_TRUE(mapped_in_process(converted));
    const auto& t = loaded.graph->initializers.at(0);
    ASSERT_EQ(t.bytes.size(), big.size() * 4);
    EXPECT_EQ(0, std::memcmp(t.bytes.data(), big.data(), t.bytes.size()));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.bytes.data()) % 64, 0u);  // aligned in the page-aligned mapping
  }
  EXPECT_FALSE(mapped_in_process(converted));
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    SessionOptions options;
    options.mode = mode;
    Session a = Session::load(onnx_path, options), b = Session::load(converted, options);
    const auto feeds = generated_inputs(a);
    const auto ya = a.run(feeds), yb = b.run(feeds);
    ASSERT_EQ(ya.size(), 1u);
    EXPECT_TRUE(std::equal(ya[0].bytes().begin(), ya[0].bytes().end(), yb[0].bytes().begin()));
  }
}

}  // namespace
}  // namespace onemodel::test
