// Deterministic inputs for `onemodel run` without --input, and the value preview it prints.
#pragma once

#include <string>

#include "onemodel/session.h"

namespace onemodel::cli {

// Element i of a generated input (docs/cli.md): floats ((i*7919 + 13) mod 2001 - 1000) / 1000 computed in the
// element type from integers, so every target produces the same bytes; integers (i*7919 + 13) mod 10; bools i mod 2.
// Symbolic or unknown extents are 1; an input of unknown rank is [1].
Tensor generated_input(const TensorInfo& info);

// The first `count` values, comma-separated, floats with 4 decimals ("0.2323, 0.2813, 0.4864").
std::string preview_values(const Tensor& t, size_t count);

}  // namespace onemodel::cli
