// The fuzz targets (issue 7): each takes arbitrary bytes and must either succeed or throw one of the
// library's own errors, which the target swallows. Anything else escaping (a crash, a sanitizer report, a
// foreign exception such as std::bad_alloc) is a finding. The same functions run the committed regression
// inputs in the unit tests (native-tests/support/fuzz_regression_test.cc), so a fixed crasher stays fixed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace onemodel::fuzz {

// Walks every field of the bytes as a protobuf message, descending into each length-delimited payload that
// parses as a message, up to the reader's nesting limit.
int wire(const uint8_t* data, size_t size);
// ONNX import of a whole ModelProto.
int onnx_model(const uint8_t* data, size_t size);
// One serialized TensorProto (the backend test data's .pb files).
int tensor(const uint8_t* data, size_t size);
// The .onemodel reader (format.md) on the bytes as a whole file.
int onemodel_file(const uint8_t* data, size_t size);
// The wai-ops/1 WHG1 reader and its load checks with the bounds certifier (any profile), the admissible
// ranges of the first tensors and a set certificate, then one run with zero inputs when the graph meets acc64
// and declares small input sizes.
int whg1(const uint8_t* data, size_t size);
// Session creation in both modes from the bytes as a model, then one run with zero-filled inputs when every
// input has a small known shape (unknown extents set to 1).
int session(const uint8_t* data, size_t size);

struct Target {
  std::string_view name;
  int (*run)(const uint8_t* data, size_t size);
};
std::span<const Target> targets();

}  // namespace onemodel::fuzz
