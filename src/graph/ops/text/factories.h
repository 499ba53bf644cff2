// Factories of the text operators, joined into ops::text_defs() by text_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_string_normalizer(const NodeInfo& node);  // string_normalizer.cc
std::unique_ptr<OpKernel> make_tfidf_vectorizer(const NodeInfo& node);   // tfidf_vectorizer.cc

}  // namespace onemodel::ops
