#include "cli/value_proto.h"

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "onemodel/error.h"
#include "onemodel/packed.h"
#include "onnx/messages.h"
#include "onnx/onnx_reader.h"

namespace onemodel::cli {
namespace {

using onnx::Field;
using onnx::MessageReader;
using onnx::Nested;
using onnx::ReadContext;
using onnx::Wire;

// Field numbers shared by SequenceProto and OptionalProto (onnx-ml.proto).
enum : uint32_t {
  kName = 1,
  kElemType = 2,
  kTensor = 3,
  kSparse = 4,
  kSequence = 5,
  kMap = 6,
  kOptional = 7
};

[[noreturn]] void unsupported(const std::string& name, const char* what) {
  throw SessionError(SessionError::Kind::Unsupported,
                     "value '" + name + "' holds " + what + ", not a tensor");
}

// The element type an empty sequence keeps: the declared one of a sequence, or of a sequence in an optional.
DType declared_element_type(const ir::Type& declared) {
  const ir::Type* t = &declared;
  while ((t->kind == ir::Type::Kind::Optional || t->kind == ir::Type::Kind::Sequence) && t->inner)
    t = t->inner.get();
  return t->kind == ir::Type::Kind::Tensor && is_stored_dtype(t->elem_type) ? static_cast<DType>(t->elem_type)
                                                                            : DType::F32;
}

struct Reader {
  ReadContext& rc;
  DType empty_type;

  Tensor tensor(const Field& f, const char* field, int64_t index) {
    Nested scope(rc.wire, field, index, f.offset);
    return tensor_from(onnx::read_tensor(rc, f.bytes, f.offset));
  }

  // A SequenceProto of tensors as its elements.
  std::vector<Tensor> sequence(std::span<const std::byte> bytes, std::string& name) {
    std::vector<Tensor> elements;
    MessageReader reader(rc.wire, bytes);
    Field f;
    while (reader.next(f)) {
      if (f.wire != Wire::Len) continue;
      if (f.number == kName) name = onnx::read_string(rc.wire, f, "name");
      if (f.number == kTensor)
        elements.push_back(tensor(f, "tensor_values", onnx::count_of(elements.size())));
      if (f.number == kSparse) unsupported(name, "sparse tensors");
      if (f.number == kSequence) unsupported(name, "sequences of sequences");
      if (f.number == kMap) unsupported(name, "maps");
      if (f.number == kOptional) unsupported(name, "sequences of optionals");
    }
    return elements;
  }

  Tensor pack(const std::vector<Tensor>& elements, bool in_optional) {
    const DType type = elements.empty() ? empty_type : elements.front().dtype();
    return in_optional ? pack_optional_sequence(elements, type) : pack_sequence(elements, type);
  }

  Tensor optional(std::span<const std::byte> bytes, std::string& name) {
    std::optional<Tensor> value;
    MessageReader reader(rc.wire, bytes);
    Field f;
    while (reader.next(f)) {
      if (f.wire != Wire::Len) continue;
      if (f.number == kName) name = onnx::read_string(rc.wire, f, "name");
      if (f.number == kTensor) value = pack_optional(tensor(f, "tensor_value", -1));
      if (f.number == kSequence) {
        Nested scope(rc.wire, "sequence_value", -1, f.offset);
        std::string inner;
        value = pack(sequence(f.bytes, inner), true);
      }
      if (f.number == kSparse) unsupported(name, "a sparse tensor");
      if (f.number == kMap) unsupported(name, "a map");
      if (f.number == kOptional) unsupported(name, "an optional");
    }
    return value ? *value : pack_optional();
  }
};

}  // namespace

Tensor tensor_from(const ir::TensorData& data) {
  if (!is_stored_dtype(data.elem_type)) {
    throw SessionError(SessionError::Kind::Unsupported, "value '" + data.name + "' has element type " +
                                                            std::string(onnx_type_name(data.elem_type)));
  }
  if (data.elem_type == static_cast<int32_t>(DType::String))
    return Tensor::from_strings(data.strings, data.dims);
  Tensor tensor(static_cast<DType>(data.elem_type), data.dims);
  if (data.bytes.size() != tensor.byte_size()) {
    throw SessionError(SessionError::Kind::InvalidInput,
                       "value '" + data.name + "': " + std::to_string(data.bytes.size()) +
                           " data bytes for " + std::to_string(tensor.byte_size()) + " expected");
  }
  if (!data.bytes.empty()) std::memcpy(tensor.raw(), data.bytes.data(), data.bytes.size());
  return tensor;
}

LoadedValue load_value(std::span<const std::byte> bytes, const ir::Type& declared,
                       const std::string& file_name) {
  const bool is_sequence = declared.kind == ir::Type::Kind::Sequence;
  const bool is_optional = declared.kind == ir::Type::Kind::Optional;
  std::vector<std::shared_ptr<const void>> storage;
  onnx::ImportOptions options;
  options.input_name = file_name;
  if (!is_sequence && !is_optional) {
    ir::TensorData data = onnx::import_tensor(bytes, storage, options);
    return {data.name, tensor_from(data)};
  }
  ReadContext rc{onnx::WireContext(bytes, file_name, is_sequence ? "SequenceProto" : "OptionalProto",
                                   options.max_nesting),
                 storage};
  Reader reader{rc, declared_element_type(declared)};
  LoadedValue loaded;
  loaded.value = is_sequence ? reader.pack(reader.sequence(bytes, loaded.name), false)
                             : reader.optional(bytes, loaded.name);
  return loaded;
}

}  // namespace onemodel::cli
