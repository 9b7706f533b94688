#include "search/selection.h"

#include <algorithm>

#include "search/figures.h"

namespace accelopt::search {

void Comparisons::add(int64_t candidate, int64_t against, const roles::NamedSpeedup& measured) {
  if (measured.speedup <= 0) return;
  std::vector<roles::NamedSpeedup>& list = measured_[{candidate, against}];
  for (const roles::NamedSpeedup& known : list) {
    if (known.name == measured.name) return;  // a resumed run hands the same one again
  }
  list.push_back(measured);
}

std::vector<roles::NamedSpeedup> Comparisons::of(int64_t candidate, int64_t against) const {
  auto found = measured_.find({candidate, against});
  return found == measured_.end() ? std::vector<roles::NamedSpeedup>{} : found->second;
}

std::optional<roles::NamedSpeedup> Comparisons::between(int64_t candidate, int64_t against) const {
  std::vector<roles::NamedSpeedup> all = of(candidate, against);
  for (roles::NamedSpeedup other : of(against, candidate)) {
    if (other.speedup <= 0 || other.speedup_low <= 0 || other.speedup_high <= 0) continue;
    double low = 1 / other.speedup_high, high = 1 / other.speedup_low;
    other.speedup = 1 / other.speedup;
    other.speedup_low = low;
    other.speedup_high = high;
    all.push_back(other);
  }
  const roles::NamedSpeedup* best = most_precise(all);
  if (best == nullptr) return std::nullopt;
  return *best;
}

roles::NamedSpeedup Comparisons::over_baseline(const Scored& kernel) const {
  roles::NamedSpeedup own = search_measurement(kernel.verdict, 0);
  if (kernel.candidate == baseline_ || baseline_ == 0) return own;
  std::vector<roles::NamedSpeedup> all = {own};
  for (const roles::NamedSpeedup& other : of(kernel.candidate, baseline_)) all.push_back(other);
  const roles::NamedSpeedup* best = most_precise(all);
  return best == nullptr ? own : *best;
}

bool faster_beyond_noise(const kernel::Verdict& a, const kernel::Verdict& b) {
  if (!a.timing || !b.timing) return a.timing.has_value() && !b.timing.has_value();
  if (a.timing->anchor == b.timing->anchor) return a.timing->speedup_low > b.timing->speedup_high;
  return a.timing->latency_high < b.timing->latency_low;
}

bool faster_beyond_noise(const Scored& a, const Scored& b, const Comparisons& comparisons) {
  if (auto head_to_head = comparisons.between(a.candidate, b.candidate)) {
    return head_to_head->speedup_low > 1;
  }
  if (!a.verdict.timing || !b.verdict.timing || a.verdict.timing->anchor != "baseline" ||
      b.verdict.timing->anchor != "baseline") {
    return faster_beyond_noise(a.verdict, b.verdict);
  }
  return comparisons.over_baseline(a).speedup_low > comparisons.over_baseline(b).speedup_high;
}

double rank_value(const kernel::Verdict& verdict) {
  return verdict.timing ? verdict.timing->speedup : 0;
}

double rank_value(const Scored& kernel, const Comparisons& comparisons) {
  if (!kernel.verdict.timing) return 0;
  return comparisons.over_baseline(kernel).speedup;
}

std::vector<Scored> update_beam(std::vector<Scored> beam, std::vector<Scored> newcomers, int width,
                                const Comparisons& comparisons) {
  auto ranks_before = [&](const Scored& a, const Scored& b) {
    double va = rank_value(a, comparisons), vb = rank_value(b, comparisons);
    if (va != vb) return va > vb;
    return a.candidate < b.candidate;
  };
  std::sort(newcomers.begin(), newcomers.end(), ranks_before);
  for (Scored& newcomer : newcomers) {
    bool present = std::any_of(beam.begin(), beam.end(), [&](const Scored& kernel) {
      return kernel.candidate == newcomer.candidate;
    });
    if (present) continue;
    if (static_cast<int>(beam.size()) < width) {
      beam.push_back(std::move(newcomer));
      continue;
    }
    auto slowest =
        std::min_element(beam.begin(), beam.end(),
                         [&](const Scored& a, const Scored& b) { return ranks_before(b, a); });
    if (slowest == beam.end()) continue;
    if (faster_beyond_noise(newcomer, *slowest, comparisons)) {
      *slowest = std::move(newcomer);
      continue;
    }
    // A head-to-head measurement says more than two figures of different moments: the newcomer
    // takes the place of the slowest beam kernel it beats beyond noise in one sitting.
    auto beaten = beam.end();
    for (auto kernel = beam.begin(); kernel != beam.end(); ++kernel) {
      auto head_to_head = comparisons.between(newcomer.candidate, kernel->candidate);
      if (!head_to_head || head_to_head->speedup_low <= 1) continue;
      if (beaten == beam.end() || ranks_before(*beaten, *kernel)) beaten = kernel;
    }
    if (beaten != beam.end()) *beaten = std::move(newcomer);
  }
  std::sort(beam.begin(), beam.end(), ranks_before);
  return beam;
}

const Scored& fastest(const std::vector<Scored>& kernels, const Comparisons& comparisons) {
  return *std::min_element(kernels.begin(), kernels.end(), [&](const Scored& a, const Scored& b) {
    double va = rank_value(a, comparisons), vb = rank_value(b, comparisons);
    if (va != vb) return va > vb;
    return a.candidate < b.candidate;
  });
}

}  // namespace accelopt::search
