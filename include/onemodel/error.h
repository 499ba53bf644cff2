// The one error hierarchy of the library (ARCHITECTURE.md §7). Every failure caused by input is one of these.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // The kind as text ("Malformed", "UnsupportedOperator", ...), for messages and the JS boundary.
  virtual std::string_view kind_name() const = 0;
};

// A model file that cannot be imported (onnx-import.md §7).
class ImportError : public Error {
 public:
  enum class Kind { Malformed, InvalidModel, Unsupported, ExternalData, Io };
  ImportError(Kind kind, std::string message, std::string input_name = {}, int64_t offset = -1,
              std::string field_path = {});
  Kind kind() const { return kind_; }
  std::string_view kind_name() const override;
  const std::string& input_name() const { return input_name_; }
  // Byte offset from the start of the input, or -1 when unknown.
  int64_t offset() const { return offset_; }
  // Field path such as "ModelProto.graph.node[3].attribute[1].t".
  const std::string& field_path() const { return field_path_; }
  // The message without the location suffix.
  const std::string& detail() const { return detail_; }

 private:
  Kind kind_;
  std::string detail_, input_name_;
  int64_t offset_;
  std::string field_path_;
};

// Session creation or run failures (graph-runtime.md §4).
class SessionError : public Error {
 public:
  enum class Kind { UnsupportedOperator, ExactModeUnavailable, InvalidModel, Unsupported, InvalidInput, Disposed };
  SessionError(Kind kind, std::string message, std::string node = {}, std::vector<std::string> operators = {});
  Kind kind() const { return kind_; }
  std::string_view kind_name() const override;
  // Name (or "op_type #index" when unnamed) of the node involved, if any.
  const std::string& node() const { return node_; }
  // Every operator involved, as "Type (opset N)" or "Type".
  const std::vector<std::string>& operators() const { return operators_; }

 private:
  Kind kind_;
  std::string node_;
  std::vector<std::string> operators_;
};

std::string_view to_string(ImportError::Kind kind);
std::string_view to_string(SessionError::Kind kind);

}  // namespace onemodel
