// Which kernels stay in the beam. Selection is elitist and aware of noise: a beam kernel leaves
// only for a kernel faster beyond the confidence intervals. Two kernels measured head to head (the
// memory's re-timing of a rewrite, the confirmation) are compared by that measurement: one
// sitting, one ratio, no moment between them. Otherwise two verdicts timed against the same anchor
// are compared by their speedup intervals (a.low > b.high), each kernel's the most precise of its
// measurements against the baseline (figures.h); timed against different anchors, by their
// latency intervals (a.high < b.low).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernel/verdict.h"
#include "roles/roles.h"

namespace accelopt::search {

struct Scored {
  int64_t candidate = 0;
  kernel::Verdict verdict;  // PASSED, with timing
};

// What a run measured of its kernels apart from the search's own timings: head-to-head re-timings
// of pairs (the memory's, the confirmation's), by pair.
class Comparisons {
 public:
  explicit Comparisons(int64_t baseline = 0) : baseline_(baseline) {}
  int64_t baseline() const { return baseline_; }
  void add(int64_t candidate, int64_t against, const roles::NamedSpeedup& measured);
  // Every measurement of `candidate` against `against` taken that way round, oldest first.
  std::vector<roles::NamedSpeedup> of(int64_t candidate, int64_t against) const;
  // The most precise measurement of `candidate` against `against`, either way round (one taken
  // the other way is inverted); nullopt when the pair was not measured head to head.
  std::optional<roles::NamedSpeedup> between(int64_t candidate, int64_t against) const;
  // `kernel`'s speedup over the baseline: the most precise of its verdict's timing and its
  // re-timings against the baseline (the baseline's own verdict for the baseline).
  roles::NamedSpeedup over_baseline(const Scored& kernel) const;

 private:
  int64_t baseline_;
  std::map<std::pair<int64_t, int64_t>, std::vector<roles::NamedSpeedup>> measured_;
};

// True when `a` is faster than `b` beyond noise.
bool faster_beyond_noise(const kernel::Verdict& a, const kernel::Verdict& b);
bool faster_beyond_noise(const Scored& a, const Scored& b, const Comparisons& comparisons);
// The point estimate used to rank: the speedup over the anchor (with `comparisons`, the most
// precise one over the baseline).
double rank_value(const kernel::Verdict& verdict);
double rank_value(const Scored& kernel, const Comparisons& comparisons);

// The beam after offering `newcomers` to `beam` (capacity `width`). Newcomers are considered
// fastest first (ties by candidate id): one fills a free place, or replaces the slowest beam kernel
// when it is faster than that kernel beyond noise, or else the slowest beam kernel it was measured
// head to head against and beats beyond noise there. The result is ordered fastest first.
std::vector<Scored> update_beam(std::vector<Scored> beam, std::vector<Scored> newcomers, int width,
                                const Comparisons& comparisons = Comparisons());

// The fastest of `kernels` by rank_value (ties: the lowest id); kernels must not be empty.
const Scored& fastest(const std::vector<Scored>& kernels,
                      const Comparisons& comparisons = Comparisons());

}  // namespace accelopt::search
