#include "onemodel/error.h"

#include <utility>

namespace onemodel {
namespace {

std::string import_message(ImportError::Kind kind, const std::string& detail, const std::string& input,
                           int64_t offset, const std::string& path) {
  std::string m = std::string(to_string(kind)) + ": " + detail;
  if (!input.empty())
    m += " (input " + input;
  else if (offset >= 0 || !path.empty())
    m += " (";
  if (offset >= 0) m += std::string(input.empty() ? "" : ", ") + "offset " + std::to_string(offset);
  if (!path.empty()) m += std::string(input.empty() && offset < 0 ? "" : ", ") + "field " + path;
  if (!input.empty() || offset >= 0 || !path.empty()) m += ")";
  return m;
}

}  // namespace

std::string_view to_string(ImportError::Kind kind) {
  switch (kind) {
    case ImportError::Kind::Malformed:
      return "Malformed";
    case ImportError::Kind::InvalidModel:
      return "InvalidModel";
    case ImportError::Kind::Unsupported:
      return "Unsupported";
    case ImportError::Kind::ExternalData:
      return "ExternalData";
    case ImportError::Kind::Io:
      return "Io";
  }
  return "Unknown";
}

std::string_view to_string(SessionError::Kind kind) {
  switch (kind) {
    case SessionError::Kind::UnsupportedOperator:
      return "UnsupportedOperator";
    case SessionError::Kind::ExactModeUnavailable:
      return "ExactModeUnavailable";
    case SessionError::Kind::InvalidModel:
      return "InvalidModel";
    case SessionError::Kind::Unsupported:
      return "Unsupported";
    case SessionError::Kind::InvalidInput:
      return "InvalidInput";
    case SessionError::Kind::Disposed:
      return "Disposed";
  }
  return "Unknown";
}

ImportError::ImportError(Kind kind, std::string message, std::string input_name, int64_t offset,
                         std::string field_path)
    : Error(import_message(kind, message, input_name, offset, field_path)),
      kind_(kind),
      detail_(std::move(message)),
      input_name_(std::move(input_name)),
      offset_(offset),
      field_path_(std::move(field_path)) {}

std::string_view ImportError::kind_name() const {
  return to_string(kind_);
}

SessionError::SessionError(Kind kind, std::string message, std::string node,
                           std::vector<std::string> operators)
    : Error(std::move(message)), kind_(kind), node_(std::move(node)), operators_(std::move(operators)) {}

std::string_view SessionError::kind_name() const {
  return to_string(kind_);
}

}  // namespace onemodel
