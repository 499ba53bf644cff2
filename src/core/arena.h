// Bump allocator for the scratch and dynamic values of one run (tensors.md §6). Blocks are kept across
// resets, so a warm run with the same allocation sequence allocates nothing. Not thread-safe: one arena per
// run state.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace onemodel {

class Arena {
 public:
  explicit Arena(size_t block_bytes = size_t{1} << 20) : block_bytes_(block_bytes) {}
  // 64-byte aligned, uninitialised. Throws SessionError(Unsupported) beyond 2^31-1 bytes.
  void* allocate(size_t bytes);
  template <class T>
  T* allocate_array(size_t count) {
    return static_cast<T*>(allocate(count * sizeof(T)));
  }
  // Everything allocated since is invalid afterwards. Merges blocks into one when the last run needed
  // several, so the steady state is one block and no allocation.
  void reset();

 private:
  struct Block {
    std::unique_ptr<std::byte[]> memory;
    size_t size = 0;
    std::byte* aligned = nullptr;
  };
  std::vector<Block> blocks_;
  size_t block_bytes_;
  size_t current_ = 0, used_ = 0, high_water_ = 0, total_used_ = 0;
};

}  // namespace onemodel
