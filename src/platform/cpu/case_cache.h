// Correctness cases and timed turns' pools kept from one evaluation to the next within this
// process, the cases renewed one at a time.
//
// Every evaluation used to draw and answer its correctness cases anew: on silu's CPU workload seven
// cases of 15 million values, the float64 reference 0.35 s a case, 3.4 to 4.8 s of a 12 s
// evaluation with its timing pool. The seeds stay secret in this process, and nothing a kernel
// learns outlives its evaluation (its runner is a process of its own, which cannot open a file once
// the kernel is loaded), so a case answered for one evaluation checks the next as well as a new one
// would. Each evaluation that finds cases kept still draws and answers one afresh, the one kept
// longest, so a case checks at most as many evaluations as there are cases, and a run's candidates
// keep meeting inputs no earlier one saw. A pool is inputs only, mixed afresh for every timed turn
// (runner_turns.h), and is kept as drawn. A task's constant inputs are kept beside them, drawn once
// and shared by every case and pool drawn while they are kept (inputs.h, ConstantInputs), and
// counted once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "platform/checker.h"
#include "platform/cpu/inputs.h"

namespace accelopt::platform::cpu {

using SharedCase = std::shared_ptr<const ReferenceCase>;
using SharedPool = std::shared_ptr<const std::vector<ReferenceCase>>;
using SharedConstants = std::shared_ptr<const ConstantInputs>;

class CaseCache {
 public:
  // Keeps at most `capacity_bytes` (0: nothing), the entries used longest ago dropped first.
  explicit CaseCache(uint64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // The cases kept under `key`, and which of them the caller is to draw afresh (`renew`): the one
  // kept longest, so that concurrent evaluations renew different ones. nullopt when none are kept.
  struct Kept {
    std::vector<SharedCase> cases;
    size_t renew = 0;
  };
  std::optional<Kept> cases(const std::string& key);
  // Keeps `cases` under `key`, unless they alone would not fit.
  void keep_cases(const std::string& key, const std::vector<SharedCase>& cases);
  // Case `index` under `key`, drawn afresh, replaces the one kept.
  void renewed(const std::string& key, size_t index, SharedCase fresh);

  // The pool kept under `key`, or null; keep_pool keeps one.
  SharedPool pool(const std::string& key);
  void keep_pool(const std::string& key, SharedPool pool);

  // The constant inputs kept under `key`, or null; keep_constants keeps them.
  SharedConstants constants(const std::string& key);
  void keep_constants(const std::string& key, SharedConstants constants);

  uint64_t bytes() const;  // kept now

 private:
  struct Entry {
    std::vector<SharedCase> cases;
    size_t next_renewal = 0;
    SharedPool pool;
    SharedConstants constants;
    uint64_t last_use = 0;
  };
  static uint64_t entry_bytes(const Entry& entry);
  Entry& touch(const std::string& key);  // with mutex_ held
  void make_room();                      // with mutex_ held

  uint64_t capacity_bytes_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  uint64_t uses_ = 0;
};

}  // namespace accelopt::platform::cpu
