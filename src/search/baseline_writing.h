// A task without a baseline (its baseline is `accelopt task import`'s stub, task/baseline_stub.h)
// gets one before its run starts: the executor writes a straightforward kernel from the task's
// definition, reference and ABI (roles::BaselineWriter), the harness checks it for correctness
// only, and the fixer repairs it from the verdict's log, a bounded number of times. The first
// kernel that passes becomes the run's baseline (Run::start records it as the candidate
// i0/baseline, so the run keeps its source). The agents' calls go through the models as any other,
// recorded in the ledger under the places "i0/baseline/w<attempt>" and ".../f<round>".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "kernel/verdict.h"
#include "roles/roles.h"

namespace accelopt::search {

struct BaselineWriting {
  const task::Task* task = nullptr;
  std::string workload;
  std::string stub;  // the stub's source: the prototype the kernel keeps
  roles::BaselineWriter* writer = nullptr;
  roles::Fixer* fixer = nullptr;  // null: no repairs
  int writes = 2;                 // kernels written afresh, each repaired up to `repairs` times
  int repairs = 2;
  uint64_t seed = 1;  // the run's seed
  // Correctness only; nullopt when a stop request came first.
  std::function<std::optional<kernel::Verdict>(const std::string& source)> check;
  std::function<void(const std::string& line)> note;  // may be empty
};

struct WrittenBaseline {
  std::string source;
  std::string author;  // "llm:<model>"
  std::string how;     // "written by the executor (attempt 1), repaired once by the fixer"
};

// The first kernel that passes; nullopt when none did (`why` says how the last one failed) or a
// stop request came first (`why` empty). roles::BudgetExhausted and roles::AgentUnavailable
// propagate.
std::optional<WrittenBaseline> write_baseline(const BaselineWriting& writing, std::string* why);

}  // namespace accelopt::search
