#include "graph/packed_value.h"

#include <cstring>
#include <string>

#include "onemodel/error.h"
#include "onemodel/packed.h"

namespace onemodel::packed {
namespace {

constexpr std::byte kTag[4] = {std::byte{'O'}, std::byte{'M'}, std::byte{'P'}, std::byte{'V'}};
constexpr size_t kAlign = 8;

size_t padded(size_t n) {
  return (n + kAlign - 1) & ~(kAlign - 1);
}

uint32_t load_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);  // little-endian targets only (ARCHITECTURE.md)
  return v;
}

int64_t load_i64(const std::byte* p) {
  int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[noreturn]] void invalid(const std::string& problem) {
  throw SessionError(SessionError::Kind::InvalidInput, "packed value: " + problem);
}

// Records hold their elements' bytes: a String element's handle would point outside the value.
bool packable(int32_t type) {
  return is_stored_dtype(type) && type != static_cast<int32_t>(DType::String);
}

bool all_zero(std::span<const std::byte> bytes) {
  for (std::byte b : bytes) {
    if (b != std::byte{0}) return false;
  }
  return true;
}

std::string type_text(int32_t code) {
  return std::string(onnx_type_name(code)) + " (" + std::to_string(code) + ")";
}

}  // namespace

// Validating reader over the bytes of one value; `rest_` shrinks as parts are consumed.
class Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes) : rest_(bytes) {}

  Value value() {
    const std::span<const std::byte> whole = rest_;
    Value v;
    v.kind = header();
    switch (v.kind) {
      case Kind::Sequence:
        v.sequence = sequence_body(whole);
        break;
      case Kind::OptionalNone:
        break;
      case Kind::OptionalTensor:
        v.tensor = record(-1, -1);
        break;
      case Kind::OptionalSequence: {
        const std::span<const std::byte> inner = rest_;
        if (header() != Kind::Sequence) invalid("an optional's inner value is not a sequence");
        v.sequence = sequence_body(inner);
        break;
      }
    }
    if (!rest_.empty()) invalid(std::to_string(rest_.size()) + " bytes follow the end of the value");
    return v;
  }

 private:
  // Messages are only built on failure, so reading allocates nothing.
  void need(size_t n, const char* what) const {
    if (rest_.size() < n) short_of(n, what);
  }
  void need(size_t n, int64_t element, const char* part) const {
    if (rest_.size() < n) short_of(n, label(element) + part);
  }
  [[noreturn]] void short_of(size_t n, const std::string& what) const {
    invalid(what + " needs " + std::to_string(n) + " bytes, " + std::to_string(rest_.size()) + " remain");
  }
  // Names record `element` in messages (-1: an optional's tensor).
  static std::string label(int64_t element) {
    return element < 0 ? std::string("the optional's tensor") : "element " + std::to_string(element);
  }

  std::span<const std::byte> take(size_t n) {
    std::span<const std::byte> part = rest_.first(n);
    rest_ = rest_.subspan(n);
    return part;
  }

  Kind header() {
    need(kHeaderBytes, "the header");
    std::span<const std::byte> h = take(kHeaderBytes);
    if (std::memcmp(h.data(), kTag, sizeof kTag) != 0) invalid("the tag is not \"OMPV\"");
    const auto kind = static_cast<uint8_t>(h[4]);
    if (kind < 1 || kind > 4) invalid("unknown kind " + std::to_string(kind));
    if (!all_zero(h.subspan(5))) invalid("the header's padding is not zero");
    return static_cast<Kind>(kind);
  }

  // The part after a sequence header; `encoding` starts at that header.
  SequenceView sequence_body(std::span<const std::byte> encoding) {
    need(kSequenceHeaderBytes, "the sequence header");
    std::span<const std::byte> h = take(kSequenceHeaderBytes);
    const auto type = static_cast<int32_t>(load_u32(h.data()));
    if (!packable(type)) invalid("sequence element type " + type_text(type) + " cannot be packed");
    const uint32_t count = load_u32(h.data() + 4);
    // Every record takes at least its 8-byte head: a count beyond that is refused before any walk.
    if (count > rest_.size() / kAlign) {
      invalid("the sequence claims " + std::to_string(count) + " elements in " +
              std::to_string(rest_.size()) + " bytes");
    }
    const std::span<const std::byte> start = rest_;
    for (uint32_t i = 0; i < count; ++i) record(type, i);
    SequenceView s;
    s.element_type_ = static_cast<DType>(type);
    s.count_ = count;
    s.records_ = start.first(start.size() - rest_.size());
    s.encoding_ = encoding.first(encoding.size() - rest_.size());
    return s;
  }

  // One record; `expected_type` < 0 accepts any stored type.
  Record record(int32_t expected_type, int64_t element) {
    const std::span<const std::byte> start = rest_;
    need(8, element, "'s head");
    std::span<const std::byte> head = take(8);
    const auto type = static_cast<int32_t>(load_u32(head.data()));
    const uint32_t rank = load_u32(head.data() + 4);
    if (!packable(type)) {
      invalid(label(element) + " has element type " + type_text(type) + ", which cannot be packed");
    }
    if (expected_type >= 0 && type != expected_type) {
      invalid(label(element) + " has element type " + type_text(type) + " in a sequence of " +
              type_text(expected_type));
    }
    if (rank > static_cast<uint32_t>(kMaxRank)) {
      invalid(label(element) + " has rank " + std::to_string(rank) + ", above " + std::to_string(kMaxRank));
    }
    need(8 * size_t{rank}, element, "'s extents");
    std::span<const std::byte> extents = take(8 * size_t{rank});
    Record r;
    r.tensor.dtype = static_cast<DType>(type);
    r.tensor.shape.rank = static_cast<int32_t>(rank);
    for (uint32_t d = 0; d < rank; ++d) r.tensor.shape.dims[d] = load_i64(extents.data() + 8 * d);
    // Empty when valid, so no allocation then.
    const std::string problem = shape_problem(r.tensor.shape.span(), dtype_size(r.tensor.dtype));
    if (!problem.empty()) invalid(label(element) + " has shape " + r.tensor.shape.str() + ": " + problem);
    const size_t bytes = r.tensor.bytes();
    need(padded(bytes), element, "'s data");
    r.tensor.data = const_cast<std::byte*>(rest_.data());
    std::span<const std::byte> data = take(padded(bytes));
    if (!all_zero(data.subspan(bytes))) invalid(label(element) + "'s padding is not zero");
    r.bytes = start.first(start.size() - rest_.size());
    return r;
  }

  std::span<const std::byte> rest_;
};

