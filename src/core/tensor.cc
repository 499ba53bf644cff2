#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <string>

#include "core/shape.h"
#include "core/string_elem.h"
#include "onemodel/error.h"
#include "onemodel/tensor.h"

namespace onemodel {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::U8:
    case DType::I8:
    case DType::Bool:
      return 1;
    case DType::U16:
    case DType::I16:
    case DType::F16:
    case DType::BF16:
      return 2;
    case DType::F32:
    case DType::I32:
    case DType::U32:
      return 4;
    case DType::I64:
    case DType::U64:
    case DType::F64:
      return 8;
    case DType::String:
      return sizeof(StringElem);
  }
  return 0;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "F32";
    case DType::U8:
      return "U8";
    case DType::I8:
      return "I8";
    case DType::U16:
      return "U16";
    case DType::I16:
      return "I16";
    case DType::I32:
      return "I32";
    case DType::I64:
      return "I64";
    case DType::Bool:
      return "Bool";
    case DType::F16:
      return "F16";
    case DType::F64:
      return "F64";
    case DType::U32:
      return "U32";
    case DType::U64:
      return "U64";
    case DType::BF16:
      return "BF16";
    case DType::String:
      return "String";
  }
  return "?";
}

std::string_view onnx_type_name(int32_t code) {
  static constexpr std::string_view kNames[] = {
      "undefined",      "float",      "uint8",          "int8",       "uint16",    "int16",
      "int32",          "int64",      "string",         "bool",       "float16",   "double",
      "uint32",         "uint64",     "complex64",      "complex128", "bfloat16",  "float8e4m3fn",
      "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4",      "int4",      "float4e2m1",
      "float8e8m0",     "uint2",      "int2",           "float6e2m3", "float6e3m2"};
  if (code < 0 || code >= static_cast<int32_t>(std::size(kNames))) return "unknown";
  return kNames[code];
}

bool is_stored_dtype(int32_t code) {
  switch (code) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 16:
      return true;
    default:
      return false;
  }
}

namespace {
std::shared_ptr<std::byte> allocate_zeroed(size_t bytes) {
  size_t size = (bytes + 63) & ~size_t{63};
  if (size == 0) size = 64;  // non-null storage even for empty tensors
  void* p = std::aligned_alloc(64, size);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, size);
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
}
}  // namespace

std::shared_ptr<std::byte> string_block(std::span<const std::string_view> values) {
  const size_t handles = values.size() * sizeof(StringElem);
  size_t text = 0;
  for (std::string_view v : values) text += v.size();
  std::shared_ptr<std::byte> block = allocate_zeroed(handles + text);
  auto* elems = reinterpret_cast<StringElem*>(block.get());
  char* out = reinterpret_cast<char*>(block.get() + handles);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].empty()) continue;  // the zero handle
    std::memcpy(out, values[i].data(), values[i].size());
    elems[i] = StringElem{out, values[i].size()};
    out += values[i].size();
  }
  return block;
}

Tensor Tensor::from_strings(std::span<const std::string_view> values, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype_ = DType::String;
  t.shape_ = std::move(shape);
  const std::string problem = shape_problem(t.shape_, sizeof(StringElem));
  if (!problem.empty()) throw SessionError(SessionError::Kind::InvalidInput, "bad tensor shape: " + problem);
  t.check_count(values.size());
  t.storage_ = string_block(values);
  return t;
}

Tensor Tensor::from_strings(const std::vector<std::string>& values, std::vector<int64_t> shape) {
  const std::vector<std::string_view> views(values.begin(), values.end());
  return from_strings(views, std::move(shape));
}

std::string_view Tensor::string(int64_t i) const {
  check_type(DType::String);
  if (i < 0 || i >= size()) {
    throw SessionError(SessionError::Kind::InvalidInput,
                       "string " + std::to_string(i) + " of a tensor of " + std::to_string(size()));
  }
  return static_cast<const StringElem*>(raw())[i].view();
}

std::vector<std::string> Tensor::strings() const {
  check_type(DType::String);
  const auto* elems = static_cast<const StringElem*>(raw());
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(size()));
  for (int64_t i = 0; i < size(); ++i) out.emplace_back(elems[i].view());
  return out;
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  std::string problem = shape_problem(shape_, dtype_size(dtype));
  if (!problem.empty()) throw SessionError(SessionError::Kind::InvalidInput, "bad tensor shape: " + problem);
  storage_ = allocate_zeroed(byte_size());
}

int64_t Tensor::size() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

void Tensor::check_type(DType wanted) const {
  if (wanted != dtype_) {
    throw SessionError(SessionError::Kind::InvalidInput, "tensor holds " + std::string(dtype_name(dtype_)) +
                                                             ", not " + std::string(dtype_name(wanted)));
  }
}

void Tensor::check_count(size_t count) const {
  if (static_cast<int64_t>(count) != size()) {
    throw SessionError(
        SessionError::Kind::InvalidInput,
        std::to_string(count) + " values do not fill a tensor of " + std::to_string(size()) + " elements");
  }
}

}  // namespace onemodel
