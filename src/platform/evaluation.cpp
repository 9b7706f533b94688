#include "platform/evaluation.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "common/hash.h"
#include "platform/paired_timing.h"

namespace accelopt::platform {

VerdictStart::VerdictStart(const EvalRequest& request, const task::Workload& workload) {
  verdict.task = request.task->name;
  verdict.workload = workload.name;
  verdict.source_hash = sha256_hex(request.source);
  verdict.correctness.tolerance = request.task->rel_l2_tolerance;
}

Verdict VerdictStart::finish(Status status, std::string message) {
  verdict.status = status;
  if (!message.empty()) verdict.message = std::move(message);
  verdict.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

double least_seconds(const task::Task& task, const kernel::RooflineScore& score,
                     CeilingScope scope) {
  int sharing = scope == CeilingScope::kOneCore ? std::max(task.threads, 1) : 1;
  return score.peak_seconds / sharing;
}

Verdict finish_timed(VerdictStart& started, const task::Task& task, const task::Workload& workload,
                     const Peaks& peaks, const std::string& device,
                     const std::optional<CeilingAlongside>& alongside) {
  Verdict& verdict = started.verdict;
  const Timing& timing = verdict.timing.value();
  std::string score_text;
  if (!peaks.empty()) {
    task::RooflineCounts counts = task.roofline_counts(workload);
    verdict.roofline = score_roofline(counts, peaks, timing.latency_seconds);
    // The physics check below stays on the probe's ceilings: the least time the work can take.
    double least = least_seconds(task, *verdict.roofline, peaks.scope);
    if (alongside && alongside->value > 0) {
      RooflineScore same_minutes = score_roofline(
          counts, peaks.with_ceiling(alongside->bound, alongside->value), timing.latency_seconds);
      same_minutes.ceiling_alongside = alongside->value;
      same_minutes.ceiling_probe = peaks.ceiling(alongside->bound, counts.bytes);
      same_minutes.ceiling_samples = alongside->samples;
      verdict.roofline = same_minutes;
    }
    const RooflineScore& score = *verdict.roofline;
    verdict.profile["latency_seconds"] = timing.latency_seconds;
    verdict.profile["gflops"] = score.gflops;
    verdict.profile["gbytes_per_second"] = score.gbytes_per_second;
    verdict.profile["percent_fma"] = score.percent_fma;
    verdict.profile["percent_vector"] = score.percent_vector;
    verdict.profile["percent_memory"] = score.percent_memory;
    verdict.profile["bound"] = score.bound;
    if (timing.latency_seconds * kPhysicsMargin < least) {
      return started.finish(
          Status::kRejectedPhysics,
          fmt::format("measured {:.4g} ms, but {} cannot do this work in less than {:.4g} ms ({} "
                      "bound; {:.0f} % of its measured peak, beyond the {:.2f}x the probe's and "
                      "the timing's measured spread allows): the kernel must be skipping work",
                      timing.latency_seconds * 1e3, device, least * 1e3, score.bound,
                      100 * least / timing.latency_seconds, kPhysicsMargin));
    }
    // Over the probe's ceilings but within the margin: passed, and never printed unmarked.
    std::string note =
        timing.latency_seconds < least
            ? fmt::format(" ({}: {:.0f} % of the probe's peak, refused beyond {:.0f} %)",
                          kOverProbeCeiling, 100 * least / timing.latency_seconds,
                          100 * kPhysicsMargin)
            : kernel::over_ceiling_note(score.percent_of_peak);
    score_text = fmt::format(", {:.1f} % of peak{}", score.percent_of_peak, note);
    if (score.ceiling_alongside > 0) {
      score_text +=
          fmt::format(" (against its {} ceiling timed alongside: {:.4g} {}, the probe's {:.4g})",
                      score.bound, score.ceiling_alongside,
                      score.bound == "memory" ? "GB/s" : "GFLOP/s", score.ceiling_probe);
    }
  }
  std::string context;
  if (timing.wall_clock_pairs > 0) {
    context += fmt::format(
        "; blocked time charged in {} of {} pairs, where a turn spent more than {:.0f} % of its "
        "time blocked off the CPU (the kernel's median: {:.1f} %)",
        timing.wall_clock_pairs, timing.pairs, 100 * kMostOffCpuShare,
        100 * timing.candidate_off_cpu);
  }
  if (timing.load && timing.load->busy) {
    context += fmt::format(
        "; measured while the machine was busy (other cores {:.0f} % busy, steal {:.1f} %, {} "
        "preemptions in {} pairs{})",
        100 * timing.load->other_cores_busy, 100 * timing.load->steal,
        timing.load->involuntary_switches, timing.pairs,
        kernel::waited_for_core_text(*timing.load));
  }
  return started.finish(
      Status::kPassed, fmt::format("correct on {} cases; {:.3f}x the {} [{:.3f}, {:.3f}]{}{}",
                                   verdict.correctness.seeds_checked, timing.speedup, timing.anchor,
                                   timing.speedup_low, timing.speedup_high, score_text, context));
}

std::vector<size_t> buffer_sizes(const task::Task& task, const task::Workload& workload) {
  std::vector<size_t> sizes;
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& tensor : *list) {
      sizes.push_back(static_cast<size_t>(task.element_count(tensor, workload)) *
                      task::dtype_size(tensor.dtype));
    }
  }
  return sizes;
}

void require_float32_tensors(const task::Task& task, const std::string& platform) {
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& tensor : *list) {
      if (tensor.dtype == task::DType::kFloat32) continue;
      throw UserError(fmt::format(
          "task {}: tensor '{}' is {}; the {} platform runs float32 tensors only (the cpu platform "
          "runs bfloat16, float16, int8 and int32 too)",
          task.name, tensor.name, task::dtype_name(tensor.dtype), platform));
    }
  }
}

}  // namespace accelopt::platform