bool has_tag(std::span<const std::byte> bytes) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kTag, sizeof kTag) != 0) return false;
  const auto kind = static_cast<uint8_t>(bytes[4]);
  return kind >= 1 && kind <= 4;
}

bool has_tag(const TensorRef& value) {
  return value.data != nullptr && value.dtype == DType::U8 && value.shape.rank == 1 &&
         has_tag(std::span<const std::byte>(value.data, value.bytes()));
}

size_t record_size(DType dtype, const Shape& shape) {
  if (!packable(static_cast<int32_t>(dtype)))
    throw SessionError(SessionError::Kind::Unsupported,
                       "sequences and optionals of strings are not supported");
  return 8 + 8 * static_cast<size_t>(shape.rank) +
         padded(static_cast<size_t>(shape.count()) * dtype_size(dtype));
}

Record SequenceView::next_record(std::span<const std::byte>& rest) {
  Record r;
  r.tensor.dtype = static_cast<DType>(static_cast<int32_t>(load_u32(rest.data())));
  r.tensor.shape.rank = static_cast<int32_t>(load_u32(rest.data() + 4));
  for (int d = 0; d < r.tensor.shape.rank; ++d) r.tensor.shape.dims[d] = load_i64(rest.data() + 8 + 8 * d);
  const size_t head = 8 + 8 * static_cast<size_t>(r.tensor.shape.rank);
  const size_t size = head + padded(r.tensor.bytes());
  r.tensor.data = const_cast<std::byte*>(rest.data() + head);
  r.bytes = rest.first(size);
  rest = rest.subspan(size);
  return r;
}

