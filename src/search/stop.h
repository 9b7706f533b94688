// Why a run stops starting work before its last iteration: a budget is spent (the reason, first one
// wins), or the user asked it to stop (the interrupt flag of SearchContext, set by a signal
// handler). The iteration in progress ends with what it has either way. (thread-safe)
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace accelopt::search {

class StopSignal {
 public:
  // `interrupt` may be null: nobody can interrupt the run.
  explicit StopSignal(const std::atomic<bool>* interrupt) : interrupt_(interrupt) {}

  void stop(const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (reason_.empty()) reason_ = reason;
  }
  bool interrupted() const { return interrupt_ != nullptr && interrupt_->load(); }
  // The flag itself, for an evaluation to abandon itself when it is set (EvalRequest::abandon).
  const std::atomic<bool>* interrupt_flag() const { return interrupt_; }
  bool stopped() const { return interrupted() || !reason().empty(); }
  std::string reason() const {
    std::lock_guard lock(mutex_);
    return reason_;
  }

 private:
  const std::atomic<bool>* interrupt_;
  mutable std::mutex mutex_;
  std::string reason_;
};

}  // namespace accelopt::search
