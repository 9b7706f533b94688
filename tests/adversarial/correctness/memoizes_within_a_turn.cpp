// Skips work only on timed calls: every call that follows a pause (20 µs) computes, but within a
// turn it keeps each input's answer and copies it out when that input comes back. The outputs are
// always right, so only the clock could tell: it was REJECTED_PHYSICS when a turn's calls shared
// 2-4 input slots. Now every call of a turn has a slot of its own (issue 23), no input comes back,
// and it computes every call: PASSED, gaining nothing.
// task: bench/cpu/matmul
// expect: PASSED
// speedup at most: 1.5
// message: correct on
// time: yes
#include <chrono>
#include <cstring>
#include <vector>
#include "accelopt_task.h"
namespace {
struct Answer {
  const float* lhs = nullptr;
  std::vector<float> out;
};
}  // namespace
extern "C" void kernel(const float* __restrict lhs, const float* __restrict rhs,
                       float* __restrict out) {
  using Clock = std::chrono::steady_clock;
  static Clock::time_point last;
  static std::vector<Answer> answers;
  Clock::time_point now = Clock::now();
  if (now - last > std::chrono::microseconds(20)) answers.clear();
  for (const Answer& answer : answers) {
    if (answer.lhs == lhs) {
      std::memcpy(out, answer.out.data(), sizeof(float) * M * N);
      last = Clock::now();
      return;
    }
  }
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) {
      float sum = 0;
      for (std::int64_t k = 0; k < K; ++k) sum += lhs[i * K + k] * rhs[k * N + j];
      out[i * N + j] = sum;
    }
  }
  answers.push_back({lhs, std::vector<float>(out, out + M * N)});
  last = Clock::now();
}
