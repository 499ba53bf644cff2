// Scalar path: one lane, no FMA. Runs everywhere and defines the shape of the tail code of every other path.
#include "kernels/kernel_table.h"
#include "kernels/simd.h"

namespace onemodel::paths {
using PathLanes = simd::ScalarLanes<false>;
struct PathTile {
  static constexpr int mr = 4, nr = 4, mc = 64, nc = 64;
  static constexpr bool a_in_place = false;
};
constexpr KernelPath kPath = KernelPath::Scalar;
constexpr std::string_view kPathName = "scalar";
}  // namespace onemodel::paths

#define ONEMODEL_PATH_TABLE scalar_table
#define ONEMODEL_PATH_QUANTIZE_TABLE scalar_quantize_table
#define ONEMODEL_PATH_CHAIN_TABLE scalar_chain_table
#define ONEMODEL_PATH_NORM_TABLE scalar_norm_table
#include "kernels/paths/instantiate.inc"
