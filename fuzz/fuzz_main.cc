// libFuzzer entry of one target, chosen at compile time (ONEMODEL_FUZZ_TARGET, a function of fuzz/targets.h).
#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return onemodel::fuzz::ONEMODEL_FUZZ_TARGET(data, size);
}
