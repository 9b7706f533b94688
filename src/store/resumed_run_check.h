// For tests that kill a run and resume it: what the killed run had recorded, and the check that
// the resumed run kept all of it and evaluated no source twice. Linked only by tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "store/store.h"

namespace accelopt::store {

struct RecordedRun {
  std::vector<CandidateRecord> candidates;
  std::vector<std::string> verdicts;  // each candidate's verdict as JSON, in the same order
};

// Run `run_id` of the database at `database` as it stands; expects it still "running" (killed).
RecordedRun record_interrupted_run(const std::filesystem::path& database, int64_t run_id);

// Expects run `run_id` finished, with every candidate of `before` still there, first and in
// order, under the same key and verdict; no normalized source evaluated twice; and a checkpoint
// of iteration 2 or later.
void expect_resume_kept_everything(const std::filesystem::path& database, int64_t run_id,
                                   const RecordedRun& before);

}  // namespace accelopt::store
