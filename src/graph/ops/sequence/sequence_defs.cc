#include "graph/ops/families.h"
#include "graph/ops/sequence/factories.h"

namespace onemodel::ops {

std::span<const OpDef> sequence_defs() {
  static const OpDef defs[] = {
      {"SequenceEmpty", 11, kLatestOpset, make_sequence_empty},
      {"SequenceConstruct", 11, kLatestOpset, make_sequence_construct},
      {"SequenceInsert", 11, kLatestOpset, make_sequence_insert},
      {"SequenceErase", 11, kLatestOpset, make_sequence_erase},
      {"SequenceAt", 11, kLatestOpset, make_sequence_at},
      {"SequenceLength", 11, kLatestOpset, make_sequence_length},
      {"SplitToSequence", 11, kLatestOpset, make_split_to_sequence},
      {"ConcatFromSequence", 11, kLatestOpset, make_concat_from_sequence},
      {"Optional", 15, kLatestOpset, make_optional},
      {"OptionalHasElement", 15, kLatestOpset, make_optional_has_element},
      {"OptionalGetElement", 15, kLatestOpset, make_optional_get_element},
  };
  return defs;
}

}  // namespace onemodel::ops
