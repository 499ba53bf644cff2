// GraphProto, NodeProto, AttributeProto, ValueInfoProto, TypeProto and the small key/value messages
// (onnx-import.md §2). Produces the parsed form; names are tied to values later, in resolve.cc.
#include "onnx/messages.h"

namespace onemodel::onnx {

namespace {

using Kind = ImportError::Kind;

// The default operator set has two spellings; the importer keeps one.
std::string canonical_domain(std::string domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

ir::Dim read_dim(ReadContext& rc, std::span<const std::byte> bytes) {
  ir::Dim d;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    // dim_value and dim_param share a oneof: the last one present wins.
    if (f.number == 1 && f.wire == Wire::Varint) {
      d.value = f.as_int64() < 0 ? -1 : f.as_int64();
      d.param.clear();
    } else if (f.number == 2 && f.wire == Wire::Len) {
      d.param = read_string(rc.wire, f, "dim_param");
      d.value = -1;
    }
  }
  return d;
}

// TypeProto.Tensor and TypeProto.SparseTensor share their layout.
ir::Type read_tensor_type(ReadContext& rc, std::span<const std::byte> bytes, ir::Type::Kind kind) {
  ir::Type t;
  t.kind = kind;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.number == 1 && f.wire == Wire::Varint) {
      t.elem_type = f.as_int32();
    } else if (f.number == 2 && f.wire == Wire::Len) {
      Nested shape_scope(rc.wire, "shape", -1, f.offset);
      t.has_shape = true;
      t.dims.clear();
      MessageReader shape(rc.wire, f.bytes);
      Field d;
      while (shape.next(d)) {
        if (d.number != 1 || d.wire != Wire::Len) continue;
        Nested dim_scope(rc.wire, "dim", count_of(t.dims.size()), d.offset);
        t.dims.push_back(read_dim(rc, d.bytes));
      }
    }
  }
  return t;
}

// Sequence, optional and map types: `inner_field` holds the element (or value) type, map keys come in
// field 1.
ir::Type read_container_type(ReadContext& rc, std::span<const std::byte> bytes, ir::Type::Kind kind,
                             uint32_t inner_field, const char* inner_name) {
  ir::Type t;
  t.kind = kind;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.number == inner_field && f.wire == Wire::Len) {
      Nested scope(rc.wire, inner_name, -1, f.offset);
      t.inner = std::make_shared<ir::Type>(read_type(rc, f.bytes));
    } else if (kind == ir::Type::Kind::Map && f.number == 1 && f.wire == Wire::Varint) {
      t.map_key_type = f.as_int32();
    }
  }
  return t;
}

ParsedValueInfo read_value_info(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset) {
  ParsedValueInfo v;
  v.offset = offset;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.wire != Wire::Len) continue;
    if (f.number == 1) {
      v.name = read_string(rc.wire, f, "name");
    } else if (f.number == 2) {
      Nested scope(rc.wire, "type", -1, f.offset);
      v.type = read_type(rc, f.bytes);
    }
  }
  return v;
}

// Scalar attribute values count as set when their field appears, even with a zero value.
struct ScalarsSeen {
  bool f = false, i = false, s = false;
};

// Which value field an attribute without a `type` carries, in the order of §2; Undefined when none.
ir::AttrType inferred_type(const ParsedAttribute& pa, const ScalarsSeen& seen) {
  const ir::Attribute& a = pa.attr;
  using T = ir::AttrType;
  const std::pair<bool, T> candidates[] = {
      {seen.f, T::Float},
      {seen.i, T::Int},
      {seen.s, T::String},
      {a.t != nullptr, T::Tensor},
      {pa.g != nullptr, T::Graph},
      {a.sparse_tensor != nullptr, T::SparseTensor},
      {a.tp != nullptr, T::TypeProto},
      {!a.floats.empty(), T::Floats},
      {!a.ints.empty(), T::Ints},
      {!a.strings.empty(), T::Strings},
      {!a.tensors.empty(), T::Tensors},
      {!pa.graphs.empty(), T::Graphs},
      {!a.sparse_tensors.empty(), T::SparseTensors},
      {!a.type_protos.empty(), T::TypeProtos},
  };
  for (const auto& [present, type] : candidates) {
    if (present) return type;
  }
  return T::Undefined;
}

}  // namespace

