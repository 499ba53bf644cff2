#include "core/arena.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "onemodel/error.h"

namespace onemodel {
namespace {
constexpr size_t kAlign = 64;
size_t round_up(size_t n) {
  return (n + kAlign - 1) & ~(kAlign - 1);
}
}  // namespace

void* Arena::allocate(size_t bytes) {
  if (bytes > (size_t{1} << 31) - 1) {
    throw SessionError(SessionError::Kind::Unsupported,
                       "a scratch request of " + std::to_string(bytes) + " bytes is above 2^31-1");
  }
  size_t need = round_up(bytes == 0 ? 1 : bytes);
  while (current_ < blocks_.size() && used_ + need > blocks_[current_].size) {
    ++current_;
    used_ = 0;
  }
  if (current_ == blocks_.size()) {
    Block b;
    b.size = std::max(block_bytes_, need);
    b.memory = std::make_unique<std::byte[]>(b.size + kAlign);
    auto addr = reinterpret_cast<uintptr_t>(b.memory.get());
    b.aligned = b.memory.get() + (round_up(addr) - addr);
    blocks_.push_back(std::move(b));
    used_ = 0;
  }
  std::byte* p = blocks_[current_].aligned + used_;
  used_ += need;
  total_used_ += need;
  return p;
}

void Arena::reset() {
  high_water_ = std::max(high_water_, total_used_);
  if (blocks_.size() > 1) {
    // The last run needed several blocks: replace them by one that holds everything, so the next run fits.
    blocks_.clear();
    block_bytes_ = std::max(block_bytes_, round_up(high_water_));
  }
  current_ = 0;
  used_ = 0;
  total_used_ = 0;
}

}  // namespace onemodel
