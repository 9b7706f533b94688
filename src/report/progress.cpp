#include "report/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "kernel/verdict.h"

namespace accelopt::report {

// Once a beam is chosen, the line shows its best at the kernel's one figure (what `show`, `export`
// and the run's end give it); before, "fastest measured" is the best single measurement so far.
// Before any kernel is timed there is no figure to show, and a 0.00x would read as one.
std::string progress_line(const search::SearchEvent& event) {
  std::string counts = fmt::format("iteration {}/{}  candidates {} done, {} failed  evaluations {}",
                                   event.iteration, event.iterations, event.candidates_done,
                                   event.candidates_failed, event.evaluations);
  std::string what = event.best_candidate != 0 ? fmt::format("best #{}", event.best_candidate)
                                               : std::string("fastest measured");
  std::string fastest =
      event.best_speedup > 0
          ? fmt::format(
                "{} {:.2f}x [{:.2f}, {:.2f}]{} over the baseline, "
                "{:.1f}% of peak{}",
                what, event.best_speedup, event.best_speedup_low, event.best_speedup_high,
                event.best_busy ? " (measured while the machine was busy)" : "",
                event.best_percent_of_peak, kernel::over_ceiling_note(event.best_percent_of_peak))
          : std::string("nothing timed yet");
  return fmt::format("{}  {}  spend ${:.2f}", counts, fastest, event.spend_usd);
}

bool is_smart_terminal(int fd) {
  if (::isatty(fd) == 0) return false;
  const char* term = std::getenv("TERM");
  return term != nullptr && std::strcmp(term, "dumb") != 0;
}

namespace {
size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}
}  // namespace

void ProgressPrinter::on_event(const search::SearchEvent& event) {
  using search::EventKind;
  auto close_line = [&] {
    if (line_open_) out_ << "\n";
    line_open_ = false;
  };
  switch (event.kind) {
    case EventKind::kRunStarted:
      out_ << fmt::format("run {} {}\n", event.run_id, event.message);
      break;
    case EventKind::kNote:
      close_line();
      out_ << event.message << "\n";
      break;
    case EventKind::kIterationStarted:
    case EventKind::kCandidateFinished:
      if (interactive_) {
        std::string line = progress_line(event);
        size_t width = terminal_width();
        if (line.size() >= width) line = line.substr(0, width - 4) + "...";
        out_ << "\r" << line << "\x1b[K" << std::flush;
        line_open_ = true;
      } else {
        out_ << progress_line(event) << "\n";  // Ninja's habit: a plain line for each step
      }
      break;
    case EventKind::kIterationFinished:
      if (interactive_) {
        out_ << "\r" << progress_line(event) << "\x1b[K\n";
        line_open_ = false;
      } else {
        out_ << progress_line(event) << "\n";
      }
      break;
    case EventKind::kRunFinished:
      close_line();
      out_ << fmt::format("run {} {}\n", event.run_id, event.message);
      break;
  }
  out_.flush();
}

ElapsedLine::ElapsedLine(std::ostream& out, bool interactive, std::string what)
    : out_(out), what_(std::move(what)) {
  if (!interactive) return;
  thread_ = std::thread([this] {
    auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    while (!done_) {
      auto seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      out_ << fmt::format("\r{} ... {:.0f} s\x1b[K", what_, seconds) << std::flush;
      wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; });
    }
    out_ << "\r\x1b[K" << std::flush;
  });
}

ElapsedLine::~ElapsedLine() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace accelopt::report
