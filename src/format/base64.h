// RFC 4648 base64, standard alphabet, padded: how the manifest stores bytes (format.md §1.2).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace onemodel::format {

std::string base64_encode(std::string_view bytes);
// nullopt unless `text` is canonical padded base64 (unused bits zero), so every byte string has one spelling.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace onemodel::format
