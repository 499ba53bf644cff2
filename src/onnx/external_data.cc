#include "onnx/external_data.h"

namespace onemodel::onnx {

std::span<const std::byte> load_external_data(ReadContext& rc, const ExternalDataRef& ref) {
  rc.wire.fail(ImportError::Kind::ExternalData, "tensors with external data are not supported yet",
               ref.offset, "data_location");
}

}  // namespace onemodel::onnx
