// `onemodel wai run FILE` (docs/wai-ops.md): runs a wai-ops/1 vector file (.jsonl, the form of wai-ops/1
// §14.1) and reports every vector, or loads one WHG1 graph and runs one decode on inputs given on the
// command line. `onemodel wai certify FILE` prints a WHG1 graph's bounds certificate (§8.5).
#pragma once

#include <string>
#include <vector>

namespace onemodel::cli {

// args (after the command word). Returns 0, 1 when a vector fails or a decode is refused, 2 on a usage error;
// a graph refused at load propagates as onemodel::wai::RefusalError.
int wai_main(const std::vector<std::string>& args);

}  // namespace onemodel::cli
