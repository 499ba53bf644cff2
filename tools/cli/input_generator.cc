#include "cli/input_generator.h"

#include <cinttypes>
#include <cstdio>

#include "core/half.h"

namespace onemodel::cli {
namespace {

int64_t pattern(int64_t i) {
  return (i * 7919 + 13) % 2001 - 1000;
}

template <class T>
void fill_float(std::span<T> out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(pattern(static_cast<int64_t>(i))) / T(1000);
}

template <class T>
void fill_int(std::span<T> out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>((static_cast<int64_t>(i) * 7919 + 13) % 10);
}

}  // namespace

Tensor generated_input(const TensorInfo& info) {
  std::vector<int64_t> shape;
  if (!info.has_shape) shape = {1};
  for (const Dim& d : info.dims) shape.push_back(d.fixed() ? d.value : 1);
  Tensor t(info.dtype, shape);
  switch (info.dtype) {
    case DType::F32:
      fill_float(t.data<float>());
      break;
    case DType::F64:
      fill_float(t.data<double>());
      break;
    case DType::F16:
    case DType::BF16: {
      auto* bits = static_cast<uint16_t*>(t.raw());
      for (int64_t i = 0; i < t.size(); ++i) {
        float v = static_cast<float>(pattern(i)) / 1000.0f;
        bits[i] = info.dtype == DType::F16 ? float_to_half(v) : float_to_bfloat16(v);
      }
      break;
    }
    case DType::I8:
      fill_int(t.data<int8_t>());
      break;
    case DType::U8:
      fill_int(t.data<uint8_t>());
      break;
    case DType::I16:
      fill_int(t.data<int16_t>());
      break;
    case DType::U16:
      fill_int(t.data<uint16_t>());
      break;
    case DType::I32:
      fill_int(t.data<int32_t>());
      break;
    case DType::U32:
      fill_int(t.data<uint32_t>());
      break;
    case DType::I64:
      fill_int(t.data<int64_t>());
      break;
    case DType::U64:
      fill_int(t.data<uint64_t>());
      break;
    case DType::Bool: {
      auto* b = static_cast<uint8_t*>(t.raw());
      for (int64_t i = 0; i < t.size(); ++i) b[i] = static_cast<uint8_t>(i % 2);
      break;
    }
    case DType::String:
      break;  // empty strings
  }
  return t;
}

std::string preview_values(const Tensor& t, size_t count) {
  std::string s;
  const size_t n = std::min(count, static_cast<size_t>(t.size()));
  char buf[64];
  for (size_t i = 0; i < n; ++i) {
    switch (t.dtype()) {
      case DType::F32:
        std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(t.data<float>()[i]));
        break;
      case DType::F64:
        std::snprintf(buf, sizeof buf, "%.4f", t.data<double>()[i]);
        break;
      case DType::F16:
        std::snprintf(buf, sizeof buf, "%.4f",
                      static_cast<double>(half_to_float(static_cast<const uint16_t*>(t.raw())[i])));
        break;
      case DType::BF16:
        std::snprintf(buf, sizeof buf, "%.4f",
                      static_cast<double>(bfloat16_to_float(static_cast<const uint16_t*>(t.raw())[i])));
        break;
      case DType::I8:
        std::snprintf(buf, sizeof buf, "%d", t.data<int8_t>()[i]);
        break;
      case DType::U8:
        std::snprintf(buf, sizeof buf, "%u", t.data<uint8_t>()[i]);
        break;
      case DType::I16:
        std::snprintf(buf, sizeof buf, "%d", t.data<int16_t>()[i]);
        break;
      case DType::U16:
        std::snprintf(buf, sizeof buf, "%u", t.data<uint16_t>()[i]);
        break;
      case DType::I32:
        std::snprintf(buf, sizeof buf, "%d", t.data<int32_t>()[i]);
        break;
      case DType::U32:
        std::snprintf(buf, sizeof buf, "%u", t.data<uint32_t>()[i]);
        break;
      case DType::I64:
        std::snprintf(buf, sizeof buf, "%" PRId64, t.data<int64_t>()[i]);
        break;
      case DType::U64:
        std::snprintf(buf, sizeof buf, "%" PRIu64, t.data<uint64_t>()[i]);
        break;
      case DType::Bool:
        std::snprintf(buf, sizeof buf, "%s", static_cast<const uint8_t*>(t.raw())[i] ? "true" : "false");
        break;
      case DType::String: {
        const std::string_view text = t.string(static_cast<int64_t>(i));
        std::snprintf(buf, sizeof buf, "\"%.*s\"", static_cast<int>(std::min<size_t>(text.size(), 40)),
                      text.data());
        break;
      }
    }
    s += (i ? ", " : "") + std::string(buf);
  }
  if (static_cast<size_t>(t.size()) > n) s += ", ...";
  return s;
}

}  // namespace onemodel::cli
