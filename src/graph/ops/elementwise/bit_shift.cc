// BitShift on the unsigned integer types with numpy broadcasting: x << s or x >> s by the attribute
// `direction`. A shift by the type's width or more gives 0 (C leaves it undefined; every bit has been shifted
// out). Exact by nature.
#include <string>
#include <type_traits>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

template <bool kLeft>
struct ShiftOp {
  static constexpr bool kBoolOutput = false;
  template <class E>
  static constexpr bool serves = is_integer_elem<E>&& std::is_unsigned_v<typename E::Value>;
  template <class V>
  static V apply(V x, V s) {
    // Promoted to at least unsigned int, so narrow types shift without overflow; the cast drops the high
    // bits.
    using W = Wrap<V>;
    if (s >= sizeof(V) * 8) return V(0);
    return static_cast<V>(kLeft ? W(x) << s : W(x) >> s);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_bit_shift(const NodeInfo& node) {
  const std::string direction = node.get_string("direction", "");
  if (direction == "LEFT") return make_same_type_binary<ShiftOp<true>>(node);
  if (direction == "RIGHT") return make_same_type_binary<ShiftOp<false>>(node);
  node.fail("attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"" + direction + "\"");
}

}  // namespace onemodel::ops
