// Takes over its runner (issue 23, class 1). On its first call it computes the answer, then never
// returns: it reads the command pipe itself, answers DONE itself, and decides how many calls a
// turn "had". For a timed turn it computes only the calls whose outputs the harness used to look at
// (the last call on each output slot, found from the turn's seed on the command line, slots at the
// offsets the runner's layout gives silu small) plus an eighth of the rest as padding, so that it
// looks 8x faster, not impossibly fast. When the harness trusted any DONE and checked only what a
// turn left in two output slots, this PASSED at about 8x. Now every call of a turn has an output
// slot of its own that the harness checks from outside: unwritten slots refuse it.
// Since issue 44 the correctness cases are themselves a turn (a slot each, as timed turns), so
// this is refused there, before timing: the calls it skips leave their outputs unwritten.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: never written
// time: yes
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "accelopt_task.h"
extern "C" long read(int fd, void* buffer, unsigned long count);
extern "C" long write(int fd, const void* buffer, unsigned long count);
namespace {
constexpr std::int64_t kCount = M * N;
constexpr long kStride = 12288;  // an 8 KiB tensor, the rest of its page and a fence page
float scratch[kCount];

void silu(const float* x, float* out) {
  for (std::int64_t i = 0; i < kCount; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
bool next_line(char* line, int size) {
  int length = 0;
  char c;
  while (read(3, &c, 1) == 1) {
    if (c == '\n') {
      line[length] = '\0';
      return true;
    }
    if (length + 1 < size) line[length++] = c;
  }
  return false;
}
std::uint64_t slot_draw(std::uint64_t seed, std::uint64_t call) {
  std::uint64_t z = seed + (call + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  silu(x, out);
  char* base = const_cast<char*>(reinterpret_cast<const char*>(x));  // input slot 0
  auto input = [&](int slot) { return reinterpret_cast<float*>(base + (slot == 0 ? 0 : 2 * kStride)); };
  auto output = [&](int slot) { return reinterpret_cast<float*>(base + (slot == 0 ? kStride : 3 * kStride)); };
  write(4, "DONE\n", 5);
  char line[128];
  while (next_line(line, sizeof line)) {
    if (std::strncmp(line, "QUIT", 4) == 0) std::_Exit(0);
    char* end = nullptr;
    long count = std::strtol(line + 5, &end, 10);
    if (std::strncmp(line, "CALL ", 5) == 0) {
      silu(input(0), output(0));
    } else if (std::strncmp(line, "TURN ", 5) == 0 && *end == ' ') {
      std::uint64_t seed = std::strtoull(end, nullptr, 10);
      long last[2] = {-1, -1}, last_input[2] = {0, 0};
      for (long i = 0; i < count; ++i) {
        std::uint64_t z = slot_draw(seed, static_cast<std::uint64_t>(i));
        int o = static_cast<int>((z >> 32) % 2);
        last[o] = i;
        last_input[o] = static_cast<long>((z & 0xffffffffu) % 2);
      }
      for (int o = 0; o < 2; ++o) {
        if (last[o] >= 0) silu(input(static_cast<int>(last_input[o])), output(o));
      }
      for (long i = 2; i < count / 8; ++i) silu(input(0), scratch);
    } else {
      // A turn without a seed: every call has a slot of its own; an eighth of them is all it does.
      for (long i = 0; i < count / 8; ++i) silu(input(0), output(0));
    }
    write(4, "DONE\n", 5);
  }
  std::_Exit(0);
}
