// Inputs over which the golden-hash harness hashes the exact outputs of the seven transcendental functions
// (exact-transcendentals.md "Cross-platform check").
#pragma once

#include <vector>

namespace onemodel::golden {

// Every 4099th fp32 bit pattern (0, 4099, 8198, ...) followed by special values: signed zeros, infinities,
// NaNs with several payloads and both signs, subnormals, and each branch threshold of the functions with its
// two neighbouring floats, for both signs. Built from integer bit patterns only, so it is the same list
// everywhere.
std::vector<float> transcendental_sweep_inputs();

}  // namespace onemodel::golden
