#include "core/npy.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "onemodel/error.h"

namespace onemodel {
namespace {

std::vector<std::byte> from_hex(std::string_view hex) {
  std::vector<std::byte> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// Files written by NumPy 1.24 (np.save, and format.write_array with version=(2,0) / (3,0)).
constexpr std::string_view kHeadF32 =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046616c73652c2027"
    "7368617065273a2028322c2033292c207d2020202020202020202020202020202020202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020200a";
constexpr std::string_view kDataF32 =
    "000080bf000000bf000000000000003f0000803f0000c03f";  // arange(6) * 0.5 - 1
constexpr std::string_view kNumpyV2F32 =
    "934e554d50590200740000007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046616c73652c"
    "20277368617065273a2028322c2033292c207d2020202020202020202020202020202020202020202020202020202020202020"
    "2020202020202020202020202020202020202020202020200a000080bf000000bf000000000000003f0000803f0000c03f";
constexpr std::string_view kNumpyI64Scalar =
    "934e554d5059010076007b276465736372273a20273c6938272c2027666f727472616e5f6f72646572273a2046616c73652c2027"
    "7368617065273a2028292c207d202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "20"
    "202020202020202020202020202020202020202020200af9ffffffffffffff";
constexpr std::string_view kNumpyBool3 =
    "934e554d5059010076007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046616c73652c2027"
    "7368617065273a2028332c292c207d20202020202020202020202020202020202020202020202020202020202020202020202020"
    "2020"
    "2020202020202020202020202020202020202020200a010001";
constexpr std::string_view kNumpyF16 =
    "934e554d5059010076007b276465736372273a20273c6632272c2027666f727472616e5f6f72646572273a2046616c73652c2027"
    "7368617065273a2028322c292c207d20202020202020202020202020202020202020202020202020202020202020202020202020"
    "2020"
    "2020202020202020202020202020202020202020200a003e00c0";

std::vector<std::byte> numpy_f32(char major) {
  if (major == '1') return from_hex(std::string(kHeadF32) + std::string(kDataF32));
  auto bytes = from_hex(kNumpyV2F32);
  bytes[6] = static_cast<std::byte>(major - '0');
  return bytes;
}

// A .npy image with the given header text (padded as NumPy pads it) followed by `data_bytes` zero bytes.
std::vector<std::byte> make_npy(std::string header, size_t data_bytes, int major = 1) {
  size_t preamble = major == 1 ? 10 : 12;
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::vector<std::byte> out(preamble + header.size() + data_bytes);
  std::memcpy(out.data(), "\x93NUMPY", 6);
  out[6] = static_cast<std::byte>(major);
  for (size_t i = 8; i < preamble; ++i)
    out[i] = static_cast<std::byte>((header.size() >> (8 * (i - 8))) & 0xFF);
  std::memcpy(out.data() + preamble, header.data(), header.size());
  return out;
}

std::string dict(std::string_view descr, std::string_view shape, std::string_view order = "False") {
  return "{'descr': '" + std::string(descr) + "', 'fortran_order': " + std::string(order) +
         ", 'shape': " + std::string(shape) + ", }";
}

ImportError::Kind refusal(const std::vector<std::byte>& bytes) {
  try {
    npy::read(bytes, "hostile.npy");
  } catch (const ImportError& e) {
    EXPECT_EQ(e.input_name(), "hostile.npy");
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return ImportError::Kind::Io;
}

TEST(Npy, ReadsNumpyFloat32InEveryVersion) {
  for (char major : {'1', '2', '3'}) {
    Tensor t = npy::read(numpy_f32(major));
    ASSERT_EQ(t.dtype(), DType::F32);
    EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));
  }
}

TEST(Npy, ReadsNumpyScalarBoolAndHalf) {
  Tensor s = npy::read(from_hex(kNumpyI64Scalar));
  EXPECT_EQ(s.dtype(), DType::I64);
  EXPECT_TRUE(s.shape().empty());
  EXPECT_EQ(s.to_vector<int64_t>(), std::vector<int64_t>{-7});

  Tensor b = npy::read(from_hex(kNumpyBool3));
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.shape(), std::vector<int64_t>{3});
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));

  Tensor h = npy::read(from_hex(kNumpyF16));
  EXPECT_EQ(h.dtype(), DType::F16);
  const auto* bits = static_cast<const uint16_t*>(h.raw());
  EXPECT_EQ(bits[0], 0x3E00);  // 1.5
  EXPECT_EQ(bits[1], 0xC000);  // -2.0
}

