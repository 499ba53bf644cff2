// The packed form of sequences and optionals (graph/packed_value.h, onemodel/packed.h): round trips of every
// kind, the element type of empty sequences, views that are aligned, and hostile bytes refused with
// InvalidInput (every truncation, and every single-byte change either refused or decoding to a value that
// encodes back to exactly the changed bytes).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "graph/packed_value.h"
#include "onemodel/onemodel.h"

namespace onemodel {
namespace {

bool same(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.byte_size() == 0 || std::memcmp(a.raw(), b.raw(), a.byte_size()) == 0);
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.byte_size() == b.byte_size() && std::memcmp(a.raw(), b.raw(), a.byte_size()) == 0;
}

Tensor with_bytes(std::span<const std::byte> bytes) {
  Tensor t(DType::U8, {static_cast<int64_t>(bytes.size())});
  if (!bytes.empty()) std::memcpy(t.raw(), bytes.data(), bytes.size());
  return t;
}

// A few tensors of mixed ranks and sizes (a scalar, an empty one, odd byte counts that need padding).
std::vector<Tensor> float_elements() {
  return {Tensor::from<float>({1.5f, -2, 3}, {3}), Tensor::from<float>({7}, {}),
          Tensor(DType::F32, {2, 0, 4}), Tensor::from<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3})};
}

