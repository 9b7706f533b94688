#include "search/figures.h"

#include <fmt/format.h>

#include <algorithm>

#include "platform/roofline.h"

namespace accelopt::search {

RunScale::RunScale(const kernel::Verdict& baseline) {
  if (!baseline.passed()) return;
  if (baseline.timing) latency_ = baseline.timing->latency_seconds;
  if (baseline.roofline) percent_ = baseline.roofline->percent_of_peak;
  busy_ = baseline.timing && baseline.timing->busy();
}

Figures RunScale::baseline() const {
  return of(1, 1, 1);
}

Figures RunScale::of(double speedup, double low, double high, bool busy) const {
  Figures figures;
  if (speedup <= 0) return figures;
  figures.busy = busy || busy_;
  figures.speedup = speedup;
  figures.speedup_low = low;
  figures.speedup_high = high;
  kernel::Timing ratio;
  ratio.speedup = speedup;
  ratio.speedup_low = low;
  ratio.speedup_high = high;
  platform::LatencyInterval latency = platform::derive_latency(latency_, ratio);
  figures.latency_seconds = latency.seconds;
  figures.latency_low = latency.low;
  figures.latency_high = latency.high;
  // % of peak is inversely proportional to latency: the baseline's % scaled by the speedup.
  figures.percent_of_peak = percent_ * speedup;
  figures.percent_low = percent_ * low;
  figures.percent_high = percent_ * high;
  return figures;
}

Figures RunScale::of(const kernel::Verdict& verdict) const {
  if (!verdict.passed() || !verdict.timing) return {};
  return of(verdict.timing->speedup, verdict.timing->speedup_low, verdict.timing->speedup_high,
            verdict.timing->busy());
}

Figures RunScale::of(const roles::NamedSpeedup& measured) const {
  return of(measured.speedup, measured.speedup_low, measured.speedup_high, measured.busy);
}

bool disjoint(const roles::NamedSpeedup& a, const roles::NamedSpeedup& b) {
  if (a.speedup <= 0 || b.speedup <= 0) return false;
  return a.speedup_low > b.speedup_high || a.speedup_high < b.speedup_low;
}

const roles::NamedSpeedup* most_precise(const std::vector<roles::NamedSpeedup>& measured) {
  const roles::NamedSpeedup* best = nullptr;
  double best_width = 0;
  for (const roles::NamedSpeedup& one : measured) {
    if (one.speedup <= 0 || one.speedup_low <= 0 || one.speedup_high < one.speedup_low) continue;
    double width = one.speedup_high / one.speedup_low;
    if (best == nullptr || width <= best_width) {
      best = &one;
      best_width = width;
    }
  }
  return best;
}

std::string moved_text(const roles::NamedSpeedup& before, const roles::NamedSpeedup& after) {
  return fmt::format(
      "figures moved between measurements ({:.2f}x → {:.2f}x): the machine's load "
      "changed",
      before.speedup, after.speedup);
}

roles::NamedSpeedup search_measurement(const kernel::Verdict& verdict, int iteration) {
  roles::NamedSpeedup measured;
  measured.name = iteration > 0 ? fmt::format("search, iteration {}", iteration)
                                : std::string("search, at the start");
  if (!verdict.passed() || !verdict.timing) return measured;
  measured.speedup = verdict.timing->speedup;
  measured.speedup_low = verdict.timing->speedup_low;
  measured.speedup_high = verdict.timing->speedup_high;
  measured.busy = verdict.timing->busy();
  return measured;
}

std::string memory_retiming_name(int iteration) {
  return fmt::format("memory re-timing, iteration {}", iteration);
}

std::string confirmation_name(int iterations) {
  return iterations >= 0 ? fmt::format("final confirmation after iteration {}", iterations)
                         : std::string("final confirmation");
}

std::string busy_mark(bool busy) {
  return busy ? " [busy]" : "";
}

std::optional<roles::KernelFigures> kernel_figures(const RunScale& scale,
                                                   const kernel::Verdict& verdict, bool baseline,
                                                   int iteration,
                                                   const std::vector<roles::NamedSpeedup>& others) {
  if (!verdict.passed() || !verdict.timing) return std::nullopt;
  // Every measurement of the pair, the search's own first; the most precise is the figure.
  std::vector<roles::NamedSpeedup> all = {search_measurement(verdict, iteration)};
  if (!baseline) all.insert(all.end(), others.begin(), others.end());
  const roles::NamedSpeedup* chosen = most_precise(all);
  if (chosen == nullptr) return std::nullopt;
  Figures figures = baseline ? scale.baseline() : scale.of(*chosen);
  if (figures.speedup <= 0) return std::nullopt;
  roles::KernelFigures result;
  result.baseline = baseline;
  result.speedup = figures.speedup;
  result.speedup_low = figures.speedup_low;
  result.speedup_high = figures.speedup_high;
  result.latency_seconds = figures.latency_seconds;
  result.latency_low = figures.latency_low;
  result.latency_high = figures.latency_high;
  result.percent_of_peak = figures.percent_of_peak;
  result.percent_low = figures.percent_low;
  result.percent_high = figures.percent_high;
  result.busy = figures.busy;
  if (baseline) {
    result.origin = "timed carefully at the start of the run";
    return result;
  }
  if (chosen == &all.front()) {
    result.origin =
        iteration > 0 ? fmt::format("timed paired against the baseline in iteration {}", iteration)
                      : "timed paired against the baseline at the start of the run";
  } else {
    result.origin = fmt::format(
        "re-timed head to head against the baseline ({}), the most "
        "precise of its measurements",
        chosen->name);
  }
  for (const roles::NamedSpeedup& other : all) {
    if (&other != chosen && disjoint(other, *chosen)) result.disagreeing.push_back(other);
  }
  return result;
}

std::vector<PairRetiming> run_retimings(int64_t run_id,
                                        const std::vector<store::MemoryEntryRecord>& entries,
                                        const std::optional<Confirmation>& confirmation,
                                        const std::vector<NamedMeasurement>& memory) {
  std::vector<PairRetiming> retimings;
  auto known = [&](int64_t candidate, int64_t against, const std::string& name) {
    return std::any_of(retimings.begin(), retimings.end(), [&](const PairRetiming& retiming) {
      return retiming.candidate == candidate && retiming.against == against &&
             retiming.measured.name == name;
    });
  };
  for (const NamedMeasurement& retiming : memory) {
    const Measurement& m = retiming.measured;
    if (!m.passed() || known(m.candidate, m.against, retiming.name)) continue;
    retimings.push_back({m.candidate,
                         m.against,
                         {retiming.name, m.speedup, m.speedup_low, m.speedup_high, m.busy}});
  }
  for (const store::MemoryEntryRecord& entry : entries) {
    std::string name = memory_retiming_name(entry.iteration);
    if (entry.run_id == run_id && !known(entry.fast_candidate, entry.slow_candidate, name)) {
      retimings.push_back({entry.fast_candidate,
                           entry.slow_candidate,
                           {name, entry.speedup, entry.speedup_low, entry.speedup_high}});
    }
    // The run's finding of a lesson stored before (store.h: evidence) is its re-timing too.
    for (const Json& found : entry.evidence) {
      if (found.value("run", int64_t{0}) != run_id) continue;
      int64_t fast = found.value("fast", int64_t{0}), slow = found.value("slow", int64_t{0});
      std::string found_name = memory_retiming_name(found.value("iteration", 0));
      if (known(fast, slow, found_name)) continue;
      retimings.push_back({fast,
                           slow,
                           {found_name, found.value("speedup", 1.0),
                            found.value("speedup_low", 1.0), found.value("speedup_high", 1.0)}});
    }
  }
  if (confirmation) {
    std::string name = confirmation_name(confirmation->iterations);
    for (const Measurement& measured : confirmation->measurements) {
      if (!measured.passed()) continue;
      retimings.push_back(
          {measured.candidate,
           measured.against,
           {name, measured.speedup, measured.speedup_low, measured.speedup_high, measured.busy}});
    }
  }
  return retimings;
}

std::vector<BaselineRetiming> baseline_retimings(
    int64_t run_id, int64_t baseline, const std::vector<store::MemoryEntryRecord>& entries,
    const std::optional<Confirmation>& confirmation, const std::vector<NamedMeasurement>& memory) {
  std::vector<BaselineRetiming> retimings;
  for (PairRetiming& retiming : run_retimings(run_id, entries, confirmation, memory)) {
    if (retiming.against == baseline) {
      retimings.push_back({retiming.candidate, std::move(retiming.measured)});
    }
  }
  return retimings;
}

platform::TimingOptions careful_timing(const platform::TimingOptions& candidate) {
  platform::TimingOptions careful = candidate;
  careful.target_half_width = candidate.target_half_width / 2;
  careful.budget_seconds = candidate.budget_seconds * 3;
  careful.min_pairs = candidate.min_pairs * 2;
  careful.max_pairs = std::max(candidate.max_pairs, careful.min_pairs);
  return careful;
}

}  // namespace accelopt::search
