// AVX-512 (F/BW/DQ/VL) path: 16 lanes with FMA.
#include "kernels/kernel_table.h"
#include "kernels/simd.h"

namespace onemodel::paths {
using PathLanes = simd::XsimdLanes<xsimd::avx512bw, true>;
struct PathTile {
  static constexpr int mr = 12, nr = 32, mc = 96, nc = 128;
  static constexpr bool a_in_place = true;
};
constexpr KernelPath kPath = KernelPath::Avx512;
constexpr std::string_view kPathName = "avx512";
}  // namespace onemodel::paths

#define ONEMODEL_PATH_TABLE avx512_table
#define ONEMODEL_PATH_QUANTIZE_TABLE avx512_quantize_table
#define ONEMODEL_PATH_CHAIN_TABLE avx512_chain_table
#define ONEMODEL_PATH_NORM_TABLE avx512_norm_table
#include "kernels/paths/instantiate.inc"
