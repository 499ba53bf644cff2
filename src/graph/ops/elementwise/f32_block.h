// Element-wise float32 operators that also run on a raw block of elements, without an OpRun. The fused
// element-wise chain (graph pass elementwise-chain) calls them on blocks of a few KiB that stay in the
// first-level cache; there, building an OpRun and walking the broadcast engine on every call cost as much as
// the arithmetic. A block call computes every element exactly as the operator's own run does.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "kernels/kernel_table.h"

namespace onemodel::ops {

// One operand of a block: `count` values (advances) or one value repeated over the block.
struct F32BlockOperand {
  const float* data = nullptr;
  bool advances = true;
};

class F32BlockKernel {
 public:
  virtual ~F32BlockKernel() = default;
  // y[i] for i < n from the operands, in the operator's input order (an omitted optional input is a null
  // `data`); y may be an operand that advances. The operands' types and counts were checked by whoever
  // built the block (the pass admits float32 tensors of the block's shape and single-element constants).
  virtual void run_f32_block(const KernelTable& kernels, bool exact,
                             std::span<const F32BlockOperand> operands, float* y, size_t n) const = 0;

  // What a block computes, for a pass that fuses several operators into one loop: the kernel table's
  // arithmetic (Add, Sub, Mul, Div), or Clip's selects with the bounds it would use for these operands.
  virtual std::optional<BinaryFn> binary_fn() const { return std::nullopt; }
  virtual bool clamp_bounds(std::span<const F32BlockOperand> /*operands*/, float& /*lo*/,
                            float& /*hi*/) const {
    return false;
  }
};

}  // namespace onemodel::ops