SessionError::Kind thrown(const std::function<void()>& call, std::string* message = nullptr) {
  try {
    call();
  } catch (const SessionError& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "nothing thrown";
  return SessionError::Kind::Disposed;
}

TEST(PackedValue, SequenceRoundTrip) {
  const std::vector<Tensor> elements = float_elements();
  const Tensor packed = pack_sequence(elements, DType::F32);
  EXPECT_EQ(packed.dtype(), DType::U8);
  EXPECT_EQ(packed.shape().size(), 1u);
  EXPECT_TRUE(is_packed_value(packed));
  EXPECT_EQ(sequence_element_type(packed), DType::F32);
  const std::vector<Tensor> back = unpack_sequence(packed);
  ASSERT_EQ(back.size(), elements.size());
  for (size_t i = 0; i < elements.size(); ++i) EXPECT_TRUE(same(back[i], elements[i])) << i;
}

TEST(PackedValue, OtherElementTypes) {
  const std::vector<Tensor> bytes = {Tensor::from<uint8_t>({1, 2, 3, 4, 5}, {5}),
                                     Tensor::from<uint8_t>({9}, {1})};
  const std::vector<Tensor> longs = {Tensor::from<int64_t>({-1, INT64_MAX}, {2, 1})};
  const std::vector<Tensor> doubles = {Tensor::from<double>({0.25}, {1, 1, 1, 1, 1, 1, 1, 1})};
  for (const auto* set : {&bytes, &longs, &doubles}) {
    const Tensor packed = pack_sequence(*set, set->front().dtype());
    const std::vector<Tensor> back = unpack_sequence(packed);
    ASSERT_EQ(back.size(), set->size());
    for (size_t i = 0; i < set->size(); ++i) EXPECT_TRUE(same(back[i], (*set)[i]));
  }
}

TEST(PackedValue, EmptySequenceKeepsItsType) {
  for (DType t : {DType::F32, DType::I64, DType::Bool, DType::F16}) {
    const Tensor packed = pack_sequence({}, t);
    EXPECT_EQ(sequence_element_type(packed), t);
    EXPECT_TRUE(unpack_sequence(packed).empty());
  }
}

TEST(PackedValue, OptionalRoundTrips) {
  const UnpackedOptional none = unpack_optional(pack_optional());
  EXPECT_EQ(none.content, OptionalContent::None);

  const Tensor x = Tensor::from<int32_t>({4, 5, 6}, {3, 1});
  const UnpackedOptional one = unpack_optional(pack_optional(x));
  EXPECT_EQ(one.content, OptionalContent::Tensor);
  EXPECT_TRUE(same(one.tensor, x));

  const std::vector<Tensor> elements = float_elements();
  const UnpackedOptional seq = unpack_optional(pack_optional_sequence(elements, DType::F32));
  EXPECT_EQ(seq.content, OptionalContent::Sequence);
  EXPECT_EQ(seq.sequence_element_type, DType::F32);
  ASSERT_EQ(seq.sequence.size(), elements.size());
  for (size_t i = 0; i < elements.size(); ++i) EXPECT_TRUE(same(seq.sequence[i], elements[i]));

  const UnpackedOptional empty_seq = unpack_optional(pack_optional_sequence({}, DType::I8));
  EXPECT_EQ(empty_seq.content, OptionalContent::Sequence);
  EXPECT_EQ(empty_seq.sequence_element_type, DType::I8);
  EXPECT_TRUE(empty_seq.sequence.empty());
}

TEST(PackedValue, KindsAreNotConfused) {
  EXPECT_EQ(thrown([] { unpack_sequence(pack_optional()); }), SessionError::Kind::InvalidInput);
  EXPECT_EQ(thrown([] { unpack_optional(pack_sequence({}, DType::F32)); }), SessionError::Kind::InvalidInput);
  EXPECT_FALSE(is_packed_value(Tensor::from<float>({1, 2}, {2})));
  EXPECT_FALSE(is_packed_value(Tensor::from<uint8_t>({'O', 'M', 'P', 'V', 9, 0, 0, 0}, {8})));
  EXPECT_EQ(thrown([] {
              unpack_sequence(Tensor::from<float>({1, 2}, {2}));
            }),
            SessionError::Kind::InvalidInput);
}

TEST(PackedValue, PackRefusesMixedTypes) {
  const std::vector<Tensor> mixed = {Tensor::from<float>({1}, {1}), Tensor::from<int32_t>({1}, {1})};
  EXPECT_EQ(thrown([&] { pack_sequence(mixed, DType::F32); }), SessionError::Kind::InvalidInput);
  const std::vector<Tensor> handle = {Tensor()};
  EXPECT_EQ(thrown([&] { pack_sequence(handle, DType::F32); }), SessionError::Kind::InvalidInput);
}

// Element data starts at a multiple of 8 bytes from the value's start, and the value starts 64-byte aligned.
TEST(PackedValue, ViewsAreAligned) {
  const std::vector<Tensor> mixed_ranks = {Tensor::from<double>({1, 2, 3}, {3}),
                                           Tensor::from<double>({4}, {}),
                                           Tensor::from<double>({5, 6}, {1, 2})};
  const Tensor p = pack_sequence(mixed_ranks, DType::F64);
  const packed::Value v = packed::parse(p.bytes());
  ASSERT_EQ(v.kind, packed::Kind::Sequence);
  const auto base = reinterpret_cast<uintptr_t>(p.raw());
  size_t i = 0;
  v.sequence.for_each([&](const packed::Record& r) {
    EXPECT_EQ((reinterpret_cast<uintptr_t>(r.tensor.data) - base) % 8, 0u);
    EXPECT_EQ(std::memcmp(r.tensor.data, mixed_ranks[i].raw(), mixed_ranks[i].byte_size()), 0);
    ++i;
  });
  EXPECT_EQ(i, mixed_ranks.size());
}

// Every valid encoding used below, to be cut and altered.
std::vector<Tensor> samples() {
  const std::vector<Tensor> elements = float_elements();
  const std::vector<Tensor> bytes = {Tensor::from<uint8_t>({1, 2, 3}, {3}),
                                     Tensor::from<uint8_t>({4}, {1, 1})};
  return {pack_sequence(elements, DType::F32),
          pack_sequence(bytes, DType::U8),
          pack_sequence({}, DType::I64),
          pack_optional(),
          pack_optional(Tensor::from<int16_t>({1, 2, 3}, {3})),
          pack_optional_sequence(bytes, DType::U8),
          pack_optional_sequence({}, DType::F32)};
}

// The packed value encoded anew from what was decoded, for the canonical-encoding check.
Tensor reencoded(const Tensor& t) {
  const packed::Value v = packed::parse(t.bytes());
  if (v.kind == packed::Kind::Sequence) return pack_sequence(unpack_sequence(t), sequence_element_type(t));
  const UnpackedOptional o = unpack_optional(t);
  if (o.content == OptionalContent::None) return pack_optional();
  if (o.content == OptionalContent::Tensor) return pack_optional(o.tensor);
  return pack_optional_sequence(o.sequence, o.sequence_element_type);
}

TEST(PackedValue, EveryTruncationIsRefused) {
  for (const Tensor& whole : samples()) {
    const auto bytes = whole.bytes();
    for (size_t n = 0; n < bytes.size(); ++n) {
      const Tensor cut = with_bytes(bytes.first(n));
      std::string message;
      EXPECT_EQ(thrown([&] { packed::parse(cut.bytes()); }, &message), SessionError::Kind::InvalidInput) << n;
      EXPECT_NE(message.find("packed value:"), std::string::npos) << message;
    }
  }
}

TEST(PackedValue, TrailingBytesAreRefused) {
  for (const Tensor& whole : samples()) {
    std::vector<std::byte> longer(whole.bytes().begin(), whole.bytes().end());
    longer.resize(longer.size() + 8);
    const Tensor t = with_bytes(longer);
    EXPECT_EQ(thrown([&] { packed::parse(t.bytes()); }), SessionError::Kind::InvalidInput);
  }
}

// A changed byte is either refused with InvalidInput or yields a valid value whose encoding is the changed
// bytes themselves (a data byte, or a header field changed to another consistent value).
TEST(PackedValue, EverySingleByteChangeIsRefusedOrCanonical) {
  for (const Tensor& whole : samples()) {
    const auto bytes = whole.bytes();
    for (size_t at = 0; at < bytes.size(); ++at) {
      for (int delta : {1, 0x7F, 0x80, 0xFF}) {
        std::vector<std::byte> changed(bytes.begin(), bytes.end());
        changed[at] = static_cast<std::byte>((static_cast<int>(changed[at]) + delta) & 0xFF);
        const Tensor t = with_bytes(changed);
        try {
          packed::parse(t.bytes());
        } catch (const SessionError& e) {
          EXPECT_EQ(e.kind(), SessionError::Kind::InvalidInput);
          continue;
        }
        EXPECT_TRUE(same_bytes(reencoded(t), t)) << "byte " << at << " + " << delta;
      }
    }
  }
}

// Specific hostile headers, each named in the message.
TEST(PackedValue, HostileFieldsAreNamed) {
  const Tensor base = pack_sequence(std::vector<Tensor>{Tensor::from<float>({1, 2}, {2})}, DType::F32);
  auto patched = [&](size_t offset, std::initializer_list<uint8_t> values) {
    std::vector<std::byte> b(base.bytes().begin(), base.bytes().end());
    size_t i = offset;
    for (uint8_t v : values) b[i++] = static_cast<std::byte>(v);
    return with_bytes(b);
  };
  struct Case {
    size_t offset;
    std::initializer_list<uint8_t> values;
    const char* words;
  };
  // Layout: header 0..7, element type 8..11, count 12..15, record: type 16..19, rank 20..23, extent 24..31.
  const Case cases[] = {
      {0, {'X'}, "tag"},
      {4, {7}, "unknown kind"},
      {5, {1}, "padding"},
      {8, {8}, "cannot be packed"},              // string elements: handles, not bytes
      {12, {0xFF, 0xFF, 0xFF, 0x7F}, "claims"},  // a count far beyond the bytes
      {12, {2}, "element 1"},                    // one record missing
      {16, {7}, "in a sequence of"},             // a record of another type
      {20, {9}, "rank 9"},
      {24, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, "negative extent"},
      {24, {0, 0, 0, 0, 1}, "above 2^31-1"},
      {24, {3}, "data needs"},
  };
  for (const Case& c : cases) {
    const Tensor t = patched(c.offset, c.values);
    std::string message;
    EXPECT_EQ(thrown([&] { unpack_sequence(t); }, &message), SessionError::Kind::InvalidInput) << c.words;
    EXPECT_NE(message.find(c.words), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace onemodel
