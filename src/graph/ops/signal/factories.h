// Factories of the signal operators, joined into ops::signal_defs() by signal_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_dft(const NodeInfo& node);                // dft.cc
std::unique_ptr<OpKernel> make_stft(const NodeInfo& node);               // dft.cc
std::unique_ptr<OpKernel> make_hann_window(const NodeInfo& node);        // windows.cc
std::unique_ptr<OpKernel> make_hamming_window(const NodeInfo& node);     // windows.cc
std::unique_ptr<OpKernel> make_blackman_window(const NodeInfo& node);    // windows.cc
std::unique_ptr<OpKernel> make_mel_weight_matrix(const NodeInfo& node);  // mel_weight_matrix.cc

}  // namespace onemodel::ops
