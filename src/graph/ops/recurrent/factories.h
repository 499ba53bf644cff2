// Factories of the recurrent operators (registered in recurrent_defs.cc).
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_rnn(const NodeInfo& node);
std::unique_ptr<OpKernel> make_gru(const NodeInfo& node);
std::unique_ptr<OpKernel> make_lstm(const NodeInfo& node);

}  // namespace onemodel::ops
