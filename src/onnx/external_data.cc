#include "onnx/external_data.h"

#include "format/file_bytes.h"

namespace onemodel::onnx {

namespace {

namespace fs = std::filesystem;
using Kind = ImportError::Kind;

// §5.1: relative, not empty, no NUL, not rooted in any platform's way, no ".." segment.
const char* location_problem(const std::string& location) {
  if (location.empty()) return "is empty";
  if (location.find('\0') != std::string::npos) return "contains a NUL byte";
  if (location[0] == '/' || location[0] == '\\') return "is an absolute path";
  if (location.size() >= 2 && location[1] == ':') return "starts with a drive letter";
  if (fs::path(location).is_absolute() || fs::path(location).has_root_path()) return "is an absolute path";
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos) end = location.size();
    if (location.compare(start, end - start, "..") == 0 && end - start == 2) return "has a '..' segment";
    start = end + 1;
  }
  return nullptr;
}

// A non-negative decimal integer below 2^63, or -1.
int64_t parse_decimal(const std::string& text) {
  if (text.empty() || text.size() > 19) return -1;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(v);
}

// True when `inner` lies inside `dir` (both canonical): every component of dir starts inner.
bool is_inside(const fs::path& inner, const fs::path& dir) {
  auto i = inner.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++i) {
    if (d->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *d) return false;
  }
  return true;
}

[[noreturn]] void refuse(const ReadContext& rc, const ExternalDataRef& ref, const std::string& message) {
  rc.wire.fail(Kind::ExternalData, message, ref.offset, "external_data");
}

}  // namespace

std::span<const std::byte> load_external_data(ReadContext& rc, const ExternalDataRef& ref) {
  const auto fail = [&](const std::string& message) { refuse(rc, ref, message); };
  const std::string* location = nullptr;
  const std::string* offset_text = nullptr;
  const std::string* length_text = nullptr;
  for (const auto& [key, value] : ref.entries) {  // a repeated key: the last one wins
    if (key == "location") location = &value;
    if (key == "offset") offset_text = &value;
    if (key == "length") length_text = &value;
  }
  if (!location) fail("external data without a location");
  if (const char* problem = location_problem(*location)) fail("location '" + *location + "' " + problem);
  const int64_t offset = offset_text ? parse_decimal(*offset_text) : 0;
  if (offset < 0) fail("offset '" + *offset_text + "' is not a non-negative decimal integer");
  const int64_t length = length_text ? parse_decimal(*length_text) : ref.expected_bytes;
  if (length < 0) fail("length '" + *length_text + "' is not a non-negative decimal integer");
  if (length != ref.expected_bytes) {
    fail("length " + std::to_string(length) + " differs from the " + std::to_string(ref.expected_bytes) +
         " bytes the dims need");
  }
  if (!rc.external || rc.external->dir.empty()) {
    rc.wire.fail(Kind::ExternalData, "external data needs a directory: load the model from a file path",
                 ref.offset, "data_location");
  }

  // §5.2: resolve every link, then require a regular file inside the resolved directory.
  std::error_code ec;
  const fs::path dir = fs::canonical(rc.external->dir, ec);
  if (ec) fail("the external-data directory cannot be resolved: " + ec.message());
  const fs::path file = fs::canonical(dir / *location, ec);
  if (ec) fail("'" + *location + "' cannot be resolved: " + ec.message());
  if (!is_inside(file, dir)) fail("'" + *location + "' resolves outside the model's directory");
  if (!fs::is_regular_file(file, ec)) fail("'" + *location + "' is not a regular file");

  auto it = rc.external->opened.find(file);
  if (it == rc.external->opened.end()) {
    format::FileBytes bytes = format::load_file(file, file.string());
    rc.storage.push_back(std::move(bytes.owner));
    it = rc.external->opened.emplace(file, bytes.bytes).first;
  }
  const std::span<const std::byte> whole = it->second;
  // Both values are below 2^63, so the unsigned sum is exact.
  if (static_cast<uint64_t>(offset) + static_cast<uint64_t>(length) > whole.size()) {
    fail("bytes " + std::to_string(offset) + "+" + std::to_string(length) + " run past the end of '" +
         *location + "' (" + std::to_string(whole.size()) + " bytes)");
  }
  return whole.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
}

}  // namespace onemodel::onnx
