#include "graph/ops/families.h"
#include "graph/ops/text/factories.h"

namespace onemodel::ops {

std::span<const OpDef> text_defs() {
  static const OpDef defs[] = {
      {"TfIdfVectorizer", 9, kLatestOpset, make_tfidf_vectorizer},
      {"StringNormalizer", 10, kLatestOpset, make_string_normalizer},
  };
  return defs;
}

}  // namespace onemodel::ops
