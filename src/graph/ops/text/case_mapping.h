// Locale-free case change of UTF-8 text for StringNormalizer: the simple (one code point to one code point)
// Unicode mappings of Basic Latin, Latin-1 Supplement, Latin Extended-A, basic Greek and basic Cyrillic.
// Other code points, and bytes that are not valid UTF-8, pass unchanged.
#pragma once

#include <string>
#include <string_view>

namespace onemodel::ops {

std::string to_lower(std::string_view text);
std::string to_upper(std::string_view text);

}  // namespace onemodel::ops
