// AccelOpt's optimization memory. After each iteration the search measures slow→fast rewrites (a
// beam kernel and a child of it); the memory keeps the ones worth remembering, judged by a
// confidence interval, so that noise is not remembered as an optimization:
//   positive  the interval's low end above positive_threshold (1.04)
//   negative  the interval's high end below negative_threshold (1/1.15)
// A rewrite whose median clears a threshold is worth a second look: the search re-times it head to
// head (search/memory_writer.h) and remembers it only when that interval clears the threshold. At
// most top_k new entries per iteration (half of them positive when both kinds exist), in a queue
// of capacity exp_n per task (oldest out). Entries persist in the store with their provenance (run,
// task, candidates, speedup with interval), so a later run can start from them: scope `task` reads
// the task's own queue, `related` adds the queues of tasks of the same op_type or with a shared
// tag, `all` every queue.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roles/roles.h"
#include "store/store.h"
#include "task/task.h"

namespace accelopt::memory {

enum class Scope : uint8_t { kTask = 0, kRelated = 1, kAll = 2 };
std::string_view scope_name(Scope scope);
Scope parse_scope(std::string_view text);  // UserError naming the choices

struct MemoryOptions {
  int top_k = 8;
  int exp_n = 16;
  double positive_threshold = 1.04;
  double negative_threshold = 1 / 1.15;
  Scope scope = Scope::kTask;
  int retrieve_limit = 16;  // entries given to the planner at most; own task's first
};

// A measured rewrite the search offers to the memory.
struct Rewrite {
  int64_t slow_candidate = 0, fast_candidate = 0;
  double speedup = 1, speedup_low = 1, speedup_high = 1;  // fast over slow
};

// Which threshold a rewrite's interval clears, if any (what admits it), and which its median
// clears (what makes it worth re-timing).
enum class RewriteKind : uint8_t { kNoise, kPositive, kNegative };
RewriteKind classify(const Rewrite& rewrite, const MemoryOptions& options);
RewriteKind classify_median(const Rewrite& rewrite, const MemoryOptions& options);

// Indices of the rewrites worth re-timing this iteration: those whose median clears a threshold,
// positive ones first (the surest first: highest low end), then negative ones (lowest high end
// first); at most top_k, half of them positive when both kinds exist.
std::vector<size_t> select_rewrites(const std::vector<Rewrite>& rewrites,
                                    const MemoryOptions& options);

Json insight_to_json(const roles::Insight& insight);
roles::Insight insight_from_json(const Json& json);

// Which entries of the memory a run may read. The lessons its own run found are always visible;
// another entry is when its id is at most `horizon`, it was made by one of `runs` (when that list
// is not empty) and its task is not in `excluded_tasks`. A plain run reads up to its horizon (the
// newest entry when it started); a study's leave-one-out warm cell reads only the entries its
// variant's cold cells made on the other tasks (docs/study.md, "Order, and the memory").
struct Visibility {
  int64_t horizon = 0;
  std::vector<int64_t> runs;                // empty: entries of any run
  std::vector<std::string> excluded_tasks;  // by task name
  bool visible(const store::MemoryEntryRecord& entry, int64_t own_run) const;
  static Visibility up_to(int64_t horizon) { return Visibility{horizon, {}, {}}; }  // a plain run's
};

// The entries a planner sees for `task`: the queue (last exp_n) of each task in scope, counting
// only entries visible to run `run_id`, own task first, then newest first, at most retrieve_limit.
std::vector<store::MemoryEntryRecord> retrieve(const std::vector<store::MemoryEntryRecord>& all,
                                               const task::Task& task, const MemoryOptions& options,
                                               int64_t run_id, const Visibility& visibility);

// The insights the planner is shown for `task` (retrieve over the store's entries), each with its
// provenance: task, workload, run, the slow and fast candidates, the iteration.
std::vector<roles::Insight> planner_insights(const store::Store& store, const task::Task& task,
                                             const MemoryOptions& options, int64_t run_id,
                                             const Visibility& visibility);

// Adds `entries` (an exported memory, say) to the store, skipping each one the store already holds:
// same task, kind, speedup and insight text. Returns how many were added, so importing the same
// file twice adds nothing the second time.
int64_t import_entries(store::Store& store, std::vector<store::MemoryEntryRecord> entries);

// The entry for an insight about a rewrite of `task`, with its provenance.
store::MemoryEntryRecord make_entry(const roles::Insight& insight, const Rewrite& rewrite,
                                    const task::Task& task, int64_t run_id, int iteration);

}  // namespace accelopt::memory
