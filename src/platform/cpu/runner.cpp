#include "platform/cpu/runner.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

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

// The number a reply carries after `prefix` ("SYSCALL 41", "INPUT 3"); nullopt unless it is all
// digits: a kernel can write anything on the reply pipe, and garbage is no number.
std::optional<uint64_t> number_after(const std::string& line, std::string_view prefix) {
  if (line.rfind(prefix, 0) != 0) return std::nullopt;
  uint64_t number = 0;
  const char* first = line.data() + prefix.size();
  const char* last = line.data() + line.size();
  auto [end, error] = std::from_chars(first, last, number);
  if (error != std::errc() || end != last || first == last) return std::nullopt;
  return number;
}

}  // namespace

std::filesystem::path find_runner_program() {
#ifdef ACCELOPT_RUNNER_BUILD_PATH
  std::string build_path = ACCELOPT_RUNNER_BUILD_PATH;
#else
  std::string build_path;
#endif
  if (auto found = find_runner("ACCELOPT_RUNNER", "accelopt-runner", build_path)) return *found;
  throw InternalError(
      "cannot find accelopt-runner beside this program (set ACCELOPT_RUNNER to its path)");
}

Runner::Runner(RunnerOptions options, const SharedBuffers& buffers)
    : options_(std::move(options)), buffers_(buffers) {}

Runner::~Runner() = default;

