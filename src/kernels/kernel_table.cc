// The registry of kernel tables: one per path this build compiled, handed out only when the CPU can run it.
#include "kernels/kernel_table.h"

#include "kernels/cpu.h"
#include "kernels/paths/path_registry.h"

namespace onemodel {

GemmTileEpilogue::~GemmTileEpilogue() = default;

// Every compiled table, whether or not this CPU can run it.
ONEMODEL_PATH_REGISTRY(KernelTable, compiled_table, table)

namespace {

constexpr KernelPath kAllPaths[] = {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2,
                                    KernelPath::Avx512};

}  // namespace

const KernelTable* kernel_table(KernelPath path) {
  return cpu_supports(path) ? compiled_table(path) : nullptr;
}

std::vector<const KernelTable*> available_kernel_tables() {
  std::vector<const KernelTable*> tables;
  for (KernelPath path : kAllPaths) {
    if (const KernelTable* t = kernel_table(path)) tables.push_back(t);
  }
  return tables;
}

KernelPath best_kernel_path() {
  KernelPath best = KernelPath::Scalar;
  for (KernelPath path : kAllPaths) {
    if (kernel_table(path) != nullptr) best = path;
  }
  return best;
}

bool parse_kernel_path(std::string_view name, KernelPath& out) {
  for (KernelPath path : kAllPaths) {
    if (name == kernel_path_name(path)) {
      out = path;
      return true;
    }
  }
  return false;
}

std::string_view kernel_path_name(KernelPath path) {
  switch (path) {
    case KernelPath::Scalar:
      return "scalar";
    case KernelPath::V128:
      return "v128";
    case KernelPath::Avx2:
      return "avx2";
    case KernelPath::Avx512:
      return "avx512";
  }
  return "unknown";
}

}  // namespace onemodel
