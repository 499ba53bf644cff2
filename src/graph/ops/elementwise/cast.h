// The conversion behind Cast (ops-elementwise.md "Cast", tensors.md §10), shared with CastLike and anyone
// needing Cast's rules between stored element types.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/op.h"
#include "onemodel/tensor.h"

namespace onemodel::ops {

// Converts `count` elements of type `from` at `src` into type `to` at `dst` (non-overlapping buffers):
// float to float rounds to nearest even (f64 to f16/bf16 through f32), float to integer truncates and
// saturates with NaN giving 0, integer to integer wraps, integer to float rounds once to nearest even,
// anything to bool is "!= 0", bool reads as 0 or 1. `exact` makes the NaN results of float-to-float
// conversions canonical (exact-mode.md rule 4); a conversion to the same type is a plain copy either way.
// Strings read as numbers (text/number_text.h); numbers cannot become strings here (SessionError
// Unsupported): that needs a run to hold the text, see run_cast.
void cast_elements(DType from, const std::byte* src, DType to, std::byte* dst, int64_t count, bool exact);

// Run body of Cast and CastLike: input 0 converted into output 0 of type `to` (allocated here, in the
// data-dependent run, when it is String).
void run_cast(const OpRun& run, DType to);

}  // namespace onemodel::ops
