// The live progress line of a search. On a terminal (a tty, TERM not "dumb") it rewrites one line
// (carriage return, elided to the width, clear to end of line); elsewhere it prints the same line
// plainly as each iteration starts, each candidate ends and each iteration ends, so that a log
// shows progress within a long iteration and reads cleanly. Notes are always their own lines.
#pragma once

#include <condition_variable>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "search/events.h"

namespace accelopt::report {

class ProgressPrinter : public search::EventSink {
 public:
  // `interactive`: rewrite one line (pass is_smart_terminal(fd) for stderr).
  ProgressPrinter(std::ostream& out, bool interactive) : out_(out), interactive_(interactive) {}
  void on_event(const search::SearchEvent& event) override;

 private:
  std::ostream& out_;
  bool interactive_;
  bool line_open_ = false;
};

// "iteration 2/3  candidates 14 done, 1 failed  best 1.42x, 31.0% of peak  spend $0.00"
std::string progress_line(const search::SearchEvent& event);

bool is_smart_terminal(int fd);

// While it lives, a line "<what> ... 12 s" rewritten every second on a terminal, so that a long
// wait (an evaluation: compile, check, time) shows it is alive; nothing at all when not
// `interactive`. The line is cleared when it ends.
class ElapsedLine {
 public:
  ElapsedLine(std::ostream& out, bool interactive, std::string what);
  ~ElapsedLine();
  ElapsedLine(const ElapsedLine&) = delete;
  ElapsedLine& operator=(const ElapsedLine&) = delete;

 private:
  std::ostream& out_;
  std::string what_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace accelopt::report
