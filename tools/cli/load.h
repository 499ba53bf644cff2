// `onemodel load MODEL`: times one session creation (read or map, import, compile, graph passes) and reports
// the process's resident memory around it, for the load benchmark (tools/bench/load.mjs, docs/bench.md).
#pragma once

#include <string>
#include <vector>

namespace onemodel::cli {

// args (after the command word): MODEL [--mode fast|exact] [--threads N] [--warmup MODEL]; the warm-up model
// is loaded first, outside the measurement. Prints one line `load_ms T cpu_ms C baseline_rss_kib B
// peak_rss_kib P peak_reset R`: T is wall time, C the process's CPU time
// (-1 where unknown) during the load; P is the peak resident set (VmHWM) after the
// load, reset to the current resident set just before it when R is 1 (the kernel allows it), else the whole
// process's peak. B and P are -1 where /proc/self/status does not exist (wasm). Returns 0, or 2 on a usage
// error.
int load_main(const std::vector<std::string>& args);

}  // namespace onemodel::cli
