// The strict JSON reader and the canonical JSON writer of the .onemodel manifest (format.md §1.2). Numbers
// without fraction or exponent that fit in 64 bits are kept as exact integers; any other number is kept only
// as "not an integer", because the format never stores a value that needs one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/error.h"

namespace onemodel::format {

inline constexpr int kMaxJsonDepth = 1024;

enum class JsonKind : uint8_t { Null, Bool, Integer, Number, String, Array, Object };

// One JSON value of a parsed document, 16 bytes, in document order (a container is followed by its
// contents; an object's contents alternate key strings and values). Strings are views of the manifest unless
// they hold escapes, whose decoded text goes to the document's side buffer.
struct JsonToken {
  JsonKind kind = JsonKind::Null;
  bool decoded = false;  // String: the text is in JsonDocument's decoded buffer
  uint32_t pos = 0;      // the value's first byte, from the start of the manifest text
  // Array, Object: the index of the token after the contents, and the number of items or members.
  // String: where the text starts and its length. Integer: the low and high halves.
  uint32_t a = 0, b = 0;
};

class JsonDocument;

// A view of one value in a JsonDocument (which must outlive it), or of nothing (a missing member).
class JsonValue {
 public:
  JsonValue() = default;
  JsonValue(const JsonDocument* doc, uint32_t index) : doc_(doc), index_(index) {}

  explicit operator bool() const { return doc_ != nullptr; }
  JsonKind kind() const { return token().kind; }
  int64_t offset() const;                      // file offset of the value's first byte
  int64_t integer() const;                     // JsonKind::Integer
  std::string_view text() const;               // JsonKind::String, decoded
  size_t size() const;                         // items of an Array, members of an Object
  JsonValue find(std::string_view key) const;  // an Object's member, or a null view

  // The items of an Array in order: `for (JsonValue item : value.items())`.
  class Iterator {
   public:
    Iterator(const JsonDocument* doc, uint32_t index) : doc_(doc), index_(index) {}
    JsonValue operator*() const { return {doc_, index_}; }
    Iterator& operator++();
    bool operator!=(const Iterator& other) const { return index_ != other.index_; }

   private:
    const JsonDocument* doc_;
    uint32_t index_;
  };
  struct Items {
    Iterator first, last;
    Iterator begin() const { return first; }
    Iterator end() const { return last; }
  };
  Items items() const;

 private:
  const JsonToken& token() const;
  const JsonDocument* doc_ = nullptr;
  uint32_t index_ = 0;
};

class JsonDocument {
 public:
  JsonValue root() const { return {this, 0}; }

 private:
  friend class JsonValue;
  friend class JsonParser;
  // The index of the token after token `index` and its contents.
  uint32_t next(uint32_t index) const {
    const JsonToken& t = tokens_[index];
    return t.kind == JsonKind::Array || t.kind == JsonKind::Object ? t.a : index + 1;
  }
  std::string_view text_;
  int64_t base_ = 0;
  std::vector<JsonToken> tokens_;
  std::string decoded_;  // text of the strings that hold escapes
};

// Parses one JSON object. `base_offset` is the file offset of text[0]; the document views `text`, which must
// outlive it. Throws ImportError: Malformed for anything RFC 8259 refuses (and for duplicate keys),
// Unsupported beyond kMaxJsonDepth levels.
JsonDocument parse_json(std::string_view text, int64_t base_offset, const std::string& input_name);

// Appends JSON with no insignificant whitespace. The caller nests begin/end calls correctly; commas are
// inserted here.
class JsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view name);
  void string(std::string_view value);
  void integer(int64_t value);
  void null();
  const std::string& text() const { return out_; }

 private:
  void separate();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
};

}  // namespace onemodel::format
