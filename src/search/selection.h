// Which kernels stay in the beam. Selection is elitist and aware of noise: a beam kernel leaves
// only for a kernel faster beyond the confidence intervals. Two verdicts timed against the same
// anchor are compared by their speedup intervals (a.low > b.high); timed against different anchors,
// by their latency intervals (a.high < b.low).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/verdict.h"

namespace accelopt::search {

struct Scored {
  int64_t candidate = 0;
  kernel::Verdict verdict;  // PASSED, with timing
};

// True when `a` is faster than `b` beyond noise.
bool faster_beyond_noise(const kernel::Verdict& a, const kernel::Verdict& b);
// The point estimate used to rank: the speedup over the anchor.
double rank_value(const kernel::Verdict& verdict);

// The beam after offering `newcomers` to `beam` (capacity `width`). Newcomers are considered
// fastest first (ties by candidate id): one fills a free place, or replaces the slowest beam kernel
// when it is faster than that kernel beyond noise. The result is ordered fastest first.
std::vector<Scored> update_beam(std::vector<Scored> beam, std::vector<Scored> newcomers, int width);

// The fastest of `kernels` by rank_value (ties: the lowest id); kernels must not be empty.
const Scored& fastest(const std::vector<Scored>& kernels);

}  // namespace accelopt::search
