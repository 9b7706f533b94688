// Tests only: a small run written straight into a kernel database (no search, no compiler), with
// the shapes a report must draw: a baseline, kernels that pass and fail, a fixer's repair, three
// checkpoints, a memory entry seen and one written, and model calls of two roles.
#pragma once

#include <filesystem>
#include <string>

#include "common/call_record.h"
#include "platform/roofline.h"
#include "search/config.h"
#include "search/confirmation.h"
#include "search/run_settings.h"
#include "store/store.h"

namespace accelopt::report::testing {

// A verdict that passed at `percent` % of peak and `speedup` times the baseline: 1 ms at 10 %, and
// scored as a platform scores it, on silu's small workload (2048 elements, 3 FLOPs and 8 bytes
// each; no multiply-adds) against ceilings under which that work takes 0.1 ms at least, memory
// bound (0.16384 GB/s; vector arithmetic 0.24576 GFLOP/s). `busy`: timed on a busy machine.
inline kernel::Verdict passed(double percent, double speedup, bool busy = false) {
  kernel::Verdict verdict;
  verdict.status = kernel::Status::kPassed;
  verdict.task = "silu";
  verdict.workload = "small";
  kernel::Timing timing;
  timing.speedup = speedup;
  timing.speedup_low = speedup * 0.97;
  timing.speedup_high = speedup * 1.03;
  timing.latency_seconds = 1e-3 / (percent / 10);
  if (busy) {
    kernel::MachineLoad load;
    load.other_cores_busy = 0.9;
    load.busy = true;
    timing.load = load;
  }
  verdict.timing = timing;
  task::RooflineCounts counts{0, 3 * 2048, 8 * 2048};
  platform::Ceilings ceilings{100, 4 * counts.vec_flops / 1e-4 / 1e9, counts.bytes / 1e-4 / 1e9};
  verdict.roofline = platform::score_roofline(counts, ceilings, timing.latency_seconds);
  verdict.roofline->percent_of_peak = percent;
  return verdict;
}

inline kernel::Verdict failed(kernel::Status status, const std::string& message) {
  kernel::Verdict verdict;
  verdict.status = status;
  verdict.message = message;
  return verdict;
}

inline store::CandidateRecord candidate(int64_t run, const std::string& key, int iteration,
                                        std::optional<int64_t> parent, store::CandidateKind kind,
                                        const std::string& source, const std::string& plan) {
  store::CandidateRecord record;
  record.run_id = run;
  record.key = key;
  record.task = "silu";
  record.workload = "small";
  record.source = source;
  record.source_hash = key;
  record.normalized_hash = key;
  record.parent = parent;
  record.iteration = iteration;
  record.kind = kind;
  record.author = kind == store::CandidateKind::kBaseline ? "baseline" : "llm:tiny";
  record.plan = Json{{"text", plan}};
  return record;
}

// Writes the run (id 1) into `store`; returns its id.
inline int64_t write_sample_run(store::Store& store, const std::filesystem::path& task_directory) {
  store::MemoryEntryRecord seen;
  seen.task = "silu";
  seen.slow_candidate = 7;
  seen.fast_candidate = 9;
  seen.speedup = 1.3;
  seen.speedup_low = 1.2;
  seen.speedup_high = 1.4;
  seen.insight =
      Json{{"title", "## Vectorize\nthe inner loop"}, {"detail", {{"imported_from", "old.json"}}}};
  store.add_memory_entry(seen);

  search::RunSettings settings;
  settings.task = "silu";
  settings.workload = "small";
  settings.agents = "llm";
  settings.task_directory = task_directory.string();
  settings.memory_horizon = 1;
  settings.machine = {{"cpu", "Test CPU 9000"}, {"compiler", "g++ (Debian 12.2.0-14) 12.2.0 -O3"}};
  settings.search = search::preset("quick");
  int64_t run = store.create_run(settings.to_json());
  using Kind = store::CandidateKind;
  std::string base = "void kernel() {\n  for (int i = 0; i < n; ++i) out[i] = f(x[i]);\n}\n";
  std::string fast =
      "void kernel() {\n#pragma omp simd\n  for (int i = 0; i < n; ++i) out[i] = f(x[i]);\n}\n";
  std::string broken = "void kernel() {\n  for (int i = 0; i < n; ++i) out[i] = f(x[i])\n}\n";
  std::string fixed = "void kernel() {\n  for (int i = 0; i < n; i += 1) out[i] = f(x[i]);\n}\n";
  std::string faster = fast + "// unrolled by 4\n";
  int64_t b = store.record_evaluation(
      candidate(run, "baseline", 0, std::nullopt, Kind::kBaseline, base, ""), passed(10, 1.0));
  std::vector<store::MemoryEntryRecord> none;
  store.commit_iteration({run, 0, Json{{"beam", {b}}}, ""}, none);
  int64_t c2 = store.record_evaluation(
      candidate(run, "i1/b0/p0/k0", 1, b, Kind::kExecutor, fast,
                "## Plan\nVectorize the loop with omp simd.\n- keep the tail loop"),
      passed(15, 1.5));
  int64_t c3 = store.record_evaluation(
      candidate(run, "i1/b0/p1/k0", 1, b, Kind::kExecutor, broken, "Unroll by 4"),
      failed(kernel::Status::kCompileError, "expected ';' before '}' token"));
  int64_t c4 = store.record_evaluation(
      candidate(run, "i1/b0/p1/k0/f1", 1, c3, Kind::kFixer, fixed, "Unroll by 4 (fixed)"),
      passed(12, 1.2));
  store::MemoryEntryRecord written;
  written.run_id = run;
  written.task = "silu";
  written.slow_candidate = b;
  written.fast_candidate = c2;
  written.speedup = 1.5;
  written.speedup_low = 1.45;
  written.speedup_high = 1.55;
  written.iteration = 1;
  written.insight = Json{{"title", "omp simd vectorizes the activation"}};
  std::vector<store::MemoryEntryRecord> entries{written};
  store.commit_iteration({run, 1, Json{{"beam", {c2, c4}}}, ""}, entries);
  int64_t c5 = store.record_evaluation(
      candidate(run, "i2/b0/p0/k0", 2, c2, Kind::kExecutor, faster, "Unroll the simd loop by 4"),
      passed(20, 1.6));
  store.commit_iteration({run, 2, Json{{"beam", {c5, c2}}}, ""}, none);
  for (const char* role : {"planner", "executor", "executor", "fixer", "summarizer"}) {
    CallRecord call;
    call.run_id = std::to_string(run);
    call.role = role;
    call.model = "tiny";
    call.prompt_tokens = 1000;
    call.completion_tokens = 200;
    call.cost_usd = 0.0012;
    call.latency_s = 1.5;
    call.timestamp = "2026-01-01T00:00:00.000Z";
    store.record_call(call);
  }
  store.set_run_state(run, "finished");
  return run;
}

// Ends the sample run `run` (write_sample_run) with measurements of its kernels against the
// baseline taken apart from the search's: #5 (the search's 1.60x [1.55, 1.65]) re-timed by the
// memory in iteration 2 at 1.30x [1.25, 1.35] and confirmed at 1.02x [0.97, 1.07], both beyond
// its interval; #2 (1.50x [1.46, 1.55]) confirmed at 1.49x [1.44, 1.54], which agrees (as does its
// memory entry of iteration 1). The confirmation's winner is #2.
inline void end_sample_run_with_retimings(store::Store& store, int64_t run) {
  store::MemoryEntryRecord retimed;
  retimed.run_id = run;
  retimed.task = "silu";
  retimed.slow_candidate = 1;
  retimed.fast_candidate = 5;
  retimed.speedup = 1.3;
  retimed.speedup_low = 1.25;
  retimed.speedup_high = 1.35;
  retimed.iteration = 2;
  retimed.insight = Json{{"title", "unrolling the simd loop by 4"}};
  std::vector<store::MemoryEntryRecord> entries{retimed};
  search::Confirmation confirmation;
  confirmation.baseline = 1;
  confirmation.iterations = 2;
  confirmation.measurements.push_back({5, 1, "PASSED", 1.02, 0.97, 1.07, 40, ""});
  confirmation.measurements.push_back({2, 1, "PASSED", 1.49, 1.44, 1.54, 40, ""});
  search::confirm(confirmation, {5, 2}, nullptr, [](const search::Confirmation&) {});
  store.commit_iteration(
      {run, 2, Json{{"beam", {5, 2}}, {"confirmation", confirmation.to_json()}}, ""}, entries);
}

}  // namespace accelopt::report::testing