Record SequenceView::at(size_t i) const {
  std::span<const std::byte> rest = records_;
  for (size_t k = 0; k < i; ++k) next_record(rest);
  return next_record(rest);
}

Value parse(std::span<const std::byte> bytes) {
  return Reader(bytes).value();
}

std::byte* Writer::take(size_t n) {
  if (n > out_.size() - pos_) {
    throw SessionError(SessionError::Kind::InvalidModel,
                       "packed value: writer overflow (size was misjudged)");
  }
  std::byte* p = out_.data() + pos_;
  pos_ += n;
  return p;
}

void Writer::header(Kind kind) {
  std::byte* p = take(kHeaderBytes);
  std::memcpy(p, kTag, sizeof kTag);
  p[4] = static_cast<std::byte>(kind);
  std::memset(p + 5, 0, 3);
}

void Writer::sequence_header(DType element_type, size_t count) {
  std::byte* p = take(kSequenceHeaderBytes);
  const auto type = static_cast<uint32_t>(element_type);
  const auto n = static_cast<uint32_t>(count);
  std::memcpy(p, &type, 4);
  std::memcpy(p + 4, &n, 4);
}

std::byte* Writer::begin_record(DType dtype, const Shape& shape) {
  const size_t head = 8 + 8 * static_cast<size_t>(shape.rank);
  const size_t bytes = static_cast<size_t>(shape.count()) * dtype_size(dtype);
  std::byte* p = take(head + padded(bytes));
  const auto type = static_cast<uint32_t>(dtype);
  const auto rank = static_cast<uint32_t>(shape.rank);
  std::memcpy(p, &type, 4);
  std::memcpy(p + 4, &rank, 4);
  if (rank > 0) std::memcpy(p + 8, shape.dims.data(), 8 * size_t{rank});
  std::memset(p + head + bytes, 0, padded(bytes) - bytes);
  return p + head;
}

void Writer::record(const TensorRef& tensor) {
  std::byte* data = begin_record(tensor.dtype, tensor.shape);
  if (tensor.bytes() > 0) std::memcpy(data, tensor.data, tensor.bytes());
}

void Writer::raw(std::span<const std::byte> bytes) {
  if (!bytes.empty()) std::memcpy(take(bytes.size()), bytes.data(), bytes.size());
}

}  // namespace onemodel::packed

// --- The public helpers (onemodel/packed.h)