TEST(Npy, WritesNumpysHeaderTextAlignedTo64) {
  Tensor t = Tensor::from(std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}, {2, 3});
  auto bytes = npy::write(t);
  auto numpy = numpy_f32('1');
  // NumPy 1.24 reserves extra header room for growing the first axis; the header dict and the data agree.
  size_t header_len = static_cast<size_t>(bytes[8]) | static_cast<size_t>(bytes[9]) << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);
  std::string ours(reinterpret_cast<const char*>(bytes.data()) + 10, header_len);
  EXPECT_EQ(ours.substr(0, ours.find('}') + 1), dict("<f4", "(2, 3)"));
  EXPECT_EQ(ours.back(), '\n');
  EXPECT_TRUE(std::equal(bytes.end() - 24, bytes.end(), numpy.end() - 24));
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + 8, numpy.begin()));
}

template <class T>
void expect_round_trip(std::vector<T> values, std::vector<int64_t> shape) {
  Tensor t = Tensor::from(values, shape);
  Tensor back = npy::read(npy::write(t));
  EXPECT_EQ(back.dtype(), dtype_of<T>());
  EXPECT_EQ(back.shape(), shape);
  EXPECT_EQ(back.to_vector<T>(), values);
}

TEST(Npy, RoundTripsEveryDType) {
  expect_round_trip<float>({1.0f, -0.0f, 3.5e-42f}, {3});
  expect_round_trip<double>({1e300, -2.5}, {2, 1});
  expect_round_trip<int8_t>({-128, 127, 0}, {1, 3});
  expect_round_trip<int16_t>({-32768, 32767}, {2});
  expect_round_trip<int32_t>({-5, 6, 7, 8}, {2, 2});
  expect_round_trip<int64_t>({INT64_MIN, INT64_MAX}, {2});
  expect_round_trip<uint8_t>({0, 255}, {2});
  expect_round_trip<uint16_t>({65535}, {1});
  expect_round_trip<uint32_t>({4000000000u}, {});
  expect_round_trip<uint64_t>({UINT64_MAX, 1}, {2});
  expect_round_trip<float>({}, {0, 4});
  expect_round_trip<float>({2.0f}, {1, 1, 1, 1, 1, 1, 1, 1});

  const bool flags[] = {true, false, false};
  Tensor b = npy::read(npy::write(Tensor::from(std::span<const bool>(flags), {3})));
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, false}));

  Tensor half(DType::F16, {2});
  static_cast<uint16_t*>(half.raw())[0] = 0x7C00;
  Tensor back = npy::read(npy::write(half));
  EXPECT_EQ(back.dtype(), DType::F16);
  EXPECT_EQ(static_cast<const uint16_t*>(back.raw())[0], 0x7C00);
}

