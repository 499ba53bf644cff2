#include "graph/ops/control/factories.h"
#include "graph/ops/families.h"

namespace onemodel::ops {

std::span<const OpDef> control_defs() {
  // Bodies are nested graphs (graph-runtime.md §8); one implementation serves every opset of each operator.
  static const OpDef defs[] = {
      {"If", 1, kLatestOpset, make_if},
      {"Loop", 1, kLatestOpset, make_loop},
      {"Scan", 8, kLatestOpset, make_scan},
      {"SequenceMap", 17, kLatestOpset, make_sequence_map},
  };
  return defs;
}

}  // namespace onemodel::ops
