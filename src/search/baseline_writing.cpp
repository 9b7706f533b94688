#include "search/baseline_writing.h"

#include <fmt/format.h>

#include "common/error.h"

namespace accelopt::search {
namespace {

// A distinct, reproducible seed per call: the run's seed and the call's place.
uint64_t call_seed(uint64_t run_seed, int write, int round) {
  uint64_t value = run_seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(write) * 1000003ULL +
                   static_cast<uint64_t>(round);
  value ^= value >> 31;
  return value * 0xBF58476D1CE4E5B9ULL;
}

std::string failure_of(const kernel::Verdict& verdict) {
  return fmt::format("{}: {}", kernel::status_name(verdict.status), verdict.message);
}

}  // namespace

std::optional<WrittenBaseline> write_baseline(const BaselineWriting& writing, std::string* why) {
  if (writing.task == nullptr || writing.writer == nullptr || !writing.check) {
    throw InternalError("write_baseline: a task, a writer and a check are needed");
  }
  auto note = [&](const std::string& line) {
    if (writing.note) writing.note(line);
  };
  roles::Plan plan;
  plan.text =
      "Write the task's baseline: a straightforward, correct translation of the reference into "
      "plain loops, keeping the stub's prototype.";
  plan.author = "accelopt";
  std::string last_failure;
  for (int write = 1; write <= writing.writes; ++write) {
    roles::KernelView view;
    view.task = writing.task;
    view.workload = writing.workload;
    view.source = writing.stub;
    view.place = fmt::format("i0/baseline/w{}", write);
    view.seed = call_seed(writing.seed, write, 0);
    roles::Implementation kernel = writing.writer->write(view, write);
    for (int round = 0;; ++round) {
      kernel::Verdict verdict;
      if (kernel.source.empty()) {
        verdict.status = kernel::Status::kRejectedSource;
        verdict.message = "The agent's answer held no kernel: " + kernel.parse_error;
      } else {
        std::optional<kernel::Verdict> checked = writing.check(kernel.source);
        if (!checked) {
          if (why != nullptr) why->clear();
          return std::nullopt;
        }
        verdict = *checked;
      }
      std::string who = round == 0 ? fmt::format("attempt {}", write)
                                   : fmt::format("attempt {}, repair {}", write, round);
      if (verdict.passed()) {
        note(fmt::format("naive baseline ({}): PASSED", who));
        WrittenBaseline written;
        written.source = kernel.source;
        written.author = kernel.author;
        written.how =
            round == 0
                ? fmt::format("written by the executor (attempt {})", write)
                : fmt::format(
                      "written by the executor (attempt {}), repaired {} time{} by the fixer",
                      write, round, round == 1 ? "" : "s");
        return written;
      }
      last_failure = failure_of(verdict);
      note(fmt::format("naive baseline ({}): {}", who, kernel::status_name(verdict.status)));
      if (writing.fixer == nullptr || round >= writing.repairs || kernel.source.empty()) break;
      roles::KernelView failed = view;
      failed.source = kernel.source;
      failed.verdict = verdict;
      failed.place = fmt::format("i0/baseline/w{}/f{}", write, round + 1);
      failed.seed = call_seed(writing.seed, write, round + 1);
      std::optional<roles::Implementation> repaired = writing.fixer->fix(failed, plan);
      if (!repaired) break;
      kernel = std::move(*repaired);
    }
  }
  if (why != nullptr) *why = last_failure;
  return std::nullopt;
}

}  // namespace accelopt::search
