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

// The bandwidth table with a row at `working_set` where no measured row is there: the figure the
// ceilings use, interpolated (log-linear in the working set) between the measured rows around it,
// or the nearest measured row's beyond either end. Rows are the platform's, {working_set,
// gbytes_per_second}, one per peaks.bandwidth point; a table of another shape is left alone.
Json with_working_set_row(const Json& table, const Peaks& peaks, double working_set) {
  if (!table.is_array() || table.size() != peaks.bandwidth.size() || peaks.bandwidth.empty()) {
    return table;
  }
  Json rows = Json::array();
  std::string figure = fmt::format("{:.1f}", peaks.bandwidth_at(working_set));
  std::string mine = "this task's working set";
  bool placed = false;
  for (size_t i = 0; i < table.size(); ++i) {
    double size = peaks.bandwidth[i].working_set_bytes;
    if (!placed && size == working_set) {
      Json row = table[i];
      row["note"] = mine + ", measured";
      rows.push_back(row);
      placed = true;
      continue;
    }
    if (!placed && size > working_set) {
      rows.push_back({{"working_set", bytes_text(working_set)},
                      {"gbytes_per_second", figure},
                      {"note", i == 0 ? mine + ": below the smallest size measured, its figure"
                                      : mine + ": interpolated between the rows around it"}});
      placed = true;
    }
    rows.push_back(table[i]);
  }
  if (!placed) {
    rows.push_back({{"working_set", bytes_text(working_set)},
                    {"gbytes_per_second", figure},
                    {"note", mine + ": beyond the largest size measured, its figure"}});
  }
  return rows;
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
      {"has_matrix_work", counts.mm_flops > 0},
      {"physics_limit_percent", fmt::format("{:.0f}", limit)},
      {"physics_rule",
       fmt::format(
           "a verdict whose latency would put it above {0:.0f} % of peak is refused "
           "(REJECTED_PHYSICS): the kernel cannot have done the counted work that fast, so it "
           "computed something else or skipped work. The limit is a guard against a reading "
           "that cannot be real, not a target: {1:g} × {2:g} = {3:.2f}, how far one probe's "
           "ceiling ({1:g}×) and one kernel's latency ({2:g}×) were each seen to read off on a "
           "shared machine, multiplied{4}. One limit serves compute- and memory-bound tasks "
           "alike, set by the noisiest ceiling (the bandwidth's); the FMA and vector ceilings "
           "read far steadier, so a verdict between 100 % and the limit passes marked \"{5}\", "
           "and for a compute-bound task it means the counting or the timing is off, not a "
           "faster kernel",
           limit, kProbeSpread, kLatencySpread, kPhysicsMargin,
           one_core && threads > 1 ? fmt::format(", times the task's {} threads", threads) : "",
           kOverProbeCeiling)},
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
  if (machine.contains("bandwidth")) {
    machine["bandwidth"] = with_working_set_row(machine["bandwidth"], peaks, counts.bytes);
  }
  return machine;
}

}  // namespace accelopt::platform
