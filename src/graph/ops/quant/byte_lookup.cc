#include "graph/ops/quant/byte_lookup.h"

#include <string>

#include "graph/ops/elementwise/common.h"
#include "kernels/int8/quantize_kernels.h"

namespace onemodel::ops {
namespace {

class ByteLookup final : public OpKernel {
 public:
  ByteLookup(DType input, DType output, const std::array<uint8_t, 256>& table)
      : input_(input), output_(output), table_(table) {
    supports_exact = true;  // the table holds the exact chain's results
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != input_) {
      ctx.fail("the quantized input is " + std::string(dtype_name(ctx.input_dtype(0))) + ", expected " +
               std::string(dtype_name(input_)));
    }
    ctx.set_output(0, output_, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const auto* x = run.inputs[0].as<const uint8_t>();
    auto* y = run.outputs[0].as<uint8_t>();
    const auto lookup = quantize_kernels(run.kernels->path)->lookup;
    for_each_chunk(run.threads, run.inputs[0].count(), 0.1, [&](int64_t begin, int64_t end) {
      lookup(x + begin, table_.data(), y + begin, static_cast<size_t>(end - begin));
    });
  }

 private:
  DType input_, output_;
  std::array<uint8_t, 256> table_;
};

}  // namespace

std::unique_ptr<OpKernel> make_byte_lookup(DType input, DType output, const std::array<uint8_t, 256>& table) {
  return std::make_unique<ByteLookup>(input, output, table);
}

}  // namespace onemodel::ops
