#include "platform/machine_prompt.h"

#include <fmt/format.h>

#include <algorithm>

#include "platform/evaluation.h"

namespace accelopt::platform {
namespace {

std::string flops_text(double flops) {
  if (flops >= 1e9) return fmt::format("{:.3g} GFLOP", flops / 1e9);
  if (flops >= 1e6) return fmt::format("{:.3g} MFLOP", flops / 1e6);
  return fmt::format("{:.0f} FLOP", flops);
}

std::string seconds_text(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3g} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  return fmt::format("{:.3g} µs", seconds * 1e6);
}

}  // namespace

std::string bytes_text(double bytes) {
  if (bytes >= 1 << 30) return fmt::format("{:.3g} GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return fmt::format("{:.3g} MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return fmt::format("{:.3g} KiB", bytes / (1 << 10));
  return fmt::format("{:.0f} B", bytes);
}

Json machine_variables(const MachineDescription& description, const task::Task& task,
                       const task::Workload& workload) {
  Json machine = description.prompt_variables;
  if (!description.peaks || description.peaks->empty()) return machine;
  // A bfloat16 task on a CPU with bfloat16 dot products (or a GPU with tensor cores) is scored
  // against that faster matrix ceiling: the prompt says the one the verdicts use.
  Peaks peaks = description.peaks->for_task(task);
  std::string narrow = description.peaks->narrow_matrix_dtype(task);
  task::RooflineCounts counts = task.roofline_counts(workload);
  Ceilings at = peaks.ceilings_for(counts.bytes);
  kernel::RooflineScore score = score_roofline(counts, peaks, 0);
  bool one_core = peaks.scope == CeilingScope::kOneCore;
  int threads = std::max(task.threads, 1);
  // The physics check shares the least time among the threads of one-core ceilings
  // (evaluation.h, least_seconds), so the % of peak it allows grows with them.
  double limit = 100 * kPhysicsMargin * (one_core ? threads : 1);
  Json ceilings = {
      {"fma_gflops", fmt::format("{:.1f}", at.fma_gflops)},
      {"matrix_ceiling", narrow.empty() ? "FP32 FMA" : narrow + " matrix (" + narrow + " inputs)"},
      {"fp32_matrix", narrow.empty()},
      {"vector_gflops", fmt::format("{:.1f}", at.vector_gflops)},
      {"gbytes_per_second", fmt::format("{:.1f}", at.gbytes_per_second)},
      {"working_set", bytes_text(counts.bytes)},
      {"scope", one_core ? "one core" : "the whole device"},
      {"threads", std::to_string(threads)},
      {"mm_flops", flops_text(counts.mm_flops)},
      {"vec_flops", flops_text(counts.vec_flops)},
      {"bytes", bytes_text(counts.bytes)},
      {"peak_seconds", seconds_text(score.peak_seconds)},
      {"bound", score.bound},
      {"physics_limit_percent", fmt::format("{:.0f}", limit)},
      {"percent_of_peak_rule",
       "% of peak = the least time over the measured latency, where the least time is "
       "max(matrix FLOPs / FMA ceiling, other FLOPs / vector ceiling, bytes / bandwidth at the "
       "working set). Matrix FLOPs are only the multiply-adds of matrix products (2 per "
       "multiply-add); every other operation, FMAs in elementwise code included, counts against "
       "the vector ceiling, one FLOP per elementary operation (a transcendental such as exp "
       "counts as one), operations on constant scalars not counted. Bytes are the task's "
       "compulsory traffic: each input read once and each output written once, at each "
       "tensor's width (4 bytes a float32 or int32 element, 2 a bfloat16 or float16, 1 a "
       "float8_e4m3fn or int8). The counts are the task definition's formulas, whatever the kernel "
       "actually does."}};
  if (one_core && threads > 1) {
    ceilings["reach"] = fmt::format(
        "{0} threads may reach {0} × these (the % of peak is still against one core's)", threads);
  }
  machine["ceilings"] = ceilings;
  return machine;
}

}  // namespace accelopt::platform
