#include "kernels/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>
#endif

namespace onemodel {
namespace {

#if defined(__x86_64__) || defined(__i386__)

struct X86Features {
  bool sse41 = false, avx2_fma = false, avx512 = false, avx512_vnni = false, avx512_vbmi = false;
};

bool bit(uint32_t reg, int index) {
  return (reg >> index) & 1u;
}

// XCR0: which register states the OS saves on a context switch. Only valid when cpuid reports OSXSAVE.
uint64_t read_xcr0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

// ONEMODEL_CPU_DISABLE: a comma-separated list of the optional extensions a kernel path may use inside itself
// (avx512_vnni, avx512_vbmi) to treat as absent, so the code for CPUs without them runs and is tested on one
// that has them. It changes speed only: every variant gives the same bits.
bool disabled(std::string_view feature) {
  const char* env = std::getenv("ONEMODEL_CPU_DISABLE");
  if (env == nullptr) return false;
  for (std::string_view list(env); !list.empty();) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == feature) return true;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return false;
}

X86Features detect() {
  X86Features f;
  uint32_t eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  f.sse41 = bit(ecx, 19);
  const bool fma = bit(ecx, 12), osxsave = bit(ecx, 27), avx = bit(ecx, 28);
  if (!osxsave || !avx) return f;
  const uint64_t xcr0 = read_xcr0();
  const bool os_ymm = (xcr0 & 0x6) == 0x6;    // XMM and upper YMM halves
  const bool os_zmm = (xcr0 & 0xE6) == 0xE6;  // plus opmask, upper ZMM halves and ZMM16-31
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return f;
  const bool avx2 = bit(ebx, 5);
  const bool avx512_f = bit(ebx, 16), avx512_dq = bit(ebx, 17), avx512_bw = bit(ebx, 30),
             avx512_vl = bit(ebx, 31);
  f.avx2_fma = os_ymm && avx2 && fma;
  // Our AVX-512 path is also compiled with -mfma, so it needs the AVX2+FMA conditions too.
  f.avx512 = f.avx2_fma && os_zmm && avx512_f && avx512_dq && avx512_bw && avx512_vl;
  f.avx512_vnni = f.avx512 && bit(ecx, 11) && !disabled("avx512_vnni");
  f.avx512_vbmi = f.avx512 && bit(ecx, 1) && !disabled("avx512_vbmi");
  return f;
}

const X86Features& features() {
  static const X86Features f = detect();
  return f;
}

#endif

}  // namespace

bool cpu_supports(KernelPath path) {
  switch (path) {
    case KernelPath::Scalar:
      return true;
#if defined(__x86_64__) || defined(__i386__)
    case KernelPath::V128:
      return features().sse41;
    case KernelPath::Avx2:
      return features().avx2_fma;
    case KernelPath::Avx512:
      return features().avx512;
#else
    case KernelPath::V128:
      // NEON is part of every arm64 CPU; a wasm module built with SIMD128 only loads where SIMD128 exists.
#if defined(__aarch64__) || defined(__EMSCRIPTEN__) || defined(__wasm__)
      return true;
#else
      return false;
#endif
    case KernelPath::Avx2:
    case KernelPath::Avx512:
      return false;
#endif
  }
  return false;
}

bool cpu_has_avx512_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  return features().avx512_vnni;
#else
  return false;
#endif
}

bool cpu_has_avx512_vbmi() {
#if defined(__x86_64__) || defined(__i386__)
  return features().avx512_vbmi;
#else
  return false;
#endif
}

}  // namespace onemodel
