// DEFLATE decoding in the canonical-Huffman style: each code is decoded bit by bit against per-length counts,
// which needs no lookup tables beyond 320 symbols and keeps every read checked.
#include "support/gunzip.h"

#include <array>
#include <string>

namespace onemodel::test {
namespace {

constexpr int kMaxBits = 15;

[[noreturn]] void fail(const std::string& what) {
  throw GunzipError("gunzip: " + what);
}

class BitReader {
 public:
  BitReader(std::span<const uint8_t> in, size_t pos) : in_(in), pos_(pos) {}

  uint32_t bits(int n) {
    uint32_t v = bitbuf_;
    while (bitcnt_ < n) {
      if (pos_ >= in_.size()) fail("truncated deflate stream");
      v |= uint32_t{in_[pos_++]} << bitcnt_;
      bitcnt_ += 8;
    }
    bitbuf_ = n < 32 ? v >> n : 0;
    bitcnt_ -= n;
    return n < 32 ? v & ((uint32_t{1} << n) - 1) : v;
  }
  // Drops the bits left in the current byte (stored blocks start on a byte boundary).
  void align() {
    bitbuf_ = 0;
    bitcnt_ = 0;
  }
  uint8_t byte() {
    if (pos_ >= in_.size()) fail("truncated stored block");
    return in_[pos_++];
  }
  size_t position() const { return pos_; }

 private:
  std::span<const uint8_t> in_;
  size_t pos_;
  uint32_t bitbuf_ = 0;
  int bitcnt_ = 0;
};

// A canonical Huffman code: how many codes of each length and the symbols ordered by code.
struct Huffman {
  std::array<uint16_t, kMaxBits + 1> count{};
  std::array<uint16_t, 320> symbol{};

  // Builds the code from per-symbol lengths; an over-subscribed code is malformed. An incomplete code is
  // allowed (RFC 1951 permits a single distance code), decoding then rejects the unused patterns.
  void build(const uint8_t* lengths, int n) {
    count.fill(0);
    for (int s = 0; s < n; ++s) ++count[lengths[s]];
    int left = 1;
    for (int len = 1; len <= kMaxBits; ++len) {
      left = (left << 1) - count[len];
      if (left < 0) fail("over-subscribed Huffman code");
    }
    std::array<uint16_t, kMaxBits + 1> offset{};
    for (int len = 1; len < kMaxBits; ++len)
      offset[len + 1] = static_cast<uint16_t>(offset[len] + count[len]);
    for (int s = 0; s < n; ++s) {
      if (lengths[s] != 0) symbol[offset[lengths[s]]++] = static_cast<uint16_t>(s);
    }
  }

  int decode(BitReader& br) const {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= kMaxBits; ++len) {
      code |= static_cast<int>(br.bits(1));
      const int c = count[len];
      if (code - c < first) return symbol[index + (code - first)];
      index += c;
      first = (first + c) << 1;
      code <<= 1;
    }
    fail("invalid Huffman code");
  }
};

constexpr std::array<uint16_t, 29> kLengthBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                  15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                  67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<uint16_t, 30> kDistBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<uint8_t, 30> kDistExtra = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

class Inflater {
 public:
  Inflater(BitReader& br, std::vector<uint8_t>& out, size_t max_output)
      : br_(br), out_(out), max_(max_output) {}

  void run() {
    bool last = false;
    while (!last) {
      last = br_.bits(1) != 0;
      switch (br_.bits(2)) {
        case 0:
          stored();
          break;
        case 1:
          fixed();
          break;
        case 2:
          dynamic();
          break;
        default:
          fail("reserved block type 3");
      }
    }
  }

 private:
  void put(uint8_t b) {
    if (out_.size() >= max_) fail("output larger than " + std::to_string(max_) + " bytes");
    out_.push_back(b);
  }

  void stored() {
    br_.align();
    const uint16_t len = static_cast<uint16_t>(br_.byte() | (br_.byte() << 8));
    const uint16_t nlen = static_cast<uint16_t>(br_.byte() | (br_.byte() << 8));
    if (len != static_cast<uint16_t>(~nlen)) fail("stored block length check failed");
    for (int i = 0; i < len; ++i) put(br_.byte());
  }

  void codes(const Huffman& lit, const Huffman& dist) {
    for (;;) {
      const int sym = lit.decode(br_);
      if (sym < 256) {
        put(static_cast<uint8_t>(sym));
        continue;
      }
      if (sym == 256) return;
      const int li = sym - 257;
      if (li >= 29) fail("invalid length symbol");
      const size_t len = kLengthBase[li] + br_.bits(kLengthExtra[li]);
      const int di = dist.decode(br_);
      if (di >= 30) fail("invalid distance symbol");
      const size_t d = kDistBase[di] + br_.bits(kDistExtra[di]);
      if (d > out_.size()) fail("distance reaches before the start of the output");
      for (size_t i = 0; i < len; ++i) put(out_[out_.size() - d]);
    }
  }

