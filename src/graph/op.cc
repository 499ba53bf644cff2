#include "graph/op.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "graph/string_values.h"

namespace onemodel {

ConstTensor ConstTensor::allocate(DType dtype, const Shape& shape) {
  ConstTensor t;
  t.ref.dtype = dtype;
  t.ref.shape = shape;
  size_t bytes = (t.ref.bytes() + 63) & ~size_t{63};
  if (bytes == 0) bytes = 64;  // present values always have non-null data
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  t.storage = std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
  t.ref.data = t.storage.get();
  return t;
}

void copy_to_output(const OpRun& run, size_t i, const TensorRef& src) {
  if (run.allocator != nullptr) {
    TensorRef& dst = run.allocator->allocate(i, src.dtype, src.shape);
    if (src.dtype == DType::String) {
      // The source's text may live in a body run that ends before this one.
      copy_strings(*run.allocator, src.as<const StringElem>(), dst.as<StringElem>(), src.count());
    } else if (src.bytes()) {
      std::memcpy(dst.data, src.data, src.bytes());
    }
    return;
  }
  if (src.dtype == DType::String) {
    throw SessionError(SessionError::Kind::Unsupported,
                       "a string value from a body goes to an output that is not data-dependent",
                       run.node != nullptr ? run.node->display_name() : std::string());
  }
  const TensorRef& dst = run.outputs[i];
  if (dst.dtype != src.dtype || dst.shape != src.shape) {
    throw SessionError(SessionError::Kind::InvalidModel,
                       "a body output is " + std::string(dtype_name(src.dtype)) + " " + src.shape.str() +
                           " where the plan expected " + std::string(dtype_name(dst.dtype)) + " " +
                           dst.shape.str(),
                       run.node != nullptr ? run.node->display_name() : std::string());
  }
  if (src.bytes()) std::memcpy(dst.data, src.data, src.bytes());
}

std::string NodeInfo::display_name() const {
  if (!node_.name.empty()) return node_.name;
  return node_.op_type + " #" + std::to_string(node_.file_index);
}

std::shared_ptr<const CompiledGraph> NodeInfo::compile_subgraph(const ir::Graph& body) const {
  if (!subgraphs_) fail("a subgraph cannot be compiled here");
  return subgraphs_->compile(body);
}

const ir::Attribute* NodeInfo::typed(std::string_view name, ir::AttrType type) const {
  const ir::Attribute* a = node_.find(name);
  if (!a) return nullptr;
  if (a->type != type) {
    fail("attribute '" + std::string(name) + "' has type " + std::to_string(static_cast<int>(a->type)) +
         ", expected " + std::to_string(static_cast<int>(type)));
  }
  return a;
}

int64_t NodeInfo::get_int(std::string_view name, int64_t fallback) const {
  const ir::Attribute* a = typed(name, ir::AttrType::Int);
  return a ? a->i : fallback;
}

float NodeInfo::get_float(std::string_view name, float fallback) const {
  const ir::Attribute* a = typed(name, ir::AttrType::Float);
  return a ? a->f : fallback;
}

std::string NodeInfo::get_string(std::string_view name, std::string_view fallback) const {
  const ir::Attribute* a = typed(name, ir::AttrType::String);
  return a ? a->s : std::string(fallback);
}

std::vector<int64_t> NodeInfo::get_ints(std::string_view name, std::vector<int64_t> fallback) const {
  const ir::Attribute* a = typed(name, ir::AttrType::Ints);
  return a ? a->ints : fallback;
}

std::vector<float> NodeInfo::get_floats(std::string_view name, std::vector<float> fallback) const {
  const ir::Attribute* a = typed(name, ir::AttrType::Floats);
  return a ? a->floats : fallback;
}

void NodeInfo::fail(const std::string& message) const {
  throw SessionError(SessionError::Kind::InvalidModel,
                     node_.op_type + " node '" + display_name() + "': " + message, display_name());
}

void NodeInfo::unsupported(const std::string& message) const {
  throw SessionError(SessionError::Kind::Unsupported,
                     node_.op_type + " node '" + display_name() + "': " + message, display_name());
}

void InferContext::fail(const std::string& message) const {
  throw SessionError(SessionError::Kind::InvalidInput,
                     node().node().op_type + " node '" + node().display_name() + "': " + message,
                     node().display_name());
}

}  // namespace onemodel
