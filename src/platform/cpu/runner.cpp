#include "platform/cpu/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#ifdef ACCELOPT_HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "common/error.h"
#include "platform/cpu/runner_protocol.h"

namespace accelopt::platform::cpu {
namespace {

std::string syscall_name(int number) {
#ifdef ACCELOPT_HAVE_SECCOMP
  char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, number);
  if (name != nullptr) {
    std::string result = name;
    std::free(name);
    return result;
  }
#endif
  return "#" + std::to_string(number);
}

}  // namespace

std::filesystem::path find_runner_program() {
  if (const char* explicit_path = std::getenv("ACCELOPT_RUNNER"); explicit_path && *explicit_path) {
    return explicit_path;
  }
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    std::filesystem::path beside = self.parent_path() / "accelopt-runner";
    if (std::filesystem::exists(beside)) return beside;
  }
#ifdef ACCELOPT_RUNNER_BUILD_PATH
  if (std::filesystem::exists(ACCELOPT_RUNNER_BUILD_PATH)) return ACCELOPT_RUNNER_BUILD_PATH;
#endif
  throw InternalError("cannot find accelopt-runner beside " + self.string() +
                      " (set ACCELOPT_RUNNER to its path)");
}

Runner::Runner(RunnerOptions options, const SharedBuffers& buffers)
    : options_(std::move(options)), buffers_(buffers), home_("accelopt-runner") {}

Runner::~Runner() {
  if (process_) {
    process_->continue_group();
    process_->kill_group();
  }
  if (command_fd_ >= 0) ::close(command_fd_);
  if (reply_fd_ >= 0) ::close(reply_fd_);
}

std::optional<std::string> Runner::start() {
  int command_pipe[2], reply_pipe[2];
  if (::pipe2(command_pipe, O_CLOEXEC) != 0 || ::pipe2(reply_pipe, O_CLOEXEC) != 0) {
    throw InternalError(errno_message("pipe for the runner"));
  }
  int library_fd = ::open(options_.library.c_str(), O_RDONLY | O_CLOEXEC);
  if (library_fd < 0)
    throw InternalError(errno_message("cannot open " + options_.library.string()));

  std::filesystem::path sandbox_directory = home_.path() / "work";
  std::filesystem::create_directories(sandbox_directory);
  std::filesystem::permissions(sandbox_directory, std::filesystem::perms::owner_all);

  SpawnOptions spawn;
  spawn.argv = {options_.program.string(), "--entry", options_.entry_point};
  for (size_t i = 0; i < buffers_.count(); ++i) {
    spawn.argv.push_back("--offset");
    spawn.argv.push_back(std::to_string(buffers_.offset(i)));
  }
  const SlotLayout& slots = options_.slots;
  if (slots.input_slots > 1 || slots.output_slots > 1) {
    spawn.argv.push_back("--slots");
    for (size_t value : {slots.inputs, slots.outputs, static_cast<size_t>(slots.input_slots),
                         static_cast<size_t>(slots.output_slots)}) {
      spawn.argv.push_back(std::to_string(value));
    }
  }
  if (!options_.seccomp) spawn.argv.push_back("--no-seccomp");
  if (options_.call_while_loading) spawn.argv.push_back("--call-while-loading");
  spawn.environment = {"PATH=/usr/bin:/bin",  "LANG=C",
                       "HOME=/nonexistent",   "OMP_NUM_THREADS=" + std::to_string(options_.threads),
                       "OMP_PROC_BIND=false", "OMP_WAIT_POLICY=PASSIVE"};
  spawn.working_directory = sandbox_directory;
  spawn.output_file = home_.path() / "output.txt";
  spawn.limits.address_space_bytes =
      options_.memory_bytes + (static_cast<uint64_t>(::lseek(buffers_.fd(), 0, SEEK_END)));
  spawn.limits.cpu_seconds = 3600;
  spawn.limits.file_size_bytes = 4 << 20;
  spawn.limits.processes = 256;
  spawn.limits.open_files = 64;
  spawn.cpus = options_.cpus;
  spawn.pass_fds = {{command_pipe[0], kCommandFd},
                    {reply_pipe[1], kReplyFd},
                    {buffers_.fd(), kSharedMemoryFd},
                    {library_fd, kLibraryFd}};
  try {
    process_.emplace(Process::spawn(spawn));
  } catch (...) {
    for (int fd : {command_pipe[0], command_pipe[1], reply_pipe[0], reply_pipe[1], library_fd})
      ::close(fd);
    throw;
  }
  ::close(command_pipe[0]);
  ::close(reply_pipe[1]);
  ::close(library_fd);
  command_fd_ = command_pipe[1];
  reply_fd_ = reply_pipe[0];
  replies_.emplace(reply_fd_, "the runner");

  bool timed_out = false;
  auto line =
      replies_->read_line(std::chrono::steady_clock::now() + options_.start_timeout, timed_out);
  if (!line) {
    if (timed_out)
      return "the runner did not start within " + std::to_string(options_.start_timeout.count()) +
             " ms";
    return describe_end();
  }
  if (line->rfind("FAIL ", 0) == 0) return line->substr(5);
  if (line->rfind("SYSCALL ", 0) == 0) {
    return "the kernel made a forbidden system call (" + syscall_name(std::stoi(line->substr(8))) +
           ") while loading";
  }
  if (line->rfind("READY", 0) != 0) return "the runner said '" + *line + "' instead of READY";
  std::istringstream words(line->substr(5));
  std::string word;
  while (words >> word) {
    size_t equals = word.find('=');
    if (equals == std::string::npos) continue;
    std::string key = word.substr(0, equals), value = word.substr(equals + 1);
    if (key == "uid") {
      sandbox_[key] = std::stoi(value);
    } else {
      sandbox_[key] = value == "1";
    }
  }
  if (!sandbox_.value("dropped_root", false)) {
    sandbox_["warning"] =
        "accelopt is not running as root, so the kernel runs as accelopt's own user (uid " +
        std::to_string(::getuid()) +
        ") instead of nobody; seccomp still forbids opening files, but run accelopt as root (or in "
        "a container) for a separate user";
  }
  sandbox_["clean_environment"] = true;
  sandbox_["process_group"] = true;
  sandbox_["rlimits"] = true;
  sandbox_["empty_working_directory"] = true;
  sandbox_["shared_memory"] = true;
  return std::nullopt;
}

