// The study's closing round (study/closing_round.h says what it times and keeps): each ended cell's
// best kernel re-timed against its task's baseline on the CPU platform (this machine's, or the
// workers' through the queue when the cells' evaluations went there), with the cells' own
// candidate timing, the cells of a task in the same minutes.
#pragma once

#include <cstdint>
#include <string>

#include "cli/signals.h"
#include "common/json.h"

namespace accelopt::cli {

// A study cell whose run has ended: finished, or stopped at a budget. A run stopped because the
// machine was too busy to time its baseline has no result yet and is not ended: the study resumes
// it (search::stopped_by_busy_machine).
bool cell_ended(const std::string& state);

struct ClosingRoundOutcome {
  int taken = 0, kept = 0;  // measurements made now, and found from before
  bool stopped = false;     // Ctrl-C: the study is interrupted, and a later run resumes the round
};

// Runs what the study's detail (`detail`, updated and saved after every measurement) lacks of a
// closing round of `rounds` rounds over the ended cells of study `study_id`; `remote_workers`:
// through the workspace's evaluation queue.
ClosingRoundOutcome run_study_closing_round(const std::string& workspace, int64_t study_id,
                                            Json& detail, int rounds, bool remote_workers,
                                            const StopOnSignals& signals);

}  // namespace accelopt::cli
