// What both embind files share (bindings.cc, wai_bindings.cc): every entry point returns `{value}` or
// `{error}`, a plain object describing the C++ exception, so no exception ever reaches JavaScript.
#pragma once

#include <emscripten/val.h>

#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/onemodel.h"
#include "onemodel/wai.h"

namespace onemodel::web {

using emscripten::val;

inline val make_error(const char* category, std::string_view kind, const char* message) {
  val error = val::object();
  error.set("category", category);
  error.set("kind", std::string(kind));
  error.set("message", message);
  return error;
}

inline val string_array(const std::vector<std::string>& items) {
  val array = val::array();
  for (size_t i = 0; i < items.size(); ++i) array.set(i, items[i]);
  return array;
}

// Runs `body` and wraps its result or the exception it threw.
template <class F>
val guarded(F&& body) {
  val result = val::object();
  try {
    result.set("value", body());
    return result;
  } catch (const onemodel::ImportError& e) {
    val error = make_error("ImportError", e.kind_name(), e.what());
    error.set("detail", e.detail());
    if (!e.input_name().empty()) error.set("inputName", e.input_name());
    if (e.offset() >= 0) error.set("offset", static_cast<double>(e.offset()));
    if (!e.field_path().empty()) error.set("fieldPath", e.field_path());
    result.set("error", error);
  } catch (const onemodel::wai::RefusalError& e) {
    val error = make_error("RefusalError", e.kind_name(), e.what());
    error.set("loadStep", e.load_step());
    result.set("error", error);
  } catch (const onemodel::SessionError& e) {
    val error = make_error("SessionError", e.kind_name(), e.what());
    if (!e.node().empty()) error.set("node", e.node());
    error.set("operators", string_array(e.operators()));
    result.set("error", error);
  } catch (const onemodel::Error& e) {
    result.set("error", make_error("Error", e.kind_name(), e.what()));
  } catch (const std::bad_alloc&) {
    result.set("error", make_error("InternalError", "OutOfMemory", "out of memory"));
  } catch (const std::exception& e) {
    result.set("error", make_error("InternalError", "Internal", e.what()));
  } catch (...) {
    result.set("error", make_error("InternalError", "Internal", "unknown C++ exception"));
  }
  return result;
}

}  // namespace onemodel::web
