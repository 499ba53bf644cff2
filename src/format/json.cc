#include "format/json.h"

#include <algorithm>

namespace onemodel::format {

using Kind = ImportError::Kind;

// Builds a JsonDocument's tokens in one pass over the text. Every failure is reported at the byte where it
// was found.
class JsonParser {
 public:
  JsonParser(std::string_view text, int64_t base, const std::string& input_name)
      : text_(text), base_(base), input_name_(input_name) {}

  JsonDocument parse_document() {
    doc_.text_ = text_;
    doc_.base_ = base_;
    doc_.tokens_.reserve(token_bound());
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '{') fail("the manifest is not a JSON object");
    parse_value(1);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected bytes after the manifest's JSON object");
    return std::move(doc_);
  }

 private:
  [[noreturn]] void fail(const std::string& message, Kind kind = Kind::Malformed) const {
    throw ImportError(kind, message, input_name_, base_ + static_cast<int64_t>(pos_), "manifest");
  }

  // Every value but the first follows one of , : [ { outside a string, so this bounds the token count of a
  // valid document: the tokens are allocated once, and a file without those bytes cannot ask for much.
  size_t token_bound() const {
    size_t n = 1;
    bool in_string = false;
    for (size_t i = 0; i < text_.size(); ++i) {
      const char c = text_[i];
      if (in_string) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == ',' || c == ':' || c == '[' || c == '{') {
        ++n;
      }
    }
    return n;
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

  // Appends a token for the value at pos_ (a String when a key is read) and returns its index.
  uint32_t add_token(JsonKind kind) {
    JsonToken t;
    t.kind = kind;
    t.pos = static_cast<uint32_t>(pos_);
    doc_.tokens_.push_back(t);
    return static_cast<uint32_t>(doc_.tokens_.size() - 1);
  }

  // Ends an Array or Object of `size` items or members at the last token added.
  void close_container(uint32_t index, uint32_t size) {
    doc_.tokens_[index].a = static_cast<uint32_t>(doc_.tokens_.size());
    doc_.tokens_[index].b = size;
  }

  void parse_value(int depth) {
    if (depth > kMaxJsonDepth) fail("JSON nesting deeper than 1024 levels", Kind::Unsupported);
    skip_space();
    if (pos_ >= text_.size()) fail("the manifest's JSON ends early");
    switch (text_[pos_]) {
      case '{':
        parse_object(depth);
        return;
      case '[':
        parse_array(depth);
        return;
      case '"':
        parse_string();
        return;
      case 't':  // the manifest stores no booleans: only the kind is kept, for type errors
        add_token(JsonKind::Bool);
        expect_word("true");
        return;
      case 'f':
        add_token(JsonKind::Bool);
        expect_word("false");
        return;
      case 'n':
        add_token(JsonKind::Null);
        expect_word("null");
        return;
      default:
        parse_number();
        return;
    }
  }

