// The test-data gunzip against gzip's own output: a fixed-Huffman empty member, a stored block, a named
// header, dynamic blocks and multi-block stored data made by `gzip -9` at test time, concatenated members,
// and corrupted or truncated input (always an error, never a crash).
#include "support/gunzip.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

namespace onemodel::test {
namespace {

std::vector<uint8_t> lcg_bytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> out(n);
  for (auto& b : out) {
    seed = (seed * 1103515245u + 12345u) & 0x7fffffffu;
    b = static_cast<uint8_t>(seed >> 16);
  }
  return out;
}

std::vector<uint8_t> bytes_of(std::string_view s) {
  return {s.begin(), s.end()};
}

// `gzip -9 -n` of an empty file: one final fixed-Huffman block holding only end-of-block.
const std::vector<uint8_t> kEmptyGz = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03,
                                       0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
// `gzip -9 -n` of lcg_bytes(64, 12345): incompressible, so one stored block.
const std::vector<uint8_t> kStoredGz = {
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x01, 0x40, 0x00, 0xbf, 0xff,
    0xdc, 0x04, 0x65, 0xaa, 0x1f, 0xad, 0x1d, 0x5a, 0xda, 0xe5, 0xac, 0x1b, 0x1e, 0x5f, 0x13,
    0x70, 0x79, 0x6c, 0xfd, 0x10, 0xff, 0x19, 0xaf, 0x60, 0x1d, 0x04, 0xac, 0xb4, 0x1d, 0x02,
    0x2b, 0x46, 0x78, 0x73, 0x3a, 0xf2, 0xdf, 0x5f, 0xae, 0xb7, 0x08, 0x59, 0xd1, 0xee, 0x39,
    0x10, 0xcb, 0x48, 0x95, 0xb5, 0xcc, 0x89, 0x29, 0x11, 0xff, 0x06, 0xb6, 0x62, 0x2e, 0xdf,
    0x3c, 0xf9, 0x35, 0xfd, 0x7c, 0xd3, 0x7d, 0x5c, 0x40, 0x00, 0x00, 0x00};
// `gzip -9` of "hello hello hello hello" from a file named "h": FNAME header, fixed block with
// back-references.
const std::vector<uint8_t> kNamedGz = {0x1f, 0x8b, 0x08, 0x08, 0x78, 0x69, 0x0d, 0x6b, 0x02, 0x03,
                                       0x68, 0x00, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40,
                                       0x27, 0x01, 0xe3, 0x51, 0x3d, 0x8d, 0x17, 0x00, 0x00, 0x00};

TEST(Gunzip, Crc32KnownValue) {
  EXPECT_EQ(crc32(bytes_of("123456789")), 0xcbf43926u);  // the standard check value
  EXPECT_EQ(crc32({}), 0u);
}

TEST(Gunzip, EmptyMember) {
  EXPECT_TRUE(gunzip(kEmptyGz).empty());
}

TEST(Gunzip, StoredBlock) {
  EXPECT_EQ(gunzip(kStoredGz), lcg_bytes(64, 12345));
}

TEST(Gunzip, NamedHeaderAndBackReferences) {
  EXPECT_EQ(gunzip(kNamedGz), bytes_of("hello hello hello hello"));
}

TEST(Gunzip, ConcatenatedMembers) {
  std::vector<uint8_t> both = kNamedGz;
  both.insert(both.end(), kStoredGz.begin(), kStoredGz.end());
  std::vector<uint8_t> want = bytes_of("hello hello hello hello");
  const std::vector<uint8_t> rnd = lcg_bytes(64, 12345);
  want.insert(want.end(), rnd.begin(), rnd.end());
  EXPECT_EQ(gunzip(both), want);
}

TEST(Gunzip, CorruptionIsAnError) {
  std::vector<uint8_t> bad_crc = kNamedGz;
  bad_crc[bad_crc.size() - 8] ^= 1;
  EXPECT_THROW(gunzip(bad_crc), GunzipError);
  std::vector<uint8_t> bad_size = kNamedGz;
  bad_size[bad_size.size() - 4] ^= 1;
  EXPECT_THROW(gunzip(bad_size), GunzipError);
  std::vector<uint8_t> bad_magic = kNamedGz;
  bad_magic[1] = 0;
  EXPECT_THROW(gunzip(bad_magic), GunzipError);
  std::vector<uint8_t> bad_stored = kStoredGz;
  bad_stored[13] ^= 0xff;  // NLEN no longer the complement of LEN
  EXPECT_THROW(gunzip(bad_stored), GunzipError);
  std::vector<uint8_t> reserved = kEmptyGz;
  reserved[10] = 0x07;  // final block of reserved type 3
  EXPECT_THROW(gunzip(reserved), GunzipError);
  EXPECT_THROW(gunzip(kNamedGz, 10), GunzipError);  // over the output limit
  for (const auto* gz : {&kEmptyGz, &kStoredGz, &kNamedGz}) {
    for (size_t n = 0; n < gz->size(); ++n) {
      EXPECT_THROW(gunzip(std::span<const uint8_t>(gz->data(), n)), GunzipError) << "truncated to " << n;
    }
  }
}

// Every single-byte corruption of a dynamic-Huffman member either throws GunzipError or (when it lands in
// ignored bits) still yields the right bytes; none crashes or reads out of bounds.
TEST(Gunzip, ByteFlipsNeverCrash) {
  std::vector<uint8_t> gz = kNamedGz;
  for (size_t i = 10; i < gz.size(); ++i) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x10}, uint8_t{0xff}}) {
      gz[i] ^= mask;
      try {
        EXPECT_EQ(gunzip(gz), bytes_of("hello hello hello hello"));
      } catch (const GunzipError&) {
      }
      gz[i] ^= mask;
    }
  }
}

// Buffers compressed by the gzip tool at test time: dynamic blocks (text), several stored blocks (over 64 KiB
// of random bytes) and long runs.
TEST(Gunzip, MatchesGzipTool) {
  ASSERT_EQ(std::system("gzip --version > /dev/null 2>&1"), 0)
      << "the gzip tool (Debian package gzip) is needed";
  const auto dir = std::filesystem::temp_directory_path() / ("onemodel-gunzip-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string text;
  for (int i = 0; i < 4000; ++i) text += "line " + std::to_string(i * 7919 % 1000) + " of the oracle data\n";
  const std::vector<std::vector<uint8_t>> buffers = {bytes_of(text), lcg_bytes(150000, 7),
                                                     std::vector<uint8_t>(300000, 'a'), lcg_bytes(1, 3)};
  for (size_t k = 0; k < buffers.size(); ++k) {
    const auto raw = dir / ("b" + std::to_string(k));
    {
      std::ofstream out(raw, std::ios::binary);
      out.write(reinterpret_cast<const char*>(buffers[k].data()),
                static_cast<std::streamsize>(buffers[k].size()));
    }
    const std::string cmd = "gzip -9 -f -k '" + raw.string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::ifstream in(raw.string() + ".gz", std::ios::binary);
    const std::vector<uint8_t> gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(gunzip(gz), buffers[k]) << "buffer " << k;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onemodel::test
