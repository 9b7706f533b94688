#include "store/resumed_run_check.h"

#include <gtest/gtest.h>

#include <set>

namespace accelopt::store {

RecordedRun record_interrupted_run(const std::filesystem::path& database, int64_t run_id) {
  auto store = Store::open(database);
  EXPECT_EQ(store->run(run_id)->state, "running");
  RecordedRun recorded;
  recorded.candidates = store->candidates(run_id);
  for (const CandidateRecord& candidate : recorded.candidates) {
    recorded.verdicts.push_back(store->trace(candidate.id)->verdict.to_json().dump());
  }
  return recorded;
}

void expect_resume_kept_everything(const std::filesystem::path& database, int64_t run_id,
                                   const RecordedRun& before) {
  auto store = Store::open(database);
  EXPECT_EQ(store->run(run_id)->state, "finished");
  std::vector<CandidateRecord> after = store->candidates(run_id);
  ASSERT_GE(after.size(), before.candidates.size());
  for (size_t index = 0; index < before.candidates.size(); ++index) {
    EXPECT_EQ(after[index].id, before.candidates[index].id);
    EXPECT_EQ(after[index].key, before.candidates[index].key);
    EXPECT_EQ(store->trace(after[index].id)->verdict.to_json().dump(), before.verdicts[index]);
  }
  // Nothing evaluated twice: every evaluated source appears once among the run's real evaluations.
  std::set<std::string> evaluated;
  for (const TraceRecord& trace : store->traces(run_id)) {
    if (trace.reused_from) continue;
    CandidateRecord candidate = *store->candidate(trace.candidate_id);
    if (candidate.normalized_hash.empty()) continue;
    EXPECT_TRUE(evaluated.insert(candidate.normalized_hash).second) << candidate.key;
  }
  EXPECT_GE(store->last_checkpoint(run_id)->iteration, 2);
}

}  // namespace accelopt::store
