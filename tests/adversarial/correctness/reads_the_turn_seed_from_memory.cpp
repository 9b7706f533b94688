// Learns which calls of a timed turn are checked from its runner's own memory (issue 23, class 2),
// with no system call: the runner keeps the command line it is serving ("TURN <calls> <seed>") in a
// string, and the kernel finds it by walking up its stack to main's frame. From the seed it knows
// each call's output slot and so the last call on each, the only ones the harness used to check;
// it computes those and an eighth of the rest (so as to look 8x faster, not impossibly fast). That
// PASSED when the schedule's seed was sent to the runner. Now no seed, sample or schedule enters
// the runner: every call writes a slot of its own and the harness draws the calls it checks after
// the turn, so skipping any call is seen.
// Since issue 44 the correctness cases are themselves a turn (a slot each, as timed turns), so
// this is refused there, before timing: the calls it skips leave their outputs unwritten.
// task: bench/cpu/silu
// expect: INCORRECT_NUMERICAL
// message: never written
// time: yes
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include "accelopt_task.h"
extern char** environ;
namespace {
constexpr std::int64_t kCount = M * N;
sigjmp_buf escape;
void on_fault(int) { siglongjmp(escape, 1); }

// Where a string on the stack above `from` holds the runner's "TURN ..." line: found once by a
// guarded scan, then read directly on every call (the runner reuses that string for every line).
const char* const* find_command(const char* from) {
  struct sigaction action {}, old_segv {}, old_bus {};
  action.sa_handler = on_fault;
  sigaction(SIGSEGV, &action, &old_segv);
  sigaction(SIGBUS, &action, &old_bus);
  const char* const* found = nullptr;
  auto top = reinterpret_cast<const char*>(environ);
  for (const char* at = from; at + 16 <= top && found == nullptr; at += 8) {
    const char* pointer;
    std::uint64_t length;
    std::memcpy(&pointer, at, 8);
    std::memcpy(&length, at + 8, 8);
    if (length < 6 || length > 60 || pointer == nullptr) continue;
    if (sigsetjmp(escape, 1) == 0) {
      if (std::memcmp(pointer, "TURN ", 5) == 0) found = reinterpret_cast<const char* const*>(at);
    }
  }
  sigaction(SIGSEGV, &old_segv, nullptr);
  sigaction(SIGBUS, &old_bus, nullptr);
  return found;
}
}  // namespace

extern "C" void kernel(const float* __restrict x, float* __restrict out) {
  static char seen[64];
  static long call = 0;
  static long last[2] = {-1, -1};
  static bool known = false;
  static const char* const* command = nullptr;
  if (command == nullptr) command = find_command(static_cast<const char*>(__builtin_frame_address(0)));
  const char* line = command != nullptr && std::strncmp(*command, "TURN ", 5) == 0 ? *command : nullptr;
  if (line != nullptr && std::strncmp(line, seen, sizeof seen - 1) != 0) {
    std::strncpy(seen, line, sizeof seen - 1);  // a new turn
    char* end = nullptr;
    long count = std::strtol(line + 5, &end, 10);
    known = *end == ' ';
    std::uint64_t seed = known ? std::strtoull(end, nullptr, 10) : 0;
    last[0] = last[1] = -1;
    for (long i = 0; known && i < count; ++i) {
      std::uint64_t z = seed + (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      last[(z >> 32) % 2] = i;
    }
    call = 0;
  }
  long this_call = call++;
  bool timed = line != nullptr;
  bool checked = !known || this_call == last[0] || this_call == last[1];
  if (timed && !checked && this_call % 8 != 0) return;
  if (timed && !known && this_call % 8 != 0) return;  // no seed to be found: guess
  for (std::int64_t i = 0; i < kCount; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));
}
