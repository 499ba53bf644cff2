#include "graph/ops/families.h"
#include "graph/ops/recurrent/factories.h"

namespace onemodel::ops {

std::span<const OpDef> recurrent_defs() {
  // Opsets 7, 14 and 22 share one implementation (ops-recurrent.md); `layout` is read when present.
  static const OpDef defs[] = {
      {"RNN", 7, kLatestOpset, make_rnn},
      {"GRU", 7, kLatestOpset, make_gru},
      {"LSTM", 7, kLatestOpset, make_lstm},
  };
  return defs;
}

}  // namespace onemodel::ops
