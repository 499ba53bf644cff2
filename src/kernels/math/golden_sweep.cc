#include "kernels/math/golden_sweep.h"

#include <cstdint>
#include <iterator>

#include "kernels/simd.h"

namespace onemodel::golden {

namespace {

constexpr uint64_t kStride = 4099;

constexpr uint32_t kSingles[] = {
    0x00000000u, 0x80000000u,                                                      // +0, -0
    0x7F800000u, 0xFF800000u,                                                      // +inf, -inf
    0x7FC00000u, 0xFFC00000u, 0x7FC12345u, 0xFFEDCBA9u,                            // quiet NaNs
    0x7F800001u, 0xFF800001u, 0x7FBFFFFFu, 0xFFBFFFFFu,                            // signalling NaNs
    0x7FFFFFFFu, 0xFFFFFFFFu, 0x00400000u, 0x80400000u, 0x007FFFFFu, 0x807FFFFFu,  // subnormals
};

// Magnitudes at which some function changes branch or saturates; each enters with both neighbours and both
// signs.
constexpr uint32_t kThresholds[] = {
    0x42B17217u,  // 88.72283172607422: exp overflows above
    0x42CFF1B4u,  // 103.97207641601562: exp is +0 below the negative
    0x42AEAC4Fu,  // 87.33654: exp_non_positive flushes below the negative
    0x42AE999Au,  // 87.3: the fast exponential's lower clamp
    0x42B0999Au,  // 88.3: the fast exponential's upper clamp
    0x3F19999Au,  // 0.6: tanh switches from polynomial to exp
    0x3F000000u,  // 0.5: erf switches from polynomial to erfc
    0x42800000u,  // 64: erf drops the low part of x^2
    0x3F800000u,  // 1
    0x00800000u,  // FLT_MIN: log rescales below
    0x7F7FFFFFu,  // FLT_MAX (its upper neighbour is infinity)
    0x00000001u,  // smallest subnormal (its lower neighbour is zero)
};

}  // namespace

std::vector<float> transcendental_sweep_inputs() {
  std::vector<float> out;
  out.reserve((uint64_t{1} << 32) / kStride + 1 + std::size(kSingles) + 6 * std::size(kThresholds));
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += kStride) {
    out.push_back(simd::bits_to_float(static_cast<uint32_t>(bits)));
  }
  for (uint32_t bits : kSingles) out.push_back(simd::bits_to_float(bits));
  for (uint32_t magnitude : kThresholds) {
    for (uint32_t bits : {magnitude - 1, magnitude, magnitude + 1}) {
      out.push_back(simd::bits_to_float(bits));
      out.push_back(simd::bits_to_float(bits | 0x80000000u));
    }
  }
  return out;
}

}  // namespace onemodel::golden
