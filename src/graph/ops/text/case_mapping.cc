#include "graph/ops/text/case_mapping.h"

#include <cstdint>

namespace onemodel::ops {
namespace {

bool in(char32_t c, char32_t first, char32_t last) {
  return c >= first && c <= last;
}

// Latin Extended-A alternates upper and lower case in pairs; these runs start the pair on an odd code point.
bool odd_upper_run(char32_t c) {
  return in(c, 0x0139, 0x0148) || in(c, 0x0179, 0x017E);
}
bool extended_a_pair(char32_t c) {
  return (in(c, 0x0100, 0x0137) && c != 0x0130 && c != 0x0131) || odd_upper_run(c) || in(c, 0x014A, 0x0177);
}
bool extended_a_upper(char32_t c) {
  return odd_upper_run(c) ? (c & 1) != 0 : (c & 1) == 0;
}

char32_t lower(char32_t c) {
  if (in(c, 'A', 'Z') || (in(c, 0x00C0, 0x00DE) && c != 0x00D7)) return c + 32;
  if (extended_a_pair(c)) return extended_a_upper(c) ? c + 1 : c;
  if (c == 0x0130) return 'i';
  if (c == 0x0178) return 0x00FF;
  if (in(c, 0x0391, 0x03A9) && c != 0x03A2) return c + 32;
  if (c == 0x0386) return 0x03AC;
  if (in(c, 0x0388, 0x038A)) return c + 37;
  if (c == 0x038C) return 0x03CC;
  if (in(c, 0x038E, 0x038F)) return c + 63;
  if (in(c, 0x0410, 0x042F)) return c + 32;
  if (in(c, 0x0400, 0x040F)) return c + 80;
  return c;
}

char32_t upper(char32_t c) {
  if (in(c, 'a', 'z') || (in(c, 0x00E0, 0x00FE) && c != 0x00F7)) return c - 32;
  if (extended_a_pair(c)) return extended_a_upper(c) ? c : c - 1;
  if (c == 0x00B5) return 0x039C;
  if (c == 0x00FF) return 0x0178;
  if (c == 0x0131) return 'I';
  if (c == 0x017F) return 'S';
  if (c == 0x03C2) return 0x03A3;
  if (in(c, 0x03B1, 0x03C9)) return c - 32;
  if (c == 0x03AC) return 0x0386;
  if (in(c, 0x03AD, 0x03AF)) return c - 37;
  if (c == 0x03CC) return 0x038C;
  if (in(c, 0x03CD, 0x03CE)) return c - 63;
  if (in(c, 0x0430, 0x044F)) return c - 32;
  if (in(c, 0x0450, 0x045F)) return c - 80;
  return c;
}

// Decodes one well-formed UTF-8 sequence at text[i]; returns its length, or 0 when the bytes there are not
// one (overlong forms, surrogates and values above U+10FFFF included).
size_t decode(std::string_view text, size_t i, char32_t& c) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    c = b0;
    return 1;
  }
  const size_t length = b0 > 0xF4 ? 0 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  c = b0 & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < kSmallest[length] || c > 0x10FFFF || in(c, 0xD800, 0xDFFF)) return 0;
  return length;
}

void encode(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

template <char32_t (*kMap)(char32_t)>
std::string map_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const size_t length = decode(text, i, c);
    if (length == 0) {
      out += text[i++];
      continue;
    }
    encode(kMap(c), out);
    i += length;
  }
  return out;
}

}  // namespace

std::string to_lower(std::string_view text) {
  return map_text<lower>(text);
}
std::string to_upper(std::string_view text) {
  return map_text<upper>(text);
}

}  // namespace onemodel::ops
