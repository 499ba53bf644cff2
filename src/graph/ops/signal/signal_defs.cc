#include "graph/ops/families.h"
#include "graph/ops/signal/factories.h"

namespace onemodel::ops {

std::span<const OpDef> signal_defs() {
  static const OpDef defs[] = {
      {"DFT", 17, kLatestOpset, make_dft},
      {"STFT", 17, kLatestOpset, make_stft},
      {"HannWindow", 17, kLatestOpset, make_hann_window},
      {"HammingWindow", 17, kLatestOpset, make_hamming_window},
      {"BlackmanWindow", 17, kLatestOpset, make_blackman_window},
      {"MelWeightMatrix", 17, kLatestOpset, make_mel_weight_matrix},
  };
  return defs;
}

}  // namespace onemodel::ops
