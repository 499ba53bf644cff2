#include "format/json.h"

#include <algorithm>

namespace onemodel::format {

namespace {

using Kind = ImportError::Kind;

class Parser {
 public:
  Parser(std::string_view text, int64_t base, const std::string& input_name)
      : text_(text), base_(base), input_name_(input_name) {}

  Json parse_document() {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '{') fail("the manifest is not a JSON object");
    Json root = parse_value(1);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected bytes after the manifest's JSON object");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& message, Kind kind = Kind::Malformed) const {
    throw ImportError(kind, message, input_name_, base_ + static_cast<int64_t>(pos_), "manifest");
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void expect_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("invalid JSON value");
    pos_ += word.size();
  }

  Json parse_value(int depth) {
    if (depth > kMaxJsonDepth) fail("JSON nesting deeper than 1024 levels", Kind::Unsupported);
    skip_space();
    if (pos_ >= text_.size()) fail("the manifest's JSON ends early");
    Json v;
    v.offset = base_ + static_cast<int64_t>(pos_);
    switch (text_[pos_]) {
      case '{':
        parse_object(v, depth);
        break;
      case '[':
        ++pos_;
        v.kind = Json::Kind::Array;
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          break;
        }
        for (;;) {
          v.items.push_back(parse_value(depth + 1));
          skip_space();
          if (pos_ < text_.size() && text_[pos_] == ',') {
            ++pos_;
          } else if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            break;
          } else {
            fail("expected ',' or ']' in a JSON array");
          }
        }
        break;
      case '"':
        v.kind = Json::Kind::String;
        v.text = parse_string();
        break;
      case 't':
        expect_word("true");
        v.kind = Json::Kind::Bool;
        v.boolean = true;
        break;
      case 'f':
        expect_word("false");
        v.kind = Json::Kind::Bool;
        break;
      case 'n':
        expect_word("null");
        break;
      default:
        parse_number(v);
        break;
    }
    return v;
  }

  void parse_object(Json& v, int depth) {
    ++pos_;
    v.kind = Json::Kind::Object;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string key in a JSON object");
      std::string key = parse_string();
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ':') fail("expected ':' after a JSON object key");
      ++pos_;
      v.members.push_back({std::move(key), parse_value(depth + 1)});
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
      } else if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        break;
      } else {
        fail("expected ',' or '}' in a JSON object");
      }
    }
    // Duplicate keys make the meaning depend on the reader; refuse them. Sorting views keeps this n log n.
    std::vector<std::string_view> keys;
    keys.reserve(v.members.size());
    for (const auto& m : v.members) keys.push_back(m.key);
    std::sort(keys.begin(), keys.end());
    const auto dup = std::adjacent_find(keys.begin(), keys.end());
    if (dup != keys.end()) {
      throw ImportError(Kind::Malformed, "duplicate JSON key \"" + std::string(*dup) + "\"", input_name_,
                        v.offset, "manifest");
    }
  }

  unsigned hex4() {
    if (text_.size() - pos_ < 4) fail("truncated \\u escape");
    unsigned value = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text_[pos_++];
      value <<= 4;
      if (c >= '0' && c <= '9') {
        value |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        value |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        value |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("invalid \\u escape");
      }
    }
    return value;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // The text is known to be valid UTF-8 (checked once for the whole manifest), so only escapes and control
  // characters need attention here.
  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated JSON string");
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("control character inside a JSON string");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      if (++pos_ >= text_.size()) fail("unterminated JSON escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u") fail("unpaired high surrogate in a \\u escape");
            pos_ += 2;
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("unpaired high surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail("invalid JSON escape");
      }
    }
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  void parse_number(Json& v) {
    const size_t start = pos_;
    const bool negative = text_[pos_] == '-';
    if (negative) ++pos_;
    if (pos_ >= text_.size() || !digit(text_[pos_])) fail("invalid JSON value");
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() && digit(text_[pos_ + 1])) {
      fail("JSON numbers have no leading zeros");
    }
    // Magnitude limit: 2^63 - 1, or 2^63 for a negative number.
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    uint64_t magnitude = 0;
    bool fits = true;
    while (pos_ < text_.size() && digit(text_[pos_])) {
      const auto d = static_cast<uint64_t>(text_[pos_++] - '0');
      if (magnitude > (limit - d) / 10) fits = false;
      if (fits) magnitude = magnitude * 10 + d;
    }
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (pos_ >= text_.size() || !digit(text_[pos_])) fail("invalid JSON number");
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || !digit(text_[pos_])) fail("invalid JSON number");
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    }
    if (pos_ == start) fail("invalid JSON value");
    if (integral && fits) {
      v.kind = Json::Kind::Integer;
      v.integer = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    } else {
      v.kind = Json::Kind::Number;
    }
  }

  std::string_view text_;
  int64_t base_;
  const std::string& input_name_;
  size_t pos_ = 0;
};

}  // namespace

const Json* Json::find(std::string_view key) const {
  for (const auto& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

Json parse_json(std::string_view text, int64_t base_offset, const std::string& input_name) {
  return Parser(text, base_offset, input_name).parse_document();
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

void JsonWriter::begin_object() {
  separate();
  out_ += '{';
  first_.push_back(true);
}

void JsonWriter::end_object() {
  out_ += '}';
  first_.pop_back();
}

void JsonWriter::begin_array() {
  separate();
  out_ += '[';
  first_.push_back(true);
}

void JsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
}

void JsonWriter::key(std::string_view name) {
  string(name);
  out_ += ':';
  after_key_ = true;
}

void JsonWriter::string(std::string_view value) {
  separate();
  static constexpr char kHex[] = "0123456789abcdef";
  out_ += '"';
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out_ += '\\';
      out_ += ch;
    } else if (c < 0x20) {
      out_ += "\\u00";
      out_ += kHex[c >> 4];
      out_ += kHex[c & 15];
    } else {
      out_ += ch;
    }
  }
  out_ += '"';
}

void JsonWriter::integer(int64_t value) {
  separate();
  out_ += std::to_string(value);
}

void JsonWriter::null() {
  separate();
  out_ += "null";
}

}  // namespace onemodel::format
