// Shortest round-trip digits come from printf's %e, which glibc and musl round correctly from the exact
// binary value, tried at 1, 2, ... significant digits until the digits, or their neighbour one unit in the
// last place away, read back as the value (at a power of two the values that read back reach further above
// it than below, so the nearest p-digit decimal may miss where the next one up does not). Reading
// rebuilds the number as "[-]DIGITSe[-]EXP" (no radix character, the only locale-dependent part of
// strtod's syntax) and lets strtof or strtod round it, which both libraries do correctly; so the results are
// the same on every target.
#include "graph/ops/text/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace onemodel::ops {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// The radix-free form of a decimal, or empty when `text` is not one.
std::string radix_free(std::string_view text) {
  size_t i = 0;
  std::string out;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    if (text[i] == '-') out += '-';
    ++i;
  }
  std::string digits;
  int64_t exponent = 0;
  bool any_digit = false;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    any_digit = true;
    if (!digits.empty() || text[i] != '0') digits += text[i];
  }
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && is_digit(text[i]); ++i) {
      any_digit = true;
      --exponent;
      if (!digits.empty() || text[i] != '0') digits += text[i];
    }
  }
  if (!any_digit) return {};
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    if (i == text.size() || !is_digit(text[i])) return {};
    int64_t e = 0;
    for (; i < text.size() && is_digit(text[i]); ++i)
      e = std::min<int64_t>(e * 10 + (text[i] - '0'), 1000000);
    exponent += negative ? -e : e;
  }
  if (i != text.size()) return {};
  if (digits.empty()) digits = "0";
  return out + digits + "e" + std::to_string(exponent);
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Reads `text` as T with `convert` (strtof or strtod) on its radix-free form.
template <class T, class Convert>
T parse(std::string_view text, Convert convert) {
  text = trim(text);
  std::string_view body = text;
  const bool negative = !body.empty() && body.front() == '-';
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) body.remove_prefix(1);
  if (equals_ignoring_case(body, "inf") || equals_ignoring_case(body, "infinity"))
    return negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  const std::string form = radix_free(text);
  if (form.empty() || equals_ignoring_case(body, "nan")) return std::numeric_limits<T>::quiet_NaN();
  return convert(form.c_str(), nullptr);
}

// Whether mantissa * 10^scale reads back as `value`.
template <class T>
bool reads_back(uint64_t mantissa, int scale, T value) {
  const std::string form = std::to_string(mantissa) + "e" + std::to_string(scale);
  if constexpr (std::is_same_v<T, float>)
    return std::strtof(form.c_str(), nullptr) == value;
  else
    return std::strtod(form.c_str(), nullptr) == value;
}

// Digits and decimal exponent of the shortest decimal that reads back as |x| (x finite, not zero), the one
// nearest x among those: |x| ~ d.ddd * 10^exponent.
template <class T>
void shortest_digits(T x, std::string& digits, int& exponent) {
  const T magnitude = std::fabs(x);
  uint64_t mantissa = 0;  // at most max_digits10 (17) digits
  int scale = 0;          // the decimal is mantissa * 10^scale
  char buffer[64];
  for (int precision = 1; precision <= std::numeric_limits<T>::max_digits10; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*e", precision - 1, static_cast<double>(magnitude));
    std::string nearest;
    const char* p = buffer;
    for (; *p != 'e'; ++p) {
      if (is_digit(*p)) nearest += *p;
    }
    mantissa = std::strtoull(nearest.c_str(), nullptr, 10);
    scale = std::atoi(p + 1) - (precision - 1);
    if (reads_back(mantissa, scale, magnitude)) break;
    if (reads_back(mantissa + 1, scale, magnitude)) {
      ++mantissa;
      break;
    }
    if (reads_back(mantissa - 1, scale, magnitude)) {
      --mantissa;
      break;
    }
  }
  digits = std::to_string(mantissa);
  exponent = scale + static_cast<int>(digits.size()) - 1;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

template <class T>
std::string text_of(T x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x < 0 ? "-INF" : "INF";
  std::string out = std::signbit(x) ? "-" : "";
  if (x == 0) return out + "0.0";
  std::string digits;
  int exponent = 0;
  shortest_digits(x, digits, exponent);
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    const size_t whole = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= whole) return out + digits + std::string(whole - digits.size(), '0') + ".0";
    return out + digits.substr(0, whole) + "." + digits.substr(whole);
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  return out + (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
}

template <class T>
std::string integer_text_of(T x) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), x).ptr;
  return std::string(buffer, end);
}

}  // namespace

std::string float_text(float x) {
  return text_of(x);
}
std::string double_text(double x) {
  return text_of(x);
}
std::string integer_text(int64_t x) {
  return integer_text_of(x);
}
std::string unsigned_text(uint64_t x) {
  return integer_text_of(x);
}

float parse_float(std::string_view text) {
  return parse<float>(text, [](const char* s, char** end) { return std::strtof(s, end); });
}
double parse_double(std::string_view text) {
  return parse<double>(text, [](const char* s, char** end) { return std::strtod(s, end); });
}

}  // namespace onemodel::ops
