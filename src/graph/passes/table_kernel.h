// A kernel a pass takes from the operator table for a node the model does not have (QLinearConv for a QDQ
// Conv, MatMulIntegerToFloat for a MatMulInteger chain). The pass describes the node; the kernel owns that
// description, so the NodeInfo its factory and its infer see stays valid as long as the kernel lives.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/op.h"

namespace onemodel::passes {

struct TableNode {
  std::string op_type, domain;
  int64_t opset = 0;
  std::vector<bool> present;  // one entry per input position: false for an omitted optional input
  std::vector<ir::Attribute> attributes;
};

// The kernel of `node` built by its table factory, with the name of `site` (the node it replaces, for
// messages); nullptr when the table has no such operator.
std::unique_ptr<OpKernel> make_table_kernel(const NodeInfo& site, TableNode node);

}  // namespace onemodel::passes
