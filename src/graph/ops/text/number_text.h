// Numbers as text for Cast to and from strings, independent of the C locale (ops-coverage.md settles Cast;
// docs/architecture.md "Strings" describes the forms).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace onemodel::ops {

// The shortest decimal that reads back as the same value (the nearest one when several have that length; the
// same digits as numpy's repr, checked on every float32 power of two and 250000 random values), laid out as
// numpy prints a scalar of the type: positional for 1e-4 <= |x| < 1e16 with at least one fractional digit
// ("0.5", "3.0"), else scientific with a signed exponent of at least two digits ("1e-05", "1.5e+20"); "NaN",
// "INF" and "-INF" for the special values, as the ONNX Cast literals.
std::string float_text(float x);
std::string double_text(double x);
std::string integer_text(int64_t x);
std::string unsigned_text(uint64_t x);

// A decimal ("3.14", "-1e5", ".5", surrounding ASCII spaces allowed) or one of the case-insensitive literals
// "NaN", "INF", "+INF", "-INF", "Infinity", correctly rounded to the type (the C library's strtof/strtod on
// a radix-free form, so no locale is involved). Text that is not a number reads as NaN.
float parse_float(std::string_view text);
double parse_double(std::string_view text);

}  // namespace onemodel::ops
