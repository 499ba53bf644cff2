// AVX2 + FMA path: 8 lanes.
#include "kernels/kernel_table.h"
#include "kernels/simd.h"

namespace onemodel::paths {
using PathLanes = simd::XsimdLanes<xsimd::fma3<xsimd::avx2>, true>;
struct PathTile {
  static constexpr int mr = 6, nr = 16, mc = 96, nc = 128;
  static constexpr bool a_in_place = true;
};
constexpr KernelPath kPath = KernelPath::Avx2;
constexpr std::string_view kPathName = "avx2";
}  // namespace onemodel::paths

#define ONEMODEL_PATH_TABLE avx2_table
#define ONEMODEL_PATH_QUANTIZE_TABLE avx2_quantize_table
#define ONEMODEL_PATH_CHAIN_TABLE avx2_chain_table
#define ONEMODEL_PATH_NORM_TABLE avx2_norm_table
#include "kernels/paths/instantiate.inc"