namespace onemodel {
namespace {

using packed::Kind;

TensorRef ref_of(const Tensor& t) {
  return TensorRef{t.dtype(), Shape::of(t.shape()), static_cast<std::byte*>(const_cast<void*>(t.raw()))};
}

Tensor copy_of(const TensorRef& r) {
  Tensor t(r.dtype, r.shape.vec());
  if (r.bytes() > 0) std::memcpy(t.raw(), r.data, r.bytes());
  return t;
}

std::vector<Tensor> copy_elements(const packed::SequenceView& s) {
  std::vector<Tensor> out;
  out.reserve(s.size());
  s.for_each([&](const packed::Record& r) { out.push_back(copy_of(r.tensor)); });
  return out;
}

// The records of `elements` after checking them, and their total size.
std::vector<TensorRef> checked_elements(std::span<const Tensor> elements, DType element_type, size_t& bytes) {
  std::vector<TensorRef> refs;
  bytes = 0;
  for (size_t i = 0; i < elements.size(); ++i) {
    const Tensor& e = elements[i];
    if (e.empty()) {
      throw SessionError(SessionError::Kind::InvalidInput,
                         "sequence element " + std::to_string(i) + " is an empty handle");
    }
    if (e.dtype() != element_type) {
      throw SessionError(SessionError::Kind::InvalidInput, "sequence element " + std::to_string(i) + " is " +
                                                               std::string(dtype_name(e.dtype())) +
                                                               " in a sequence of " +
                                                               std::string(dtype_name(element_type)));
    }
    refs.push_back(ref_of(e));
    bytes += packed::record_size(refs.back());
  }
  return refs;
}

Tensor packed_tensor(size_t bytes) {
  return Tensor(DType::U8, {static_cast<int64_t>(bytes)});
}

std::span<std::byte> writable(Tensor& t) {
  return {static_cast<std::byte*>(t.raw()), t.byte_size()};
}

Tensor pack_sequence_value(std::span<const Tensor> elements, DType element_type, bool in_optional) {
  size_t record_bytes = 0;
  std::vector<TensorRef> refs = checked_elements(elements, element_type, record_bytes);
  const size_t outer = in_optional ? packed::kHeaderBytes : 0;
  Tensor t = packed_tensor(outer + packed::sequence_size(record_bytes));
  packed::Writer w(writable(t));
  if (in_optional) w.header(Kind::OptionalSequence);
  w.header(Kind::Sequence);
  w.sequence_header(element_type, refs.size());
  for (const TensorRef& r : refs) w.record(r);
  return t;
}

packed::Value parse_tensor(const Tensor& t, const char* expected) {
  if (t.empty() || t.dtype() != DType::U8 || t.shape().size() != 1) {
    throw SessionError(SessionError::Kind::InvalidInput,
                       std::string("a packed ") + expected + " is a rank-1 U8 tensor");
  }
  return packed::parse(t.bytes());
}

packed::SequenceView parse_sequence(const Tensor& t) {
  packed::Value v = parse_tensor(t, "sequence");
  if (v.kind != Kind::Sequence) {
    throw SessionError(SessionError::Kind::InvalidInput, "packed value: an optional, not a sequence");
  }
  return v.sequence;
}

}  // namespace

bool is_packed_value(const Tensor& t) {
  return !t.empty() && t.dtype() == DType::U8 && t.shape().size() == 1 && packed::has_tag(t.bytes());
}

Tensor pack_sequence(std::span<const Tensor> elements, DType element_type) {
  return pack_sequence_value(elements, element_type, false);
}

std::vector<Tensor> unpack_sequence(const Tensor& packed) {
  return copy_elements(parse_sequence(packed));
}

DType sequence_element_type(const Tensor& packed) {
  return parse_sequence(packed).element_type();
}

Tensor pack_optional() {
  Tensor t = packed_tensor(packed::kHeaderBytes);
  packed::Writer(writable(t)).header(Kind::OptionalNone);
  return t;
}

Tensor pack_optional(const Tensor& value) {
  if (value.empty())
    throw SessionError(SessionError::Kind::InvalidInput, "the optional's tensor is an empty handle");
  const TensorRef r = ref_of(value);
  Tensor t = packed_tensor(packed::kHeaderBytes + packed::record_size(r));
  packed::Writer w(writable(t));
  w.header(Kind::OptionalTensor);
  w.record(r);
  return t;
}

Tensor pack_optional_sequence(std::span<const Tensor> elements, DType element_type) {
  return pack_sequence_value(elements, element_type, true);
}

UnpackedOptional unpack_optional(const Tensor& packed) {
  packed::Value v = parse_tensor(packed, "optional");
  UnpackedOptional out;
  switch (v.kind) {
    case Kind::Sequence:
      throw SessionError(SessionError::Kind::InvalidInput, "packed value: a sequence, not an optional");
    case Kind::OptionalNone:
      break;
    case Kind::OptionalTensor:
      out.content = OptionalContent::Tensor;
      out.tensor = copy_of(v.tensor.tensor);
      break;
    case Kind::OptionalSequence:
      out.content = OptionalContent::Sequence;
      out.sequence = copy_elements(v.sequence);
      out.sequence_element_type = v.sequence.element_type();
      break;
  }
  return out;
}

}  // namespace onemodel