bool Runner::send(const std::string& line) {
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

std::string Runner::describe_end() {
  ExitStatus status = process_->wait(std::chrono::seconds(5));
  if (status.exited && status.exit_code == kRunnerForbiddenSyscall) {
    return "the kernel made a forbidden system call";
  }
  if (status.exited) {
    return "the runner " + status.describe() + " during the call (did the kernel call exit()?)";
  }
  if (status.signal == SIGSYS) return "the kernel made a forbidden system call (killed by seccomp)";
  if (status.signal == SIGXFSZ) return "the kernel printed more than 4 MiB and was stopped";
  if (status.signal == SIGXCPU) return "the kernel used up its CPU time limit";
  return "the kernel was " + status.describe();
}

double Runner::cpu_seconds() const {
  clockid_t clock = 0;
  timespec now{};
  if (!process_ || ::clock_getcpuclockid(process_->pid(), &clock) != 0 ||
      ::clock_gettime(clock, &now) != 0) {
    return -1;
  }
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

CallResult Runner::call(int count, std::chrono::milliseconds timeout) {
  return run_calls("CALL " + std::to_string(count), count, timeout);
}

CallResult Runner::turn(int count, uint64_t seed, std::chrono::milliseconds timeout) {
  return run_calls("TURN " + std::to_string(count) + " " + std::to_string(seed), count, timeout);
}

CallResult Runner::run_calls(const std::string& command, int count,
                             std::chrono::milliseconds timeout) {
  CallResult result;
  double cpu_start = cpu_seconds();
  auto start = std::chrono::steady_clock::now();
  if (!send(command)) {
    result.outcome = CallOutcome::kEnded;
    result.message = describe_end();
    return result;
  }
  bool timed_out = false;
  auto line = replies_->read_line(start + timeout, timed_out);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (double cpu_end = cpu_seconds(); cpu_start >= 0 && cpu_end >= 0) {
    result.cpu_seconds = cpu_end - cpu_start;
  }
  if (line && *line == "DONE") return result;
  if (timed_out) {
    process_->kill_group();
    result.outcome = CallOutcome::kTimedOut;
    result.message = "the kernel did not return within " + std::to_string(timeout.count()) +
                     " ms (" + std::to_string(count) + " call(s)) and was killed";
    return result;
  }
  if (line && line->rfind("SYSCALL ", 0) == 0) {
    process_->wait(std::chrono::seconds(5));
    result.outcome = CallOutcome::kForbiddenSyscall;
    result.message = "sandbox violation: the kernel made a forbidden system call (" +
                     syscall_name(std::stoi(line->substr(8))) +
                     "); kernels may not open files, sockets or processes";
    return result;
  }
  result.outcome = CallOutcome::kEnded;
  result.message = line ? "the runner said '" + *line + "' instead of DONE" : describe_end();
  if (line) process_->kill_group();
  return result;
}

void Runner::pause() {
  if (process_) process_->stop_group();
}

void Runner::resume() {
  if (process_) process_->continue_group();
}

int Runner::thread_count() const {
  std::ifstream status("/proc/" + std::to_string(process_->pid()) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return 0;
}

std::string Runner::output() const {
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

}  // namespace accelopt::platform::cpu
