#include "core/npy.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string_view>

#include "core/shape.h"
#include "onemodel/error.h"

namespace onemodel::npy {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kPreambleV1 = 10;  // magic, two version bytes, 16-bit header length
constexpr size_t kPreambleV2 = 12;  // ... 32-bit header length
constexpr size_t kAlignment = 64;   // NumPy pads the header so the data starts on a 64-byte boundary
// A file may hold at most a maximal tensor plus a generous header; anything larger is refused before reading.
constexpr uint64_t kMaxFileBytes = uint64_t{0x7FFFFFFF} + (uint64_t{1} << 20);

struct NpyType {
  char kind;
  int size;
  DType dtype;
};

constexpr NpyType kTypes[] = {
    {'f', 4, DType::F32}, {'f', 8, DType::F64}, {'f', 2, DType::F16}, {'i', 1, DType::I8},
    {'i', 2, DType::I16}, {'i', 4, DType::I32}, {'i', 8, DType::I64}, {'u', 1, DType::U8},
    {'u', 2, DType::U16}, {'u', 4, DType::U32}, {'u', 8, DType::U64}, {'b', 1, DType::Bool},
};

[[noreturn]] void fail(ImportError::Kind kind, const std::string& name, const std::string& message,
                       int64_t offset = -1) {
  throw ImportError(kind, "npy: " + message, name, offset);
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// The header is a Python dict literal with exactly the keys 'descr' (a string), 'fortran_order' (True/False)
// and 'shape' (a tuple of non-negative integers). This grammar accepts what NumPy writes and nothing it could
// not read.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name, int64_t offset)
      : text_(text), name_(name), offset_(offset) {}

  Header parse() {
    Header header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    skip_space();
    expect('{');
    skip_space();
    while (!consume('}')) {
      std::string_view key = parse_string();
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        mark(seen_descr, key);
        header.descr = std::string(parse_string());
      } else if (key == "fortran_order") {
        mark(seen_order, key);
        header.fortran_order = parse_bool();
      } else if (key == "shape") {
        mark(seen_shape, key);
        header.shape = parse_shape();
      } else {
        malformed("unexpected header key '" + std::string(key) + "'");
      }
      skip_space();
      if (!consume(',')) {
        expect('}');
        break;
      }
      skip_space();
    }
    skip_space();
    if (pos_ != text_.size()) malformed("unexpected text after the header dict");
    if (!seen_descr || !seen_order || !seen_shape) {
      malformed("the header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  [[noreturn]] void malformed(const std::string& message) const {
    fail(ImportError::Kind::Malformed, name_, message, offset_ + static_cast<int64_t>(pos_));
  }
  void mark(bool& seen, std::string_view key) const {
    if (seen) malformed("duplicate header key '" + std::string(key) + "'");
    seen = true;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  void skip_space() {
    while (!at_end() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool consume(char c) {
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!consume(c)) malformed(std::string("expected '") + c + "' in the header");
  }
  bool consume_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::string_view parse_string() {
    if (at_end() || (text_[pos_] != '\'' && text_[pos_] != '"')) malformed("expected a quoted string");
    char quote = text_[pos_++];
    size_t start = pos_;
    while (!at_end() && text_[pos_] != quote) {
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      // No escapes and nothing outside printable ASCII: every valid key and dtype string is plain text.
      if (c == '\\' || c < 0x20 || c > 0x7E) malformed("unsupported character in a header string");
      ++pos_;
    }
    if (at_end()) malformed("unterminated string in the header");
    return text_.substr(start, pos_++ - start);
  }

  bool parse_bool() {
    if (consume_word("True")) return true;
    if (consume_word("False")) return false;
    malformed("'fortran_order' must be True or False");
  }

  int64_t parse_extent() {
    if (at_end() || text_[pos_] < '0' || text_[pos_] > '9')
      malformed("a shape entry must be a non-negative integer");
    int64_t value = 0;
    while (!at_end() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      value = value * 10 + (text_[pos_++] - '0');
      if (value > std::numeric_limits<int32_t>::max()) {
        fail(ImportError::Kind::Unsupported, name_, "a shape extent exceeds 2^31-1");
      }
    }
    return value;
  }

  // "()", "(n,)", "(n, m)" or "(n, m,)". A one-element tuple needs its comma: "(n)" is an integer in Python.
  std::vector<int64_t> parse_shape() {
    std::vector<int64_t> shape;
    expect('(');
    skip_space();
    bool trailing_comma = false;
    while (!consume(')')) {
      if (shape.size() == static_cast<size_t>(kMaxRank)) {
        fail(ImportError::Kind::Unsupported, name_,
             "rank above " + std::to_string(kMaxRank) + " is not supported");
      }
      shape.push_back(parse_extent());
      skip_space();
      trailing_comma = consume(',');
      skip_space();
      if (!trailing_comma) {
        expect(')');
        break;
      }
    }
    if (shape.size() == 1 && !trailing_comma) malformed("a one-element shape must be written '(n,)'");
    return shape;
  }

  std::string_view text_;
  const std::string& name_;
  int64_t offset_;
  size_t pos_ = 0;
};

uint32_t read_le(const std::byte* p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

const NpyType& parse_descr(const std::string& descr, const std::string& name) {
  if (descr.size() >= 3) {
    char order = descr[0];
    std::string_view rest = std::string_view(descr).substr(1);
    for (const NpyType& t : kTypes) {
      if (rest.size() != 2 || rest[0] != t.kind || rest[1] != static_cast<char>('0' + t.size)) continue;
      // '|' (not applicable) and '>' only make sense, and only keep our byte order, for one-byte types.
      bool little = order == '<' || order == '=' || ((order == '|' || order == '>') && t.size == 1);
      if (little) return t;
      if (order == '>')
        fail(ImportError::Kind::Unsupported, name, "big-endian data ('" + descr + "') is not supported");
      break;
    }
  }
  fail(ImportError::Kind::Unsupported, name, "dtype '" + descr + "' is not supported");
}

const NpyType& npy_type_of(DType dtype) {
  for (const NpyType& t : kTypes) {
    if (t.dtype == dtype) return t;
  }
  fail(ImportError::Kind::Unsupported, {},
       "element type " + std::string(dtype_name(dtype)) + " has no NumPy dtype and cannot be written");
}

std::string header_text(const Tensor& tensor) {
  const NpyType& t = npy_type_of(tensor.dtype());
  std::string text = "{'descr': '";
  text += t.size == 1 ? '|' : '<';
  text += t.kind;
  text += static_cast<char>('0' + t.size);
  text += "', 'fortran_order': False, 'shape': (";
  const auto& shape = tensor.shape();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ',';
  text += "), }";
  size_t unpadded = kPreambleV1 + text.size() + 1;  // + the closing newline
  text.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  text += '\n';
  return text;
}

}  // namespace

Tensor read(std::span<const std::byte> bytes, const std::string& name) {
  if (bytes.size() < kPreambleV1 || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    fail(ImportError::Kind::Malformed, name, "not a .npy file (bad magic)", 0);
  }
  auto major = static_cast<unsigned>(bytes[6]), minor = static_cast<unsigned>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    fail(ImportError::Kind::Unsupported, name,
         "format version " + std::to_string(major) + "." + std::to_string(minor) + " is not supported", 6);
  }
  size_t preamble = major == 1 ? kPreambleV1 : kPreambleV2;
  if (bytes.size() < preamble) fail(ImportError::Kind::Malformed, name, "truncated header length", 8);
  uint64_t header_len = read_le(bytes.data() + 8, preamble - 8);
  if (header_len > bytes.size() - preamble) {
    fail(ImportError::Kind::Malformed, name, "header length runs past the end of the file", 8);
  }
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + preamble,
                        static_cast<size_t>(header_len));
  Header header = HeaderParser(text, name, static_cast<int64_t>(preamble)).parse();

  const NpyType& type = parse_descr(header.descr, name);
  if (header.fortran_order)
    fail(ImportError::Kind::Unsupported, name, "Fortran-order arrays are not supported");
  std::string problem = shape_problem(header.shape, static_cast<size_t>(type.size));
  if (!problem.empty()) fail(ImportError::Kind::Unsupported, name, "shape: " + problem);

  size_t data_offset = preamble + static_cast<size_t>(header_len);
  size_t available = bytes.size() - data_offset;
  // shape_problem bounded the product, so this cannot overflow; checked before allocating anything.
  size_t expected = static_cast<size_t>(type.size);
  for (int64_t extent : header.shape) expected *= static_cast<size_t>(extent);
  if (available != expected) {
    fail(ImportError::Kind::Malformed, name,
         "expected " + std::to_string(expected) + " data bytes, found " + std::to_string(available),
         static_cast<int64_t>(data_offset));
  }
  Tensor tensor(type.dtype, header.shape);
  if (expected == 0) return tensor;
  std::memcpy(tensor.raw(), bytes.data() + data_offset, expected);
  if (type.dtype == DType::Bool) {
    // Any non-zero byte is true; the tensor layer stores bools as exactly 0 or 1.
    auto* b = static_cast<uint8_t*>(tensor.raw());
    for (size_t i = 0; i < expected; ++i) b[i] = b[i] != 0;
  }
  return tensor;
}

Tensor read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(ImportError::Kind::Io, path.string(), "cannot open the file");
  auto end = in.tellg();
  if (end < 0) fail(ImportError::Kind::Io, path.string(), "cannot read the file size");
  auto size = static_cast<uint64_t>(end);
  if (size > kMaxFileBytes)
    fail(ImportError::Kind::Unsupported, path.string(), "file larger than any tensor");
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    fail(ImportError::Kind::Io, path.string(), "cannot read the file");
  }
  return read(bytes, path.string());
}

std::vector<std::byte> write(const Tensor& tensor) {
  std::string header = header_text(tensor);
  if (header.size() > 0xFFFF)
    fail(ImportError::Kind::Unsupported, {}, "shape too long for a version 1.0 header");
  std::vector<std::byte> out(kPreambleV1 + header.size() + tensor.byte_size());
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  out[6] = std::byte{1};
  out[7] = std::byte{0};
  out[8] = static_cast<std::byte>(header.size() & 0xFF);
  out[9] = static_cast<std::byte>(header.size() >> 8);
  std::memcpy(out.data() + kPreambleV1, header.data(), header.size());
  if (tensor.byte_size() > 0)
    std::memcpy(out.data() + kPreambleV1 + header.size(), tensor.raw(), tensor.byte_size());
  return out;
}

void write_file(const std::filesystem::path& path, const Tensor& tensor) {
  std::vector<std::byte> bytes = write(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out ||
      !out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()))) {
    fail(ImportError::Kind::Io, path.string(), "cannot write the file");
  }
}

}  // namespace onemodel::npy