  void fixed() {
    std::array<uint8_t, 288> lengths{};
    for (int s = 0; s < 288; ++s) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    Huffman lit, dist;
    lit.build(lengths.data(), 288);
    lengths.fill(5);
    dist.build(lengths.data(), 30);
    codes(lit, dist);
  }

  void dynamic() {
    const int nlen = static_cast<int>(br_.bits(5)) + 257;
    const int ndist = static_cast<int>(br_.bits(5)) + 1;
    const int ncode = static_cast<int>(br_.bits(4)) + 4;
    if (nlen > 286 || ndist > 30) fail("too many length or distance codes");
    static constexpr std::array<uint8_t, 19> kOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                       11, 4,  12, 3, 13, 2, 14, 1, 15};
    std::array<uint8_t, 320> lengths{};
    for (int i = 0; i < ncode; ++i) lengths[kOrder[i]] = static_cast<uint8_t>(br_.bits(3));
    Huffman lencode;
    lencode.build(lengths.data(), 19);
    lengths.fill(0);
    int index = 0;
    while (index < nlen + ndist) {
      const int sym = lencode.decode(br_);
      if (sym < 16) {
        lengths[index++] = static_cast<uint8_t>(sym);
        continue;
      }
      uint8_t value = 0;
      int repeat;
      if (sym == 16) {
        if (index == 0) fail("length repeat with no previous length");
        value = lengths[index - 1];
        repeat = 3 + static_cast<int>(br_.bits(2));
      } else if (sym == 17) {
        repeat = 3 + static_cast<int>(br_.bits(3));
      } else {
        repeat = 11 + static_cast<int>(br_.bits(7));
      }
      if (index + repeat > nlen + ndist) fail("code lengths overrun");
      while (repeat-- > 0) lengths[index++] = value;
    }
    if (lengths[256] == 0) fail("no end-of-block code");
    Huffman lit, dist;
    lit.build(lengths.data(), nlen);
    dist.build(lengths.data() + nlen, ndist);
    codes(lit, dist);
  }

  BitReader& br_;
  std::vector<uint8_t>& out_;
  size_t max_;
};

uint32_t read_le32(std::span<const uint8_t> in, size_t pos) {
  if (pos + 4 > in.size()) fail("truncated gzip trailer");
  return uint32_t{in[pos]} | uint32_t{in[pos + 1]} << 8 | uint32_t{in[pos + 2]} << 16 |
         uint32_t{in[pos + 3]} << 24;
}

// Skips a member header; returns the offset of its deflate data.
size_t skip_header(std::span<const uint8_t> in, size_t pos) {
  auto need = [&](size_t n) {
    if (pos + n > in.size()) fail("truncated gzip header");
  };
  need(10);
  if (in[pos] != 0x1f || in[pos + 1] != 0x8b) fail("not a gzip file");
  if (in[pos + 2] != 8) fail("compression method is not deflate");
  const uint8_t flags = in[pos + 3];
  if (flags & 0xe0) fail("reserved header flags set");
  pos += 10;
  if (flags & 0x04) {  // FEXTRA
    need(2);
    const size_t xlen = in[pos] | (in[pos + 1] << 8);
    pos += 2;
    need(xlen);
    pos += xlen;
  }
  for (uint8_t bit : {uint8_t{0x08}, uint8_t{0x10}}) {  // FNAME, FCOMMENT: zero-terminated
    if (!(flags & bit)) continue;
    while (true) {
      need(1);
      if (in[pos++] == 0) break;
    }
  }
  if (flags & 0x02) {  // FHCRC
    need(2);
    pos += 2;
  }
  return pos;
}

}  // namespace

uint32_t crc32(std::span<const uint8_t> data, uint32_t crc) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (uint8_t b : data) crc = table[(crc ^ b) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::vector<uint8_t> gunzip(std::span<const uint8_t> gz, size_t max_output) {
  std::vector<uint8_t> out;
  size_t pos = 0;
  do {
    const size_t start = out.size();
    BitReader br(gz, skip_header(gz, pos));
    Inflater(br, out, max_output).run();
    pos = br.position();
    const uint32_t want_crc = read_le32(gz, pos);
    const uint32_t want_size = read_le32(gz, pos + 4);
    pos += 8;
    const std::span<const uint8_t> member(out.data() + start, out.size() - start);
    if (crc32(member) != want_crc) fail("CRC-32 mismatch");
    if (static_cast<uint32_t>(member.size()) != want_size) fail("ISIZE mismatch");
  } while (pos < gz.size());
  return out;
}

}  // namespace onemodel::test
