// The run's counters (candidates done and failed, evaluations, the best so far) and the events that
// carry them to the EventSink. The baseline is not a candidate of the search: it is not counted;
// it sets the run's scale, from which the best's % of peak is derived (figures.h).
// (thread-safe; the sink is called by one thread at a time)
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "kernel/verdict.h"
#include "search/events.h"
#include "search/figures.h"

namespace accelopt::search {

class Progress {
 public:
  // `sink` may be null; `spend_usd` may be empty (no LLM).
  Progress(EventSink* sink, std::function<double()> spend_usd, int64_t run_id, int iterations)
      : sink_(sink), spend_usd_(std::move(spend_usd)), run_id_(run_id), iterations_(iterations) {}

  // A candidate's verdict; `evaluated`: it ran on the platform (not reused).
  void count(const kernel::Verdict& verdict, bool evaluated) {
    std::lock_guard lock(mutex_);
    ++done_;
    if (evaluated) ++evaluations_;
    if (verdict.machine_busy()) return;  // not judged: no failure of the kernel's
    if (!verdict.passed()) {
      ++failed_;
      return;
    }
    if (best_candidate_ != 0) return;  // the beam's best is the figure now (set_best)
    if (verdict.timing && verdict.timing->speedup > best_speedup_) {
      best_speedup_ = verdict.timing->speedup;
      best_low_ = verdict.timing->speedup_low;
      best_high_ = verdict.timing->speedup_high;
      best_busy_ = verdict.timing->busy();
    }
  }

  // The beam's best after a selection, or the run's confirmed winner, at its one figure: what
  // the progress line shows from then on, so that its last line names what the run's end names.
  void set_best(int64_t candidate, const Figures& figures) {
    std::lock_guard lock(mutex_);
    best_candidate_ = candidate;
    best_speedup_ = figures.speedup;
    best_low_ = figures.speedup_low;
    best_high_ = figures.speedup_high;
    best_busy_ = figures.busy;
  }

  void set_scale(const RunScale& scale) {
    std::lock_guard lock(mutex_);
    scale_ = scale;
  }

  RunScale scale() const {
    std::lock_guard lock(mutex_);
    return scale_;
  }

  void set_iterations(int iterations) {
    std::lock_guard lock(mutex_);
    iterations_ = iterations;
  }

  void emit(EventKind kind, int iteration, const std::string& message = {},
            const std::string& status = {}) {
    if (sink_ == nullptr) return;
    SearchEvent event;
    event.kind = kind;
    event.run_id = run_id_;
    event.iteration = iteration;
    event.message = message;
    event.status = status;
    event.spend_usd = spend_usd_ ? spend_usd_() : 0;
    std::lock_guard lock(mutex_);
    event.iterations = iterations_;
    event.candidates_done = done_;
    event.candidates_failed = failed_;
    event.evaluations = evaluations_;
    event.best_candidate = best_candidate_;
    event.best_speedup = best_speedup_;
    event.best_speedup_low = best_low_;
    event.best_speedup_high = best_high_;
    event.best_percent_of_peak =
        scale_.of(best_speedup_, best_speedup_, best_speedup_).percent_of_peak;
    event.best_busy = best_speedup_ > 0 && (best_busy_ || scale_.baseline_busy());
    sink_->on_event(event);
  }

 private:
  EventSink* sink_;
  std::function<double()> spend_usd_;
  int64_t run_id_;
  mutable std::mutex mutex_;
  int iterations_;
  int done_ = 0, failed_ = 0;
  int64_t evaluations_ = 0;
  int64_t best_candidate_ = 0;
  double best_speedup_ = 0, best_low_ = 0, best_high_ = 0;
  bool best_busy_ = false;
  RunScale scale_;
};

}  // namespace accelopt::search