ir::Type read_type(ReadContext& rc, std::span<const std::byte> bytes) {
  using K = ir::Type::Kind;
  ir::Type t;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.wire != Wire::Len) continue;
    // The members form a oneof: each one present replaces what came before.
    switch (f.number) {
      case 1: {
        Nested scope(rc.wire, "tensor_type", -1, f.offset);
        t = read_tensor_type(rc, f.bytes, K::Tensor);
        break;
      }
      case 8: {
        Nested scope(rc.wire, "sparse_tensor_type", -1, f.offset);
        t = read_tensor_type(rc, f.bytes, K::SparseTensor);
        break;
      }
      case 4: {
        Nested scope(rc.wire, "sequence_type", -1, f.offset);
        t = read_container_type(rc, f.bytes, K::Sequence, 1, "elem_type");
        break;
      }
      case 9: {
        Nested scope(rc.wire, "optional_type", -1, f.offset);
        t = read_container_type(rc, f.bytes, K::Optional, 1, "elem_type");
        break;
      }
      case 5: {
        Nested scope(rc.wire, "map_type", -1, f.offset);
        t = read_container_type(rc, f.bytes, K::Map, 2, "value_type");
        break;
      }
      case 7: {
        Nested scope(rc.wire, "opaque_type", -1, f.offset);
        t = ir::Type{};
        t.kind = K::Opaque;
        MessageReader opaque(rc.wire, f.bytes);
        Field g;
        while (opaque.next(g)) {
          if (g.number == 1) t.opaque_domain = read_string(rc.wire, g, "domain");
          if (g.number == 2) t.opaque_name = read_string(rc.wire, g, "name");
        }
        break;
      }
      default:
        break;
    }
  }
  return t;
}

std::pair<std::string, std::string> read_string_entry(ReadContext& rc, std::span<const std::byte> bytes) {
  std::pair<std::string, std::string> entry;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.wire != Wire::Len) continue;
    if (f.number == 1) entry.first = read_string(rc.wire, f, "key");
    if (f.number == 2) entry.second = read_string(rc.wire, f, "value");
  }
  return entry;
}

std::pair<std::string, int64_t> read_opset(ReadContext& rc, std::span<const std::byte> bytes) {
  std::pair<std::string, int64_t> opset;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.number == 1 && f.wire == Wire::Len) {
      opset.first = canonical_domain(read_string(rc.wire, f, "domain"));
    }
    if (f.number == 2 && f.wire == Wire::Varint) opset.second = f.as_int64();
  }
  return opset;
}

ParsedAttribute read_attribute(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset) {
  ParsedAttribute pa;
  ir::Attribute& a = pa.attr;
  WireContext& wire = rc.wire;
  ScalarsSeen seen;
  int32_t type = 0;
  MessageReader reader(wire, bytes);
  Field f;
  while (reader.next(f)) {
    const bool len = f.wire == Wire::Len;
    switch (f.number) {
      case 1:
        if (len) a.name = read_string(wire, f, "name");
        break;
      case 2:
        if (f.wire == Wire::Fixed32) {
          a.f = f.as_float();
          seen.f = true;
        }
        break;
      case 3:
        if (f.wire == Wire::Varint) {
          a.i = f.as_int64();
          seen.i = true;
        }
        break;
      case 4:
        if (len) {
          a.s = to_string(f.bytes);
          seen.s = true;
        }
        break;
      case 5:
        if (len) {
          Nested scope(wire, "t", -1, f.offset);
          a.t = std::make_shared<const ir::TensorData>(read_tensor(rc, f.bytes, f.offset));
        }
        break;
      case 6:
        if (len) {
          Nested scope(wire, "g", -1, f.offset);
          pa.g = std::make_unique<ParsedGraph>(read_graph(rc, f.bytes));
        }
        break;
      case 7:
        each_fixed<4>(wire, f, [&](uint64_t v) { a.floats.push_back(float_from_bits(v)); });
        break;
      case 8:
        each_varint(wire, f, [&](uint64_t v) { a.ints.push_back(static_cast<int64_t>(v)); });
        break;
      case 9:
        if (len) a.strings.push_back(to_string(f.bytes));
        break;
      case 10:
        if (len) {
          Nested scope(wire, "tensors", count_of(a.tensors.size()), f.offset);
          a.tensors.push_back(read_tensor(rc, f.bytes, f.offset));
        }
        break;
      case 11:
        if (len) {
          Nested scope(wire, "graphs", count_of(pa.graphs.size()), f.offset);
          pa.graphs.push_back(std::make_unique<ParsedGraph>(read_graph(rc, f.bytes)));
        }
        break;
      case 13:
        if (len) read_string(wire, f, "doc_string");
        break;
      case 14:
        if (len) {
          Nested scope(wire, "tp", -1, f.offset);
          a.tp = std::make_shared<const ir::Type>(read_type(rc, f.bytes));
        }
        break;
      case 15:
        if (len) {
          Nested scope(wire, "type_protos", count_of(a.type_protos.size()), f.offset);
          a.type_protos.push_back(read_type(rc, f.bytes));
        }
        break;
      case 20:
        if (f.wire == Wire::Varint) type = f.as_int32();
        break;
      case 21:
        if (len) a.ref_attr_name = read_string(wire, f, "ref_attr_name");
        break;
      case 22:
        if (len) {
          Nested scope(wire, "sparse_tensor", -1, f.offset);
          a.sparse_tensor =
              std::make_shared<const ir::SparseTensorData>(read_sparse_tensor(rc, f.bytes, f.offset));
        }
        break;
      case 23:
        if (len) {
          Nested scope(wire, "sparse_tensors", count_of(a.sparse_tensors.size()), f.offset);
          a.sparse_tensors.push_back(read_sparse_tensor(rc, f.bytes, f.offset));
        }
        break;
      default:
        break;
    }
  }

  const auto quoted = [&] { return "attribute '" + a.name + "'"; };
  if (type < 0 || type > static_cast<int32_t>(ir::AttrType::TypeProtos)) {
    wire.fail(Kind::Unsupported, quoted() + " has unknown type " + std::to_string(type), offset, "type");
  }
  a.type = static_cast<ir::AttrType>(type);
  if (!a.ref_attr_name.empty()) {
    // A reference to an attribute of the calling function: whatever value was written is meaningless.
    pa.g.reset();
    pa.graphs.clear();
    return pa;
  }
  if (a.type == ir::AttrType::Undefined) {
    a.type = inferred_type(pa, seen);
    if (a.type == ir::AttrType::Undefined) {
      wire.fail(Kind::InvalidModel, quoted() + " has neither a type nor a value", offset);
    }
  }
  const auto require = [&](bool present, const char* what) {
    if (!present) {
      wire.fail(Kind::InvalidModel, quoted() + " is declared as " + what + " but holds none", offset);
    }
  };
  switch (a.type) {
    case ir::AttrType::Tensor:
      require(a.t != nullptr, "a tensor");
      break;
    case ir::AttrType::Graph:
      require(pa.g != nullptr, "a graph");
      break;
    case ir::AttrType::SparseTensor:
      require(a.sparse_tensor != nullptr, "a sparse tensor");
      break;
    case ir::AttrType::TypeProto:
      require(a.tp != nullptr, "a type");
      break;
    default:
      break;
  }
  // Only the graphs the declared type names are part of the model; others would never be resolved or run.
  if (a.type != ir::AttrType::Graph) pa.g.reset();
  if (a.type != ir::AttrType::Graphs) pa.graphs.clear();
  return pa;
}