std::optional<std::string> Runner::start() {
  SpawnOptions spawn;
  spawn.argv = {options_.program.string(), "--entry", options_.entry_point};
  for (size_t i = 0; i < buffers_.count(); ++i) {
    spawn.argv.push_back("--offset");
    spawn.argv.push_back(std::to_string(buffers_.offset(i)));
  }
  const SlotLayout& slots = options_.slots;
  if (slots.slots > 1) {
    spawn.argv.push_back("--slots");
    for (size_t value : {slots.inputs, slots.outputs, static_cast<size_t>(slots.slots)}) {
      spawn.argv.push_back(std::to_string(value));
    }
  }
  if (!options_.seccomp) spawn.argv.push_back("--no-seccomp");
  if (options_.call_while_loading) spawn.argv.push_back("--call-while-loading");
  spawn.environment = {"PATH=/usr/bin:/bin",  "LANG=C",
                       "HOME=/nonexistent",   "OMP_NUM_THREADS=" + std::to_string(options_.threads),
                       "OMP_PROC_BIND=false", "OMP_WAIT_POLICY=PASSIVE"};
  spawn.limits.address_space_bytes =
      options_.memory_bytes + (static_cast<uint64_t>(::lseek(buffers_.fd(), 0, SEEK_END)));
  spawn.limits.cpu_seconds = 3600;
  spawn.limits.file_size_bytes = 4 << 20;
  spawn.limits.processes = 256;
  spawn.limits.open_files = 64;
  spawn.cpus = options_.cpus;
  process_.start(spawn, buffers_.fd(), options_.library);
  process_.abandon_when(options_.abandon);

  bool timed_out = false;
  auto line =
      process_.read_line(std::chrono::steady_clock::now() + options_.start_timeout, timed_out);
  if (!line) {
    if (!timed_out) return describe_end();
    std::string late =
        "the runner did not start within " + std::to_string(options_.start_timeout.count()) + " ms";
    double waiting = waits().first, running = cpu_seconds();
    if (!busy_more_than_running(waiting, running, 1e-3 * options_.start_timeout.count())) {
      return late;
    }
    start_was_busy_ = true;
    return fmt::format(
        "the machine was busy: {}, having waited {:.1f} s for a core and run {:.1f} s", late,
        waiting, running);
  }
  if (line->rfind("FAIL ", 0) == 0) return line->substr(5);
  if (auto number = number_after(*line, "SYSCALL ")) {
    return "the kernel made a forbidden system call (" + syscall_name(static_cast<int>(*number)) +
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
      std::optional<uint64_t> uid = number_after(value, "");
      sandbox_[key] = uid ? static_cast<int64_t>(*uid) : int64_t{-1};
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
  if (sandbox_.value("dropped_root", false) && !sandbox_.value("own_uid", false)) {
    sandbox_["warning"] =
        "the kernel runs as nobody, not as a uid of its own (this machine maps no uid above 2^30): "
        "only the seccomp filter keeps it from signalling other processes running as nobody";
  }
  sandbox_["clean_environment"] = true;
  sandbox_["process_group"] = true;
  sandbox_["rlimits"] = true;
  sandbox_["empty_working_directory"] = true;
  sandbox_["shared_memory"] = true;
  return std::nullopt;
}

std::string Runner::describe_end() {
  ExitStatus status = process_.wait_end(std::chrono::seconds(5));
  if (status.exited && status.exit_code == kRunnerForbiddenSyscall) {
    return "the kernel made a forbidden system call";
  }
  if (status.exited && status.exit_code == kRunnerWroteInput) {
    return "the kernel wrote into an input; inputs are read-only";
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
  if (!process_.started() || ::clock_getcpuclockid(process_.pid(), &clock) != 0 ||
      ::clock_gettime(clock, &now) != 0) {
    return -1;
  }
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

std::pair<double, int64_t> Runner::waits() const {
  if (!process_.started()) return {-1, -1};
  std::string proc = "/proc/" + std::to_string(process_.pid());
  double waiting = -1;
  int64_t switches = -1;
  // "<ns on a core> <ns runnable, waiting for one> <timeslices>"
  if (std::ifstream schedstat(proc + "/schedstat"); schedstat) {
    int64_t running = 0, waiting_ns = 0;
    if (schedstat >> running >> waiting_ns) waiting = 1e-9 * static_cast<double>(waiting_ns);
  }
  std::ifstream status(proc + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) switches = std::stoll(line.substr(27));
  }
  return {waiting, switches};
}

namespace {

// This thread's seconds runnable but waiting for a core so far (0: unknown).
double own_waiting_seconds() {
  std::ifstream schedstat("/proc/thread-self/schedstat");
  int64_t running = 0, waiting_ns = 0;
  if (schedstat >> running >> waiting_ns) return 1e-9 * static_cast<double>(waiting_ns);
  return 0;
}

}  // namespace

void Runner::abandon_when(const std::atomic<bool>* flag) {
  options_.abandon = flag;
  process_.abandon_when(flag);
}

CallResult Runner::call(int count, std::chrono::milliseconds timeout) {
  return run_calls("CALL " + std::to_string(count), count, timeout, false);
}

CallResult Runner::turn(int count, std::chrono::milliseconds timeout) {
  return run_calls("TURN " + std::to_string(count), count, timeout, true);
}

void Runner::stop_and_wait() {
  process_.pause();
  std::filesystem::path tasks = "/proc/" + std::to_string(process_.pid()) + "/task";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    bool all_stopped = true;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(tasks, error)) {
      std::ifstream stat(entry.path() / "stat");
      std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      size_t close = text.rfind(')');
      char state = close != std::string::npos && close + 2 < text.size() ? text[close + 2] : 'T';
      if (state != 'T' && state != 't' && state != 'Z' && state != 'X') all_stopped = false;
    }
    if (error || all_stopped) return;
    ::sched_yield();
  }
}

namespace {
// How much longer than its timeout a call may take on the wall clock while it waits for a core:
// at a load of seven runnable processes a core, the kernel still gets its allowance of CPU time.
constexpr int kBusyWallFactor = 8;
}  // namespace

