// The one operator table: every family's rows joined once, searched by (domain, type, opset).
#include <algorithm>
#include <vector>

#include "graph/op.h"
#include "graph/ops/families.h"

namespace onemodel {
namespace {

const std::vector<OpDef>& table() {
  static const std::vector<OpDef> all = [] {
    std::vector<OpDef> rows;
    for (auto family :
         {ops::elementwise_defs, ops::shape_defs, ops::linalg_defs, ops::reduce_defs, ops::norm_defs,
          ops::conv_defs, ops::pool_defs, ops::vision_defs, ops::recurrent_defs, ops::control_defs,
          ops::sequence_defs, ops::quant_defs, ops::int8_defs, ops::loss_defs, ops::signal_defs,
          ops::text_defs, ops::training_defs, ops::random_defs}) {
      auto defs = family();
      rows.insert(rows.end(), defs.begin(), defs.end());
    }
    return rows;
  }();
  return all;
}

bool same_domain(std::string_view a, std::string_view b) {
  auto canonical = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
  return canonical(a) == canonical(b);
}

}  // namespace

const OpDef* find_op(std::string_view domain, std::string_view op_type, int64_t opset) {
  for (const OpDef& d : table()) {
    if (d.op_type == op_type && same_domain(d.domain, domain) && opset >= d.min_opset &&
        opset <= d.max_opset) {
      return &d;
    }
  }
  return nullptr;
}

std::span<const OpDef> all_ops() {
  return table();
}

}  // namespace onemodel
