// SHA-256 against the FIPS 180-4 example digests, fed whole and in uneven pieces (empty pieces included).
#include <gtest/gtest.h>

#include <string>

#include "core/sha256.h"

namespace onemodel {
namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span<const char>(s));
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(bytes_of("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(bytes_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(bytes_of(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PiecesGiveTheSameDigest) {
  const std::string text(1000, 'x');
  const std::string whole = sha256_hex(bytes_of(text));
  for (size_t piece : {1u, 3u, 63u, 64u, 65u, 127u}) {
    Sha256 h;
    for (size_t at = 0; at < text.size(); at += piece) {
      h.update(bytes_of(text.substr(at, piece)));
      h.update(std::span<const std::byte>());  // empty updates change nothing
    }
    EXPECT_EQ(h.hex(), whole) << "pieces of " << piece;
  }
}

}  // namespace
}  // namespace onemodel
