#include "cli/signals.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "common/error.h"

namespace accelopt::cli {
namespace {

// A signal handler can reach only static storage, and only lock-free atomics in it are safe to
// touch there. One StopOnSignals at a time owns these.
std::atomic<bool> stop_requested{false};
std::atomic<int> received{0};
struct sigaction previous_int, previous_term;
bool on_terminal = false;  // a progress line may be open: the note starts a line of its own

// Said at once, from the handler (write is safe there).
constexpr char kStopping[] =
    "\nstopping: the evaluation in flight is abandoned, agent calls in flight finish (Ctrl-C again "
    "ends at once)\n";

void on_signal(int number) {
  received.store(number);
  stop_requested.store(true);
  const char* note = on_terminal ? kStopping : kStopping + 1;
  [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, note, ::strlen(note));
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  ::sigaction(number, &fallback, nullptr);  // a second one ends the process
}

}  // namespace

StopOnSignals::StopOnSignals() {
  stop_requested.store(false);
  received.store(0);
  on_terminal = ::isatty(STDERR_FILENO) != 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // blocking calls in flight go on; the search checks the flag
  if (::sigaction(SIGINT, &action, &previous_int) != 0 ||
      ::sigaction(SIGTERM, &action, &previous_term) != 0) {
    throw InternalError("could not install the SIGINT and SIGTERM handlers");
  }
}

StopOnSignals::~StopOnSignals() {
  ::sigaction(SIGINT, &previous_int, nullptr);
  ::sigaction(SIGTERM, &previous_term, nullptr);
}

const std::atomic<bool>& StopOnSignals::requested() const {
  return stop_requested;
}

int StopOnSignals::signal() const {
  return received.load();
}

int StopOnSignals::exit_code() const {
  int number = received.load();
  return number == 0 ? 1 : 128 + number;
}

}  // namespace accelopt::cli
