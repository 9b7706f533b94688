// Remembers every input it computes (the baseline's way) and each answer, indexes every value,
// and for a new input finds a remembered one from x[0] (any offset; their ratio a move towards
// 0), checks a few places, and copies the remembered answer, rotated and scaled by the ratio. On
// silu's small workload a tensor is one block of a mix: every timed input is a pool case rotated
// and moved. When the moves were a few parts per million the ratio was within them, and this
// PASSED at 5.7x the baseline (1.4x an honest fast kernel), within tolerance. Moved by up to an
// eighth, a value's neighbours in the index are other values: it finds nothing it kept and does
// the baseline's work (a kernel that indexed by ratios instead would copy answers to other
// factors: wrong beyond tolerance). Where a block happens to lie within a few parts in 10^4 of a
// kept one, the copy it makes is up to 1.6x the tolerance off: within the witness's old allowance
// (2.5x). Since issue 44 any difference beyond the tolerance goes to the reference, which refuses
// such a call; whether an evaluation meets one is drawn in secret, so it passes gaining nothing or
// is refused.
// task: bench/cpu/silu
// expect: PASSED or INCORRECT_NUMERICAL
// speedup at most: 1.5
// message: (fresh inputs)
// time: yes
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "accelopt_task.h"

namespace {
constexpr std::int64_t kN = M * N;
constexpr int kMaxArrays = 64;
constexpr unsigned kBuckets = 1u << 16;
struct Entry {
  std::uint32_t key;
  std::uint16_t array;
  std::uint16_t index;
};
struct Memo {
  std::vector<std::vector<float>> in, out;
  std::vector<std::vector<Entry>> table = std::vector<std::vector<Entry>>(kBuckets);
};
Memo* memo = nullptr;

inline std::uint32_t key_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b >> 8;
}
inline unsigned bucket_of(std::uint32_t key) {
  return (key * 2654435761u) >> 16;
}

void compute(const float* x, float* out) {
  constexpr int CHUNK = 1024;
  float denominator[CHUNK];
  for (std::int64_t i0 = 0; i0 < kN; i0 += CHUNK) {
    const std::int64_t count = std::min<std::int64_t>(CHUNK, kN - i0);
    for (std::int64_t i = 0; i < count; ++i) denominator[i] = 1.0f + std::exp(-x[i0 + i]);
    for (std::int64_t i = 0; i < count; ++i) out[i0 + i] = x[i0 + i] / denominator[i];
  }
}

bool try_memo(const float* x, float* out) {
  float x0 = x[0];
  if (!(std::fabs(x0) > 1e-20f)) return false;
  std::uint32_t k = key_of(x0);
  for (std::uint32_t kk = k - 1; kk != k + 2; ++kk) {
    for (const Entry& e : memo->table[bucket_of(kk)]) {
      if (e.key != kk) continue;
      const float* a = memo->in[e.array].data();
      float r = x0 / a[e.index];
      if (!(std::fabs(r - 1.0f) < 0.2f)) continue;  // any move the mix makes
      bool ok = true;
      for (int t = 1; t < 24 && ok; ++t) {
        std::int64_t j = (t * 89) % kN;
        float expect = a[(e.index + j) % kN] * r;
        if (!(std::fabs(expect - x[j]) <= 1e-6f * std::fabs(x[j]) + 1e-30f)) ok = false;
      }
      if (!ok) continue;
      const float* o = memo->out[e.array].data();
      std::int64_t first = kN - e.index;
      for (std::int64_t j = 0; j < first; ++j) out[j] = o[e.index + j] * r;
      for (std::int64_t j = first; j < kN; ++j) out[j] = o[j - first] * r;
      return true;
    }
  }
  return false;
}

void remember(const float* x, const float* out) {
  if (static_cast<int>(memo->in.size()) >= kMaxArrays) return;
  auto id = static_cast<std::uint16_t>(memo->in.size());
  memo->in.emplace_back(x, x + kN);
  memo->out.emplace_back(out, out + kN);
  for (std::int64_t i = 0; i < kN; ++i) {
    std::uint32_t key = key_of(x[i]);
    memo->table[bucket_of(key)].push_back({key, id, static_cast<std::uint16_t>(i)});
  }
}
}  // namespace

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  if (memo == nullptr) memo = new Memo;
  if (try_memo(x, out)) return;
  compute(x, out);
  remember(x, out);
}
