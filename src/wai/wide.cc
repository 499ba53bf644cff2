// Sign-magnitude 512-bit integers: only what the bounds pass needs, each operation exact.
#include "wai/wide.h"

#include <algorithm>

namespace onemodel::wai {
namespace {

using Mag = std::array<uint64_t, 8>;

int cmp_mag(const Mag& a, const Mag& b) {
  for (int i = 7; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

Mag add_mag(const Mag& a, const Mag& b) {
  Mag r{};
  u128 carry = 0;
  for (int i = 0; i < 8; ++i) {
    const u128 s = u128(a[i]) + b[i] + carry;
    r[i] = uint64_t(s);
    carry = s >> 64;
  }
  return r;
}

// a - b for a >= b.
Mag sub_mag(const Mag& a, const Mag& b) {
  Mag r{};
  uint64_t borrow = 0;
  for (int i = 0; i < 8; ++i) {
    const u128 d = u128(a[i]) - b[i] - borrow;
    r[i] = uint64_t(d);
    borrow = (d >> 64) != 0 ? 1 : 0;
  }
  return r;
}

Mag shr_mag(const Mag& a, int s) {
  Mag r{};
  const int limbs = s / 64, bits = s % 64;
  for (int i = 0; i + limbs < 8; ++i) {
    r[i] = a[i + limbs] >> bits;
    if (bits != 0 && i + limbs + 1 < 8) r[i] |= a[i + limbs + 1] << (64 - bits);
  }
  return r;
}

bool low_bits_nonzero(const Mag& a, int s) {
  for (int i = 0; i < 8 && s > 0; ++i, s -= 64) {
    const uint64_t mask = s >= 64 ? ~uint64_t(0) : (uint64_t(1) << s) - 1;
    if ((a[i] & mask) != 0) return true;
  }
  return false;
}

bool mag_zero(const Mag& a) {
  return std::all_of(a.begin(), a.end(), [](uint64_t v) { return v == 0; });
}

int mag_bits(const Mag& a) {
  for (int i = 7; i >= 0; --i)
    if (a[i] != 0) return 64 * i + 64 - __builtin_clzll(a[i]);
  return 0;
}

Mag one_mag() {
  Mag m{};
  m[0] = 1;
  return m;
}

}  // namespace

Wide::Wide(int64_t v) {
  neg_ = v < 0;
  mag_[0] = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
}

Wide Wide::from_u64(uint64_t v) {
  Wide w;
  w.mag_[0] = v;
  return w;
}

Wide Wide::from_i128(i128 v) {
  Wide w;
  w.neg_ = v < 0;
  const u128 m = v < 0 ? u128(0) - u128(v) : u128(v);
  w.mag_[0] = uint64_t(m);
  w.mag_[1] = uint64_t(m >> 64);
  return w;
}

Wide Wide::pow2(int k) {
  Wide w;
  w.mag_[size_t(k / 64)] = uint64_t(1) << (k % 64);
  return w;
}

void Wide::normalise() {
  if (mag_zero(mag_)) neg_ = false;
}

bool Wide::is_zero() const {
  return mag_zero(mag_);
}

int Wide::magnitude_bits() const {
  return mag_bits(mag_);
}

int Wide::bits() const {
  // v >= 0 fits iN when v < 2^(N-1); v < 0 when |v| - 1 < 2^(N-1).
  const int b = neg_ ? mag_bits(sub_mag(mag_, one_mag())) : mag_bits(mag_);
  return b + 1;
}

i128 Wide::clamp_i128() const {
  if (mag_bits(mag_) > 127) {
    const i128 max = i128(~u128(0) >> 1);
    return neg_ ? -max - 1 : max;
  }
  const i128 m = i128((u128(mag_[1]) << 64) | mag_[0]);
  return neg_ ? -m : m;
}

std::string Wide::to_decimal() const {
  if (is_zero()) return "0";
  Mag m = mag_;
  std::string digits;
  constexpr uint64_t kChunk = 10000000000000000000ull;  // 10^19
  while (!mag_zero(m)) {
    u128 rem = 0;
    for (int i = 7; i >= 0; --i) {
      const u128 cur = (rem << 64) | m[i];
      m[i] = uint64_t(cur / kChunk);
      rem = cur % kChunk;
    }
    uint64_t chunk = uint64_t(rem);
    for (int k = 0; k < 19; ++k) {
      digits.push_back(char('0' + chunk % 10));
      chunk /= 10;
    }
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (neg_) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

int compare(const Wide& a, const Wide& b) {
  if (a.neg_ != b.neg_) return a.neg_ ? -1 : 1;
  const int c = cmp_mag(a.mag_, b.mag_);
  return a.neg_ ? -c : c;
}

Wide operator-(const Wide& a) {
  Wide r = a;
  r.neg_ = !a.neg_;
  r.normalise();
  return r;
}

Wide operator+(const Wide& a, const Wide& b) {
  Wide r;
  if (a.neg_ == b.neg_) {
    r.mag_ = add_mag(a.mag_, b.mag_);
    r.neg_ = a.neg_;
  } else if (cmp_mag(a.mag_, b.mag_) >= 0) {
    r.mag_ = sub_mag(a.mag_, b.mag_);
    r.neg_ = a.neg_;
  } else {
    r.mag_ = sub_mag(b.mag_, a.mag_);
    r.neg_ = b.neg_;
  }
  r.normalise();
  return r;
}

Wide operator*(const Wide& a, const Wide& b) {
  std::array<uint64_t, 16> prod{};
  for (int i = 0; i < 8; ++i) {
    if (a.mag_[i] == 0) continue;
    u128 carry = 0;
    for (int j = 0; j < 8; ++j) {
      const u128 t = u128(a.mag_[i]) * b.mag_[j] + prod[size_t(i + j)] + carry;
      prod[size_t(i + j)] = uint64_t(t);
      carry = t >> 64;
    }
    prod[size_t(i + 8)] = uint64_t(carry);
  }
  Wide r;
  std::copy_n(prod.begin(), 8, r.mag_.begin());
  // Operands within 2^255 never reach the upper half; past it, keep the result past every saturation bound.
  if (std::any_of(prod.begin() + 8, prod.end(), [](uint64_t v) { return v != 0; }) || r.mag_[7] >> 63)
    r.mag_ = Wide::pow2(510).mag_;
  r.neg_ = a.neg_ != b.neg_;
  r.normalise();
  return r;
}

Wide floor_div(const Wide& a, uint64_t d) {
  Wide r;
  u128 rem = 0;
  for (int i = 7; i >= 0; --i) {
    const u128 cur = (rem << 64) | a.mag_[i];
    r.mag_[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  r.neg_ = a.neg_;
  if (a.neg_ && rem != 0) r.mag_ = add_mag(r.mag_, one_mag());  // floor rounds a negative quotient down
  r.normalise();
  return r;
}

Wide floor_shift(const Wide& a, int s) {
  if (s >= 512) return a.neg_ ? Wide(-1) : Wide(0);
  Wide r;
  r.mag_ = shr_mag(a.mag_, s);
  r.neg_ = a.neg_;
  if (a.neg_ && low_bits_nonzero(a.mag_, s)) r.mag_ = add_mag(r.mag_, one_mag());
  r.normalise();
  return r;
}

Wide isqrt(const Wide& a) {
  // Digit-by-digit square root: `bit` walks the powers of four from the highest one at most n.
  Mag n = a.mag_, res{}, bit{};
  const int top = mag_bits(n);
  if (top == 0) return Wide(0);
  const int k = (top - 1) / 2 * 2;
  bit[size_t(k / 64)] = uint64_t(1) << (k % 64);
  while (!mag_zero(bit)) {
    const Mag trial = add_mag(res, bit);
    if (cmp_mag(n, trial) >= 0) {
      n = sub_mag(n, trial);
      res = add_mag(shr_mag(res, 1), bit);
    } else {
      res = shr_mag(res, 1);
    }
    bit = shr_mag(bit, 2);
  }
  Wide r;
  r.mag_ = res;
  return r;
}

Wide SatArith::sat(const Wide& v) {
  static const Wide hi = Wide::pow2(255), lo = -Wide::pow2(255);
  if (v > hi) {
    saturated = true;
    return hi;
  }
  if (v < lo) {
    saturated = true;
    return lo;
  }
  return v;
}

Wide SatArith::isqrt_ceil(const Wide& a) {
  const Wide r = isqrt(a);
  return mul(r, r) == a ? r : add(r, 1);
}

Wide SatArith::round(const Wide& p, int s, Round r) {
  if (s == 0) return p;
  switch (r) {
    case Round::Floor:
      return shr(p, s);
    case Round::HalfUp:
      return shr(add(p, Wide::pow2(s - 1)), s);
    case Round::HalfEven: {
      const Wide q = shr(p, s);
      const Wide rem = sub(p, mul(q, Wide::pow2(s)));
      const Wide h = Wide::pow2(s - 1);
      const bool q_odd = (q - floor_shift(q, 1) * 2) == 1;
      return rem > h || (rem == h && q_odd) ? add(q, 1) : q;
    }
  }
  return p;
}

}  // namespace onemodel::wai
