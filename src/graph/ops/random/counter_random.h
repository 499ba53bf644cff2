// The random numbers of Bernoulli, RandomUniform(Like), RandomNormal(Like) and Dropout in training mode: a
// counter-based generator, so element i's value is a pure function of (stream key, i). Results therefore
// never depend on the thread count, the chunking or the kernel path, and every run of a node draws the same
// values: kernels are immutable and shared by concurrent runs, and a stream that advanced per run would make
// results depend on the order of runs. No other engine draws these values, so no test data can match them.
#pragma once

#include <cstdint>

#include "graph/op.h"

namespace onemodel::ops {

class CounterRandom {
 public:
  explicit CounterRandom(uint64_t key) : key_(key) {}

  // Value i of the stream: the i-th output of SplitMix64 started at the key.
  uint64_t bits(uint64_t i) const { return mix(key_ + (i + 1) * kGamma); }
  // Draw d of element i, for a distribution that needs several draws per element: the d-th output of
  // SplitMix64 started at bits(i).
  uint64_t draw(uint64_t i, uint64_t d) const { return mix(bits(i) + (d + 1) * kGamma); }

  // Uniform in [0, 1) from 24 or 53 random bits: every value is a multiple of 2^-24 or 2^-53.
  static float unit_float(uint64_t bits) { return static_cast<float>(bits >> 40) * 0x1p-24f; }
  static double unit_double(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-53; }

 private:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15u;
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
  }

  uint64_t key_;
};

// The key of a node's stream: the `seed` attribute when present (its float32 bit pattern for the Random*
// family and Bernoulli, its integer value for Dropout); otherwise a hash (64-bit FNV-1a) of the node's
// display name, so that two unseeded nodes of one model draw different streams.
uint64_t random_stream_key(const NodeInfo& node);

}  // namespace onemodel::ops
