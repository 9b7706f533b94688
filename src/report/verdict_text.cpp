#include "report/verdict_text.h"

#include <fmt/format.h>

namespace accelopt::report {

void print_verdict(std::ostream& out, const kernel::Verdict& verdict, bool verbose) {
  out << fmt::format("{:<10} {}\n", "status", kernel::status_name(verdict.status));
  out << fmt::format("{:<10} {}\n", "message", verdict.message);
  out << fmt::format("{:<10} {} / {}\n", "task", verdict.task, verdict.workload);
  const auto& c = verdict.correctness;
  if (c.seeds_checked > 0) {
    out << fmt::format("{:<10} {} seeds, rel L2 error {:.3g} (tolerance {:.3g}), max abs {:.3g}\n",
                       "correct", c.seeds_checked, c.rel_l2_error, c.tolerance, c.max_abs_error);
  }
  if (verdict.timing) {
    const auto& t = *verdict.timing;
    out << fmt::format("{:<10} {:.3f}x vs {} [{:.3f}, {:.3f}] 95% CI, {} pairs{}\n", "speedup",
                       t.speedup, t.anchor, t.speedup_low, t.speedup_high, t.pairs,
                       t.converged ? "" : " (interval did not reach its target)");
    out << fmt::format("{:<10} {} [{}, {}] (anchor {})\n", "latency",
                       kernel::latency_text(t.latency_seconds), kernel::latency_text(t.latency_low),
                       kernel::latency_text(t.latency_high),
                       kernel::latency_text(t.anchor_latency_seconds));
    if (t.load) {
      out << fmt::format("{:<10} other cores {:.0f} % busy, steal {:.1f} %, {} preemptions{}{}{}\n",
                         "machine", 100 * t.load->other_cores_busy, 100 * t.load->steal,
                         t.load->involuntary_switches, kernel::waited_for_core_text(*t.load),
                         t.load->waited_seconds > 0
                             ? fmt::format(", waited {:.1f} s for quiet", t.load->waited_seconds)
                             : "",
                         t.load->busy ? ": measured while the machine was busy" : "");
    }
  }
  if (verdict.roofline) {
    const auto& r = *verdict.roofline;
    out << fmt::format("{:<10} {:.1f} % of peak{} ({} bound; peak time {})\n", "roofline",
                       r.percent_of_peak, kernel::over_ceiling_note(r.percent_of_peak), r.bound,
                       kernel::latency_text(r.peak_seconds));
    if (r.ceiling_alongside > 0) {
      out << fmt::format(
          "{:<10} {} ceiling timed alongside: {:.4g} {} ({} samples; the probe's "
          "{:.4g})\n",
          "ceiling", r.bound, r.ceiling_alongside, r.bound == "memory" ? "GB/s" : "GFLOP/s",
          r.ceiling_samples, r.ceiling_probe);
    }
    out << fmt::format(
        "{:<10} {:.1f} GFLOP/s, {:.1f} GB/s; fma {:.1f} %, vector {:.1f} %, memory {:.1f} %\n",
        "rates", r.gflops, r.gbytes_per_second, r.percent_fma, r.percent_vector, r.percent_memory);
  }
  if (verdict.profile.contains("instruction_mix")) {
    const auto& mix = verdict.profile["instruction_mix"];
    if (mix.contains("fp_512")) {
      out << fmt::format(
          "{:<10} FP instructions in the code (counted once each, not as they run): {:.0f} % "
          "512-bit, {:.0f} % 256-bit, {:.0f} % 128-bit, {:.0f} % one-lane (ss/sd: scalar code, "
          "loop remainders, the last steps of horizontal sums)\n",
          "mix", 100 * mix["share_512"].get<double>(), 100 * mix["share_256"].get<double>(),
          100 * mix["share_128"].get<double>(), 100 * mix["share_scalar"].get<double>());
    }
  }
  if (verdict.profile.contains("vectorization")) {
    for (const auto& loop : verdict.profile["vectorization"]) {
      bool vectorized = loop.value("vectorized", false);
      if (!verbose && vectorized) continue;
      std::string detail = loop.value("detail", std::string());
      if (detail.starts_with("not vectorized: ")) detail.erase(0, 16);  // said by the line itself
      std::string what =
          vectorized ? "vectorized by the compiler: " + detail
          : loop.value("intrinsics", false)
              ? "hand-vectorized with intrinsics (the compiler's own vectorizer did not "
                "vectorize it: " +
                    detail + ")"
              : "not auto-vectorized by the compiler: " + detail;
      out << fmt::format("{:<10} line {}: {}\n", "loop", loop.value("line", 0), what);
    }
  }
  out << fmt::format("{:<10} compile {:.2f} s{}, whole evaluation {:.2f} s\n", "time",
                     verdict.compile_seconds, verdict.compile_cached ? " (cached)" : "",
                     verdict.wall_seconds);
  if (!verdict.sandbox.empty() && verbose)
    out << fmt::format("{:<10} {}\n", "sandbox", verdict.sandbox.dump());
  if (!verdict.log.empty() && (verbose || !verdict.passed())) {
    out << "log:\n" << verdict.log << (verdict.log.back() == '\n' ? "" : "\n");
  }
}

}  // namespace accelopt::report