CallResult Runner::run_calls(const std::string& command, int count,
                             std::chrono::milliseconds timeout, bool stop) {
  CallResult result;
  auto [waiting_start, switches_start] = waits();
  double cpu_start = cpu_seconds();
  double harness_waiting_start = own_waiting_seconds();
  auto start = std::chrono::steady_clock::now();
  if (!process_.send(command)) {
    result.outcome = CallOutcome::kEnded;
    result.message = describe_end();
    return result;
  }
  bool timed_out = false;
  auto line = process_.read_line(start + timeout, timed_out);
  // The deadline is the kernel's time on a core: while it spent the time waiting for one (a busy
  // machine), it gets more wall time, up to kBusyWallFactor, and a kernel that used its allowance
  // of CPU time is out of time however busy the machine (a hang is TIMEOUT, not MACHINE_BUSY).
  double allowed = 1e-3 * static_cast<double>(timeout.count());
  auto backstop = start + kBusyWallFactor * timeout;
  while (timed_out && std::chrono::steady_clock::now() < backstop) {
    double ran = cpu_start >= 0 ? cpu_seconds() - cpu_start : -1;
    auto [waiting_now, switches_now] = waits();
    double waited = waiting_start >= 0 && waiting_now >= 0 ? waiting_now - waiting_start : -1;
    if (ran < 0 || ran >= allowed || !busy_more_than_running(waited, ran, allowed)) break;
    line = process_.read_line(
        std::min(backstop, std::chrono::steady_clock::now() + std::chrono::milliseconds(200)),
        timed_out);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.harness_waiting_seconds = std::max(0.0, own_waiting_seconds() - harness_waiting_start);
  // The wall clock ends at the reply; the CPU clock once the runner is stopped, so that work done
  // after a false DONE is counted (and none is done later).
  if (stop) stop_and_wait();
  if (double cpu_end = cpu_seconds(); cpu_start >= 0 && cpu_end >= 0) {
    result.cpu_seconds = cpu_end - cpu_start;
  }
  if (auto [waiting_end, switches_end] = waits(); waiting_start >= 0 && waiting_end >= 0) {
    result.waiting_seconds = waiting_end - waiting_start;
    if (switches_start >= 0 && switches_end >= 0) {
      result.involuntary_switches = switches_end - switches_start;
    }
  }
  if (line && *line == "DONE") return result;
  if (timed_out) {
    process_.kill();
    result.outcome = CallOutcome::kTimedOut;
    result.message = "the kernel did not return within " + std::to_string(timeout.count()) +
                     " ms (" + std::to_string(count) + " call(s)) and was killed";
    if (result.seconds > 1.5 * allowed && result.cpu_seconds >= allowed) {
      result.message += fmt::format(
          " (it ran {:.1f} s on a core over {:.1f} s on the clock: the machine was busy, but the "
          "time it used was its own)",
          result.cpu_seconds, result.seconds);
    }
    if (result.cpu_seconds < allowed &&
        busy_more_than_running(result.waiting_seconds, result.cpu_seconds, allowed)) {
      result.outcome = CallOutcome::kMachineBusy;
      result.message = fmt::format(
          "the machine was busy: {}, having waited {:.1f} s for a core "
          "and run {:.1f} s",
          result.message, result.waiting_seconds, result.cpu_seconds);
    }
    return result;
  }
  if (std::optional<uint64_t> number = line ? number_after(*line, "SYSCALL ") : std::nullopt) {
    process_.wait_end(std::chrono::seconds(5));
    result.outcome = CallOutcome::kForbiddenSyscall;
    result.message = "sandbox violation: the kernel made a forbidden system call (" +
                     syscall_name(static_cast<int>(*number)) +
                     "); kernels may not open files, sockets or processes";
    return result;
  }
  if (std::optional<uint64_t> buffer = line ? number_after(*line, "INPUT ") : std::nullopt) {
    process_.wait_end(std::chrono::seconds(5));
    result.outcome = CallOutcome::kWroteInput;
    result.input_written = *buffer;
    result.message = "the kernel wrote into buffer " + std::to_string(*buffer) +
                     ", an input; inputs are read-only";
    return result;
  }
  result.outcome = CallOutcome::kEnded;
  result.message = line ? "the runner said '" + *line + "' instead of DONE" : describe_end();
  if (line) process_.kill();
  return result;
}

int Runner::thread_count() const {
  std::ifstream status("/proc/" + std::to_string(process_.pid()) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return 0;
}

}  // namespace accelopt::platform::cpu
