// Factories of the sequence and optional operators, joined into ops::sequence_defs() by sequence_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_sequence_empty(const NodeInfo& node);        // sequence_construct.cc
std::unique_ptr<OpKernel> make_sequence_construct(const NodeInfo& node);    // sequence_construct.cc
std::unique_ptr<OpKernel> make_sequence_insert(const NodeInfo& node);       // sequence_edit.cc
std::unique_ptr<OpKernel> make_sequence_erase(const NodeInfo& node);        // sequence_edit.cc
std::unique_ptr<OpKernel> make_sequence_at(const NodeInfo& node);           // sequence_read.cc
std::unique_ptr<OpKernel> make_sequence_length(const NodeInfo& node);       // sequence_read.cc
std::unique_ptr<OpKernel> make_split_to_sequence(const NodeInfo& node);     // split_to_sequence.cc
std::unique_ptr<OpKernel> make_concat_from_sequence(const NodeInfo& node);  // concat_from_sequence.cc
std::unique_ptr<OpKernel> make_optional(const NodeInfo& node);              // optional.cc
std::unique_ptr<OpKernel> make_optional_has_element(const NodeInfo& node);  // optional.cc
std::unique_ptr<OpKernel> make_optional_get_element(const NodeInfo& node);  // optional.cc

}  // namespace onemodel::ops