  bool consume(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  // The members of an array or object after its opening bracket, each read by `member`, up to `close`;
  // returns how many there were.
  template <class Member>
  uint32_t parse_members(char close, const char* separator_error, Member member) {
    ++pos_;
    skip_space();
    if (consume(close)) return 0;
    for (uint32_t count = 1;; ++count) {
      member();
      skip_space();
      if (consume(close)) return count;
      if (!consume(',')) fail(separator_error);
    }
  }

  void parse_array(int depth) {
    const uint32_t t = add_token(JsonKind::Array);
    close_container(
        t, parse_members(']', "expected ',' or ']' in a JSON array", [&] { parse_value(depth + 1); }));
  }

  void parse_object(int depth) {
    const uint32_t t = add_token(JsonKind::Object);
    const uint32_t count = parse_members('}', "expected ',' or '}' in a JSON object", [&] {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string key in a JSON object");
      parse_string();
      skip_space();
      if (!consume(':')) fail("expected ':' after a JSON object key");
      parse_value(depth + 1);
    });
    close_container(t, count);
    // Duplicate keys make the meaning depend on the reader; refuse them. Sorting views keeps this n log n.
    keys_.clear();
    const JsonValue object(&doc_, t);
    for (uint32_t k = t + 1; k < doc_.tokens_[t].a; k = doc_.next(k + 1)) {
      keys_.push_back(JsonValue(&doc_, k).text());
    }
    std::sort(keys_.begin(), keys_.end());
    const auto dup = std::adjacent_find(keys_.begin(), keys_.end());
    if (dup != keys_.end()) {
      throw ImportError(Kind::Malformed, "duplicate JSON key \"" + std::string(*dup) + "\"", input_name_,
                        object.offset(), "manifest");
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
  // characters need attention here. A string without escapes stays a view of the text; the first escape
  // moves it to the decoded buffer.
  void parse_string() {
    const uint32_t t = add_token(JsonKind::String);
    ++pos_;  // opening quote
    const size_t first = pos_;
    std::string* out = nullptr;
    size_t out_start = 0;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated JSON string");
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') break;
      if (c < 0x20) fail("control character inside a JSON string");
      if (c != '\\') {
        if (out) *out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      if (!out) {
        out = &doc_.decoded_;
        out_start = out->size();
        out->append(text_.substr(first, pos_ - first));
      }
      if (++pos_ >= text_.size()) fail("unterminated JSON escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          *out += e;
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'n':
          *out += '\n';
          break;
        case 'r':
          *out += '\r';
          break;
        case 't':
          *out += '\t';
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
          append_utf8(*out, cp);
          break;
        }
        default:
          fail("invalid JSON escape");
      }
    }
    JsonToken& token = doc_.tokens_[t];
    token.decoded = out != nullptr;
    token.a = static_cast<uint32_t>(out ? out_start : first);
    token.b = static_cast<uint32_t>(out ? out->size() - out_start : pos_ - first);
    ++pos_;  // closing quote
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  void parse_number() {
    const uint32_t t = add_token(JsonKind::Number);
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
      const uint64_t bits = negative ? 0 - magnitude : magnitude;
      JsonToken& token = doc_.tokens_[t];
      token.kind = JsonKind::Integer;
      token.a = static_cast<uint32_t>(bits);
      token.b = static_cast<uint32_t>(bits >> 32);
    }
  }

  std::string_view text_;
  int64_t base_;
  const std::string& input_name_;
  size_t pos_ = 0;
  JsonDocument doc_;
  std::vector<std::string_view> keys_;  // scratch for the duplicate-key check
};

const JsonToken& JsonValue::token() const {
  return doc_->tokens_[index_];
}

int64_t JsonValue::offset() const {
  return doc_->base_ + token().pos;
}

int64_t JsonValue::integer() const {
  const JsonToken& t = token();
  return static_cast<int64_t>(uint64_t{t.a} | uint64_t{t.b} << 32);
}

size_t JsonValue::size() const {
  return token().b;
}

std::string_view JsonValue::text() const {
  const JsonToken& t = token();
  const std::string_view source = t.decoded ? std::string_view(doc_->decoded_) : doc_->text_;
  return source.substr(t.a, t.b);
}

JsonValue JsonValue::find(std::string_view key) const {
  for (uint32_t k = index_ + 1; k < token().a; k = doc_->next(k + 1)) {
    if (JsonValue(doc_, k).text() == key) return {doc_, k + 1};
  }
  return {};
}

JsonValue::Iterator& JsonValue::Iterator::operator++() {
  index_ = doc_->next(index_);
  return *this;
}

JsonValue::Items JsonValue::items() const {
  return {Iterator(doc_, index_ + 1), Iterator(doc_, token().a)};
}

JsonDocument parse_json(std::string_view text, int64_t base_offset, const std::string& input_name) {
  // Token positions and sizes are 32-bit; the reader's limit on the manifest (512 MiB) is far below this.
  if (text.size() > UINT32_MAX) {
    throw ImportError(Kind::Unsupported, "the manifest is 4 GiB or more", input_name, base_offset,
                      "manifest");
  }
  return JsonParser(text, base_offset, input_name).parse_document();
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
