// Counts every heap allocation made through operator new in the test binary, so a test can assert that a
// stretch of code (a warm run, a parallel_for call) made none.
#pragma once

#include <cstdint>

namespace onemodel::test {

int64_t allocation_count();

}  // namespace onemodel::test
