#include "graph/ops/run_fail.h"

namespace onemodel::ops {

void run_fail(const OpRun& run, const std::string& message) {
  const std::string node = run.node != nullptr ? run.node->display_name() : std::string();
  const std::string op = run.node != nullptr ? run.node->node().op_type : std::string("operator");
  throw SessionError(SessionError::Kind::InvalidInput, op + " node '" + node + "': " + message, node);
}

}  // namespace onemodel::ops