ParsedNode read_node(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset, int32_t file_index) {
  ParsedNode n;
  n.offset = offset;
  n.node.file_index = file_index;
  n.node.field_path = rc.wire.path();
  WireContext& wire = rc.wire;
  MessageReader reader(wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.wire != Wire::Len) continue;
    switch (f.number) {
      case 1:
        n.inputs.push_back(read_string(wire, f, "input", count_of(n.inputs.size())));
        break;
      case 2:
        n.outputs.push_back(read_string(wire, f, "output", count_of(n.outputs.size())));
        break;
      case 3:
        n.node.name = read_string(wire, f, "name");
        break;
      case 4:
        n.node.op_type = read_string(wire, f, "op_type");
        break;
      case 5: {
        Nested scope(wire, "attribute", count_of(n.attributes.size()), f.offset);
        n.attributes.push_back(read_attribute(rc, f.bytes, f.offset));
        break;
      }
      case 6:
        read_string(wire, f, "doc_string");
        break;
      case 7:
        n.node.domain = canonical_domain(read_string(wire, f, "domain"));
        break;
      case 8:
        n.node.overload = read_string(wire, f, "overload");
        break;
      default:
        break;
    }
  }
  return n;
}

ParsedGraph read_graph(ReadContext& rc, std::span<const std::byte> bytes) {
  ParsedGraph g;
  g.field_path = rc.wire.path();
  WireContext& wire = rc.wire;
  MessageReader reader(wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.wire != Wire::Len) continue;  // every GraphProto field read here is length-delimited
    switch (f.number) {
      case 1: {
        const auto index = static_cast<int32_t>(g.nodes.size());
        Nested scope(wire, "node", index, f.offset);
        g.nodes.push_back(read_node(rc, f.bytes, f.offset, index));
        break;
      }
      case 2:
        g.name = read_string(wire, f, "name");
        break;
      case 5: {
        Nested scope(wire, "initializer", count_of(g.initializers.size()), f.offset);
        g.initializers.push_back({read_tensor(rc, f.bytes, f.offset), f.offset});
        break;
      }
      case 10:
        read_string(wire, f, "doc_string");
        break;
      case 11:
      case 12:
      case 13: {
        auto& list = f.number == 11 ? g.inputs : f.number == 12 ? g.outputs : g.value_info;
        const char* name = f.number == 11 ? "input" : f.number == 12 ? "output" : "value_info";
        Nested scope(wire, name, count_of(list.size()), f.offset);
        list.push_back(read_value_info(rc, f.bytes, f.offset));
        break;
      }
      case 15: {
        Nested scope(wire, "sparse_initializer", count_of(g.sparse_initializers.size()), f.offset);
        g.sparse_initializers.push_back({read_sparse_tensor(rc, f.bytes, f.offset), f.offset});
        break;
      }
      default:
        break;
    }
  }
  return g;
}

}  // namespace onemodel::onnx