TEST(Npy, RoundTripsThroughAFile) {
  auto path = std::filesystem::temp_directory_path() / ("npy_test_" + std::to_string(::getpid()) + ".npy");
  Tensor t = Tensor::from(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {3, 2});
  npy::write_file(path, t);
  Tensor back = npy::read_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(back.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_THROW(npy::read_file(path), ImportError);
}

TEST(Npy, AcceptsHeaderVariantsNumpyAccepts) {
  // Keys in another order, double quotes, no trailing comma, no space padding.
  auto a = make_npy("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}", 8);
  EXPECT_EQ(npy::read(a).shape(), std::vector<int64_t>{2});
  auto b = make_npy(dict("<f8", "( 1 , 2 , )"), 16, 2);
  EXPECT_EQ(npy::read(b).shape(), (std::vector<int64_t>{1, 2}));
  auto c = make_npy(dict("|u1", "(4,)"), 4);
  EXPECT_EQ(npy::read(c).dtype(), DType::U8);
  // Bool bytes other than 0 and 1 read as true.
  auto d = make_npy(dict("|b1", "(2,)"), 2);
  d.back() = std::byte{7};
  EXPECT_EQ(npy::read(d).to_vector<bool>(), (std::vector<bool>{false, true}));
}

TEST(Npy, RefusesHostileHeaders) {
  using K = ImportError::Kind;
  auto good = numpy_f32('1');
  EXPECT_EQ(refusal({}), K::Malformed);
  EXPECT_EQ(refusal(std::vector<std::byte>(good.begin(), good.begin() + 9)), K::Malformed);
  auto bad_magic = good;
  bad_magic[1] = std::byte{'M'};
  EXPECT_EQ(refusal(bad_magic), K::Malformed);
  auto v4 = good;
  v4[6] = std::byte{4};
  EXPECT_EQ(refusal(v4), K::Unsupported);
  auto long_header = good;
  long_header[9] = std::byte{0x10};  // header length 0x1076: past the end
  EXPECT_EQ(refusal(long_header), K::Malformed);
  auto v2_truncated = from_hex(kNumpyV2F32);
  v2_truncated.resize(11);
  EXPECT_EQ(refusal(v2_truncated), K::Malformed);
  auto v2_huge = from_hex(kNumpyV2F32);
  v2_huge[11] = std::byte{0xFF};  // 32-bit length near 4 GiB
  EXPECT_EQ(refusal(v2_huge), K::Malformed);

  // Data length must match the shape exactly.
  EXPECT_EQ(refusal(std::vector<std::byte>(good.begin(), good.end() - 1)), K::Malformed);
  auto extra = good;
  extra.push_back(std::byte{0});
  EXPECT_EQ(refusal(extra), K::Malformed);
  // A huge claimed shape in a tiny file is refused without allocating it.
  EXPECT_EQ(refusal(make_npy(dict("<f4", "(100000, 5000)"), 4)), K::Malformed);

  const std::pair<std::string, K> headers[] = {
      {dict("<f4", "(2, 3)", "True"), K::Unsupported},
      {dict(">f4", "(6,)"), K::Unsupported},
      {dict("<c8", "(3,)"), K::Unsupported},
      {dict("<U4", "(6,)"), K::Unsupported},
      {dict("|O", "(6,)"), K::Unsupported},
      {dict("<f16", "(6,)"), K::Unsupported},
      {dict("<f4", "(1, 1, 1, 1, 1, 1, 1, 1, 6)"), K::Unsupported},
      {dict("<f4", "(3000000000,)"), K::Unsupported},
      {dict("<f4", "(99999999999999999999999,)"), K::Unsupported},
      {dict("<f4", "(100000, 100000, 0)"), K::Unsupported},
      {dict("<f4", "(6)"), K::Malformed},
      {dict("<f4", "(-6,)"), K::Malformed},
      {dict("<f4", "(2, 3"), K::Malformed},
      {dict("<f4", "((6,),)"), K::Malformed},
      {dict("<f4", "[6]"), K::Malformed},
      {dict("<f4", "(6,)", "1"), K::Malformed},
      {"{'descr': '<f4', 'shape': (6,), }", K::Malformed},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", K::Malformed},
      {dict("<f4", "(6,)") + " extra", K::Malformed},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", K::Malformed},
      {"{'descr': '<f4\\x', 'fortran_order': False, 'shape': (6,)}", K::Malformed},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (6,)}", K::Malformed},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,)}", K::Malformed},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (6,)}", K::Malformed},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,)", K::Malformed},
      {"", K::Malformed},
  };
  for (const auto& [header, kind] : headers) {
    EXPECT_EQ(refusal(make_npy(header, 24)), kind) << header;
  }
}

TEST(Npy, RefusesToWriteTypesWithoutANumpyDType) {
  EXPECT_THROW(npy::write(Tensor(DType::BF16, {2})), ImportError);
}

}  // namespace
}  // namespace onemodel
