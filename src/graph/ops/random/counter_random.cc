#include "graph/ops/random/counter_random.h"

#include <string>

namespace onemodel::ops {

uint64_t random_stream_key(const NodeInfo& node) {
  if (const ir::Attribute* seed = node.find("seed")) {
    if (seed->type == ir::AttrType::Float) return __builtin_bit_cast(uint32_t, seed->f);
    if (seed->type == ir::AttrType::Int) return static_cast<uint64_t>(seed->i);
    node.fail("attribute 'seed' must be a number");
  }
  uint64_t hash = 0xCBF29CE484222325u;
  for (const char c : node.display_name()) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3u;
  }
  return hash;
}

}  // namespace onemodel::ops
