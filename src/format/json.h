// The strict JSON reader and the canonical JSON writer of the .onemodel manifest (format.md §1.2). Numbers
// without fraction or exponent that fit in 64 bits are kept as exact integers; any other number is kept only
// as "not an integer", because the format never stores a value that needs one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onemodel/error.h"

namespace onemodel::format {

struct JsonMember;

struct Json {
  enum class Kind : uint8_t { Null, Bool, Integer, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  int64_t integer = 0;  // Kind::Integer
  std::string text;     // Kind::String (decoded)
  std::vector<Json> items;
  // A struct rather than std::pair: pair<string, Json> needs Json complete (clang 14 with libstdc++ 12).
  std::vector<JsonMember> members;  // in file order, keys unique
  int64_t offset = 0;               // file offset of the value's first byte

  const Json* find(std::string_view key) const;
};

struct JsonMember {
  std::string key;
  Json value;
};

inline constexpr int kMaxJsonDepth = 1024;

// Parses one JSON object. `base_offset` is the file offset of text[0]. Throws ImportError: Malformed for
// anything RFC 8259 refuses (and for duplicate keys), Unsupported beyond kMaxJsonDepth levels.
Json parse_json(std::string_view text, int64_t base_offset, const std::string& input_name);

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
