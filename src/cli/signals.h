// Ctrl-C and SIGTERM as a request to stop a run, not a kill. While a StopOnSignals lives, the first
// SIGINT or SIGTERM sets its flag and says "stopping: …" on stderr at once: the search
// (SearchContext::interrupt) stops starting work, lets agent calls in flight end, abandons the
// evaluation in flight (EvalRequest::abandon: its runners killed within a second, even mid-turn),
// marks the run "interrupted" and returns, and the command prints how to resume and exits 128 + the
// signal. The handler then restores the default action, so a second Ctrl-C ends the process at
// once.
#pragma once

#include <atomic>

namespace accelopt::cli {

class StopOnSignals {
 public:
  StopOnSignals();   // installs the handlers for SIGINT and SIGTERM
  ~StopOnSignals();  // restores the actions found
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  const std::atomic<bool>& requested() const;
  int signal() const;     // the signal received; 0 if none
  int exit_code() const;  // 128 + the signal (130 for SIGINT, 143 for SIGTERM); 1 if none
};

}  // namespace accelopt::cli
