#include "platform/runner_process.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>

#include "common/error.h"
#include "platform/platform.h"

namespace accelopt::platform {

RunnerProcess::RunnerProcess(std::string name)
    : name_(std::move(name)), home_("accelopt-runner"), work_(home_.path() / "work") {
  std::filesystem::create_directories(work_);
  std::filesystem::permissions(work_, std::filesystem::perms::owner_all);
}

RunnerProcess::~RunnerProcess() {
  if (process_) {
    process_->continue_group();
    process_->kill_group();
  }
  if (command_fd_ >= 0) ::close(command_fd_);
  if (reply_fd_ >= 0) ::close(reply_fd_);
}

void RunnerProcess::start(SpawnOptions spawn, int shared_memory_fd,
                          const std::filesystem::path& library) {
  int command_pipe[2], reply_pipe[2];
  if (::pipe2(command_pipe, O_CLOEXEC) != 0) {
    throw InternalError(errno_message("pipe for " + name_));
  }
  if (::pipe2(reply_pipe, O_CLOEXEC) != 0) {
    ::close(command_pipe[0]);
    ::close(command_pipe[1]);
    throw InternalError(errno_message("pipe for " + name_));
  }
  int library_fd = ::open(library.c_str(), O_RDONLY | O_CLOEXEC);
  auto close_all = [&] {
    for (int fd : {command_pipe[0], command_pipe[1], reply_pipe[0], reply_pipe[1], library_fd}) {
      if (fd >= 0) ::close(fd);
    }
  };
  if (library_fd < 0) {
    std::string message = errno_message("cannot open " + library.string());
    close_all();
    throw InternalError(message);
  }
  spawn.working_directory = work_;
  spawn.output_file = home_.path() / "output.txt";
  spawn.pass_fds = {{command_pipe[0], kCommandFd},
                    {reply_pipe[1], kReplyFd},
                    {shared_memory_fd, kSharedMemoryFd},
                    {library_fd, kLibraryFd}};
  try {
    process_.emplace(Process::spawn(spawn));
  } catch (...) {
    close_all();
    throw;
  }
  ::close(command_pipe[0]);
  ::close(reply_pipe[1]);
  ::close(library_fd);
  command_fd_ = command_pipe[1];
  reply_fd_ = reply_pipe[0];
  replies_.emplace(reply_fd_, name_);
}

bool RunnerProcess::send(const std::string& line) {
  // A runner that died closes its end; keep the SIGPIPE that a write would raise on this thread.
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  std::string message = line + "\n";
  ssize_t written;
  do {
    written = ::write(command_fd_, message.data(), message.size());
  } while (written < 0 && errno == EINTR);
  bool ok = written == static_cast<ssize_t>(message.size());
  if (!ok && errno == EPIPE) {
    struct timespec zero = {0, 0};
    sigtimedwait(&pipe_signal, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return ok;
}

std::optional<std::string> RunnerProcess::read_line(std::chrono::steady_clock::time_point deadline,
                                                    bool& timed_out) {
  timed_out = false;
  if (!replies_) return std::nullopt;
  if (abandon_ == nullptr) return replies_->read_line(deadline, timed_out);
  // Waits in short steps, each a look at the flag; a line read in part is kept between them.
  constexpr auto kStep = std::chrono::milliseconds(100);
  while (true) {
    if (abandon_->load()) {
      kill();
      throw EvaluationAbandoned();
    }
    auto step_end = std::min(deadline, std::chrono::steady_clock::now() + kStep);
    std::optional<std::string> line = replies_->read_line(step_end, timed_out);
    if (line || !timed_out || step_end == deadline) return line;
  }
}

ExitStatus RunnerProcess::wait_end(std::chrono::milliseconds timeout) {
  return process_ ? process_->wait(timeout) : ExitStatus{};
}

void RunnerProcess::kill() {
  if (process_) process_->kill_group();
}

void RunnerProcess::pause() {
  if (process_) process_->stop_group();
}

void RunnerProcess::resume() {
  if (process_) process_->continue_group();
}

std::pair<double, double> RunnerProcess::core_seconds() const {
  if (!process_) return {-1, -1};
  // "<ns on a core> <ns runnable, waiting for one> <timeslices>"
  std::ifstream schedstat("/proc/" + std::to_string(process_->pid()) + "/schedstat");
  int64_t running = 0, waiting = 0;
  if (!(schedstat >> running >> waiting)) return {-1, -1};
  return {1e-9 * static_cast<double>(running), 1e-9 * static_cast<double>(waiting)};
}

bool busy_more_than_running(double waiting_seconds, double running_seconds,
                            double allowed_seconds) {
  return waiting_seconds >= 0 && running_seconds >= 0 && waiting_seconds > running_seconds &&
         waiting_seconds >= 0.5 * allowed_seconds;
}

std::string RunnerProcess::output() const {
  std::string text;
  try {
    text = read_file(home_.path() / "output.txt");
  } catch (const std::exception&) {
    return "";
  }
  return filter_kernel_output(text);
}

std::string filter_kernel_output(const std::string& raw) {
  std::string text =
      raw.size() > 4000 ? raw.substr(0, 2000) + "\n[...]\n" + raw.substr(raw.size() - 2000) : raw;
  std::string filtered;
  bool line_start = true;
  for (char c : text) {
    if (line_start) filtered += "kernel| ";
    line_start = c == '\n';
    bool printable = (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
    filtered += printable ? c : '?';
  }
  return filtered;
}

std::optional<std::filesystem::path> find_runner(const char* environment_variable,
                                                 const std::string& name,
                                                 const std::string& build_path) {
  if (const char* explicit_path = std::getenv(environment_variable);
      explicit_path && *explicit_path) {
    return explicit_path;
  }
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && std::filesystem::exists(self.parent_path() / name)) {
    return self.parent_path() / name;
  }
  if (!build_path.empty() && std::filesystem::exists(build_path)) return build_path;
  return std::nullopt;
}

}  // namespace accelopt::platform
