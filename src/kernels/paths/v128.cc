// 128-bit path: SSE4.1 on x86-64, NEON on arm64 (with FMA), wasm SIMD128 through Emscripten's SSE headers.
#include "kernels/kernel_table.h"
#include "kernels/simd.h"

namespace onemodel::paths {
#if defined(__aarch64__)
using PathLanes = simd::XsimdLanes<xsimd::neon64, true>;
struct PathTile {
  static constexpr int mr = 8, nr = 12, mc = 96, nc = 120;
  static constexpr bool a_in_place = false;  // not measured on NEON: packing as before
};
#else
using PathLanes = simd::XsimdLanes<xsimd::sse4_1, false>;
struct PathTile {
  static constexpr int mr = 4, nr = 8, mc = 64, nc = 128;
  static constexpr bool a_in_place = false;  // wasm: reading A in place made det 3-8 % slower
};
#endif
constexpr KernelPath kPath = KernelPath::V128;
constexpr std::string_view kPathName = "v128";
}  // namespace onemodel::paths

#define ONEMODEL_PATH_TABLE v128_table
#define ONEMODEL_PATH_QUANTIZE_TABLE v128_quantize_table
#define ONEMODEL_PATH_CHAIN_TABLE v128_chain_table
#define ONEMODEL_PATH_NORM_TABLE v128_norm_table
#include "kernels/paths/instantiate.inc"
