// `onemodel conformance` runs the ONNX backend test cases (Debian's libonnx-testdata) through Session and
// classifies each with the statuses and tolerance of the spec's conformance method; `onemodel
// conformance-report` turns the JSON results of the two modes into docs/conformance.md.
#pragma once

#include <string>
#include <vector>

namespace onemodel::cli {

// args (after the command word): DATA_DIR [--mode fast|exact] [--json FILE] [--markdown FILE] [--filter
// SUBSTR]
//                                 [--timeout SECONDS] [--no-isolate]
// Progress goes to stderr, the failing cases and a `<status> <count>` summary to stdout. Returns 0 when no
// case fails, 1 when some do, 2 on a usage error.
int conformance_main(const std::vector<std::string>& args);

// args: RESULT.json [RESULT.json] (normally the fast run, then the exact run). Writes the markdown page to
// stdout.
int conformance_report_main(const std::vector<std::string>& args);

}  // namespace onemodel::cli
