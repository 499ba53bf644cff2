// `onemodel ctc CASES.json`: decodes CTC cases (the format of testdata/ctc/cases.json) and prints every
// result as exact bit patterns, so the JS decoder (web/ctc.mjs) and the wasm CLI can be compared with the
// native library byte for byte.
#pragma once

#include <string>
#include <vector>

namespace onemodel::cli {

// args (after the command word): CASES.json. Returns 0, or 2 on a usage error; library errors propagate.
int ctc_main(const std::vector<std::string>& args);

}  // namespace onemodel::cli
