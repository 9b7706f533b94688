#include "common/subprocess.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/files.h"

namespace accelopt {
namespace {

int open_pidfd(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

double rusage_seconds(const struct rusage& usage) {
  auto seconds = [](const struct timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// wait4 on `pid`, retried on EINTR; its rusage holds the child and the children it reaped.
pid_t wait_for(pid_t pid, int& wait_status, int options, double& cpu_seconds) {
  struct rusage usage {};
  pid_t result;
  do {
    result = ::wait4(pid, &wait_status, options, &usage);
  } while (result < 0 && errno == EINTR);
  if (result == pid) cpu_seconds = rusage_seconds(usage);
  return result;
}

// One /proc/PID/stat line: its process group and the CPU ticks of it and its reaped children.
struct StatLine {
  pid_t group = -1;
  uint64_t ticks = 0;
};

std::optional<StatLine> read_stat(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_file(file);
  } catch (const std::exception&) {
    return std::nullopt;  // ended meanwhile
  }
  size_t name_end = text.rfind(')');  // the command name may hold spaces and parentheses
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(name_end + 2));
  // After the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime (proc(5), fields 3 to 17).
  std::string skip;
  StatLine line;
  fields >> skip >> skip >> line.group;
  for (int field = 6; field <= 13; ++field) fields >> skip;
  uint64_t utime = 0, stime = 0, cutime = 0, cstime = 0;
  if (!(fields >> utime >> stime >> cutime >> cstime)) return std::nullopt;
  line.ticks = utime + stime + cutime + cstime;
  return line;
}

ExitStatus decode(int wait_status) {
  ExitStatus status;
  if (WIFEXITED(wait_status)) {
    status.exited = true;
    status.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    status.signal = WTERMSIG(wait_status);
  }
  return status;
}

void set_limit(int resource, uint64_t value) {
  if (value == 0) return;
  struct rlimit limit = {static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  ::setrlimit(resource, &limit);
}

// The isolated view, worked out before fork: the child only makes system calls from it.
struct IsolationPlan {
  struct Bind {
    std::string source, target;
    bool read_only = true;
    unsigned long locked_flags = 0;  // flags a remount must keep (nosuid, nodev, noexec)
  };
  struct Link {
    std::string target, path;
  };
  bool enabled = false;
  bool as_root = false;
  std::string root;
  std::vector<std::string> directories;  // to create in the new root, parents first
  std::vector<std::string> files;        // empty files, bind targets for files
  std::vector<Link> links;
  std::vector<Bind> binds;
  std::string uid_map, gid_map;
};

unsigned long locked_mount_flags(const std::filesystem::path& path) {
  struct statvfs info {};
  if (::statvfs(path.c_str(), &info) != 0) return 0;
  unsigned long flags = 0;
  if (info.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (info.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (info.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  return flags;
}

void chown_tree(const std::filesystem::path& directory, uid_t uid, gid_t gid) {
  if (::lchown(directory.c_str(), uid, gid) != 0) {
    throw InternalError(errno_message("cannot hand " + directory.string() + " to the sandbox"));
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    [[maybe_unused]] int ignored = ::lchown(entry.path().c_str(), uid, gid);
  }
}

constexpr uid_t kNobody = 65534;

IsolationPlan plan_isolation(const Isolation& isolation) {
  IsolationPlan plan;
  if (!isolation.enabled) return plan;
  plan.enabled = true;
  plan.as_root = ::geteuid() == 0;
  plan.root = isolation.root.string();
  plan.uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
  plan.gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
  std::set<std::string> made;
  auto make_parents = [&](const std::filesystem::path& path) {
    std::filesystem::path inside;
    for (const auto& part : path.parent_path().relative_path()) {
      inside /= part;
      if (made.insert(inside.string()).second)
        plan.directories.push_back(plan.root + "/" + inside.string());
    }
  };
  auto add = [&](const std::filesystem::path& path, bool read_only) {
    std::filesystem::path absolute = path.lexically_normal();
    std::error_code error;
    auto status = std::filesystem::symlink_status(absolute, error);
    if (error || !std::filesystem::exists(status)) return;
    std::string target = plan.root + absolute.string();
    make_parents(absolute);
    if (std::filesystem::is_symlink(status)) {
      plan.links.push_back({std::filesystem::read_symlink(absolute).string(), target});
      return;
    }
    if (std::filesystem::is_directory(status)) {
      if (made.insert(absolute.relative_path().string()).second) plan.directories.push_back(target);
    } else {
      plan.files.push_back(target);
    }
    plan.binds.push_back({absolute.string(), target, read_only, locked_mount_flags(absolute)});
  };
  for (const auto& path : isolation.read_only) add(path, true);
  for (const auto& path : isolation.writable) {
    add(path, false);
    if (plan.as_root) chown_tree(path, kNobody, kNobody);
  }
  return plan;
}

void write_text(int fd, const char* text) {
  [[maybe_unused]] ssize_t ignored = ::write(fd, text, std::strlen(text));
}

[[noreturn]] void isolation_failed(const char* step, const char* detail) {
  int error = errno;
  write_text(2, "accelopt sandbox: cannot ");
  write_text(2, step);
  write_text(2, " ");
  write_text(2, detail);
  write_text(2, ": ");
  write_text(2, ::strerrordesc_np(error) ? ::strerrordesc_np(error) : "error");
  write_text(2, "\n");
  ::_exit(kIsolationFailed);
}

bool write_proc_file(const char* path, const std::string& text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// Runs in the child: async-signal-safe calls only, on strings prepared by plan_isolation.
void enter_isolation(const IsolationPlan& plan) {
  int namespaces = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC;
  if (!plan.as_root) namespaces |= CLONE_NEWUSER;
  if (::unshare(namespaces) != 0) isolation_failed("unshare", "the namespaces");
  if (!plan.as_root) {
    if (!write_proc_file("/proc/self/setgroups", "deny") ||
        !write_proc_file("/proc/self/uid_map", plan.uid_map) ||
        !write_proc_file("/proc/self/gid_map", plan.gid_map)) {
      isolation_failed("map", "the user");
    }
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    isolation_failed("make private", "/");
  }
  if (::mount("tmpfs", plan.root.c_str(), "tmpfs", MS_NOSUID, "size=16m,mode=0755") != 0) {
    isolation_failed("mount a tmpfs on", plan.root.c_str());
  }
  for (const std::string& directory : plan.directories) {
    if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) {
      isolation_failed("create", directory.c_str());
    }
  }
  for (const std::string& file : plan.files) {
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) isolation_failed("create", file.c_str());
    ::close(fd);
  }
  for (const IsolationPlan::Link& link : plan.links) {
    if (::symlink(link.target.c_str(), link.path.c_str()) != 0) {
      isolation_failed("link", link.path.c_str());
    }
  }
  for (const IsolationPlan::Bind& bind : plan.binds) {
    if (::mount(bind.source.c_str(), bind.target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) !=
        0) {
      isolation_failed("bind", bind.source.c_str());
    }
    if (bind.read_only &&
        ::mount(nullptr, bind.target.c_str(), nullptr,
                MS_BIND | MS_REMOUNT | MS_RDONLY | bind.locked_flags, nullptr) != 0) {
      isolation_failed("make read-only", bind.source.c_str());
    }
  }
  if (::chdir(plan.root.c_str()) != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0 ||
      ::umount2(".", MNT_DETACH) != 0 || ::chdir("/") != 0) {
    isolation_failed("enter", "the new root");
  }
  if (plan.as_root) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
        ::setresuid(kNobody, kNobody, kNobody) != 0) {
      isolation_failed("become", "nobody");
    }
  }
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

// SIGKILL when the thread that forked this child ends: accelopt killed (kill -9, a crash, a Ctrl-C
// that ends it) takes its children along instead of leaving them, PPID 1, to spin up to their CPU
// limit. Set after the isolation, whose change of user would clear it. The parent may have died
// before it was set: then nobody would send the signal, so the child ends itself.
// In a PID namespace of its own the parent has no pid to compare with: a pidfd of it says instead.
void die_with_parent(pid_t parent, int parent_pidfd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent_pidfd >= 0) {
    struct pollfd ended = {parent_pidfd, POLLIN, 0};
    if (::poll(&ended, 1, 0) != 0) ::_exit(126);
    ::close(parent_pidfd);
  } else if (::getppid() != parent) {
    ::_exit(126);
  }
}

// Maps this process's user to itself in the user namespace it was cloned into.
void map_own_user(const std::string& uid_map, const std::string& gid_map) {
  if (!write_proc_file("/proc/self/setgroups", "deny") ||
      !write_proc_file("/proc/self/uid_map", uid_map) ||
      !write_proc_file("/proc/self/gid_map", gid_map)) {
    ::_exit(126);
  }
}

struct PidNamespacePlan {
  int clone_flags = 0;  // 0: an ordinary fork
  int parent_pidfd = -1;
  std::string uid_map, gid_map;
};

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const SpawnOptions& options, const IsolationPlan& isolation,
                             const PidNamespacePlan& pid_namespace, char* const* argv,
                             char* const* envp, int output_fd, pid_t parent) {
  int parent_pidfd = -1;
  if (pid_namespace.clone_flags != 0) {
    if (pid_namespace.clone_flags & CLONE_NEWUSER) {
      map_own_user(pid_namespace.uid_map, pid_namespace.gid_map);
    }
    parent_pidfd = ::fcntl(pid_namespace.parent_pidfd, F_DUPFD, 300);  // clear of pass_fds
    if (parent_pidfd < 0) ::_exit(126);
  }
  ::setpgid(0, 0);
  sigset_t all;
  sigemptyset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int signal_number : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD}) ::signal(signal_number, SIG_DFL);

  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || ::dup2(null_fd, 0) < 0) ::_exit(126);
  if (::dup2(output_fd, 1) < 0 || ::dup2(output_fd, 2) < 0) ::_exit(126);
  // Move passed descriptors out of the way first, so that a target number never clobbers a source.
  int moved[64];
  size_t count = options.pass_fds.size() < 64 ? options.pass_fds.size() : 64;
  for (size_t i = 0; i < count; ++i) {
    moved[i] = ::fcntl(options.pass_fds[i].first, F_DUPFD, 200 + static_cast<int>(i));
    if (moved[i] < 0) ::_exit(126);
  }
  int highest = 2;
  for (size_t i = 0; i < count; ++i) {
    int target = options.pass_fds[i].second;
    if (::dup2(moved[i], target) < 0) ::_exit(126);
    if (target > highest) highest = target;
  }
  if (parent_pidfd >= 0) {
    parent_pidfd = ::dup2(parent_pidfd, highest + 1);
    if (parent_pidfd < 0) ::_exit(126);
    ++highest;
  }
  ::syscall(SYS_close_range, highest + 1, ~0U, 0);
  if (isolation.enabled) enter_isolation(isolation);

  const ResourceLimits& limits = options.limits;
  set_limit(RLIMIT_AS, limits.address_space_bytes);
  set_limit(RLIMIT_CPU, limits.cpu_seconds);
  set_limit(RLIMIT_FSIZE, limits.file_size_bytes);
  set_limit(RLIMIT_NPROC, limits.processes);
  set_limit(RLIMIT_NOFILE, limits.open_files);
  if (!limits.core_dumps) {
    struct rlimit zero = {0, 0};
    ::setrlimit(RLIMIT_CORE, &zero);
  }
  if (!options.cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : options.cpus) CPU_SET(cpu, &set);
    ::sched_setaffinity(0, sizeof(set), &set);
  }
  if (!options.working_directory.empty() && ::chdir(options.working_directory.c_str()) != 0) {
    ::_exit(126);
  }
  die_with_parent(parent, parent_pidfd);
  ::execve(argv[0], argv, envp);
  ::_exit(127);
}

}  // namespace

std::string ExitStatus::describe() const {
  if (timed_out) return "ran past its deadline and was killed";
  if (exited) return "exited with status " + std::to_string(exit_code);
  return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
}

Process Process::spawn(const SpawnOptions& options) {
  if (options.argv.empty()) throw InternalError("spawn: empty command");
  std::vector<char*> argv;
  for (const std::string& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& entry : options.environment) {
    envp.push_back(const_cast<char*>(entry.c_str()));
  }
  envp.push_back(nullptr);

  IsolationPlan isolation = plan_isolation(options.isolation);

  std::string output_path =
      options.output_file.empty() ? "/dev/null" : options.output_file.string();
  int output_fd = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (output_fd < 0) throw InternalError(errno_message("cannot open " + output_path));

  pid_t parent = ::getpid();
  PidNamespacePlan pid_namespace;
  if (options.own_pid_namespace) pid_namespace.parent_pidfd = open_pidfd(parent);
  if (pid_namespace.parent_pidfd >= 0) {
    pid_namespace.clone_flags = CLONE_NEWPID;
    if (::geteuid() != 0) {
      pid_namespace.clone_flags |= CLONE_NEWUSER;
      pid_namespace.uid_map =
          std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
      pid_namespace.gid_map =
          std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
    }
  }
  pid_t pid = -1;
  if (pid_namespace.clone_flags != 0) {
    // clone without CLONE_VM is fork with namespaces; the child only makes system calls and execs.
    pid = static_cast<pid_t>(::syscall(SYS_clone, pid_namespace.clone_flags | SIGCHLD, nullptr,
                                       nullptr, nullptr, nullptr));
    if (pid < 0) pid_namespace.clone_flags = 0;  // refused here (a container): fork as before
  }
  if (pid_namespace.clone_flags == 0) pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::close(output_fd);
    if (pid_namespace.parent_pidfd >= 0) ::close(pid_namespace.parent_pidfd);
    errno = error;
    throw InternalError(errno_message("fork for " + options.argv[0]));
  }
  if (pid == 0) {
    exec_child(options, isolation, pid_namespace, argv.data(), envp.data(), output_fd, parent);
  }
  ::close(output_fd);
  if (pid_namespace.parent_pidfd >= 0) ::close(pid_namespace.parent_pidfd);
  ::setpgid(pid, pid);  // also done in the child; whichever runs first wins the race harmlessly
  int pidfd = open_pidfd(pid);
  if (pidfd < 0) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    throw InternalError(errno_message("pidfd_open"));
  }
  return Process(pid, pidfd);
}

Process::Process(Process&& other) noexcept
    : pid_(other.pid_), pidfd_(other.pidfd_), status_(other.status_) {
  other.pid_ = -1;
  other.pidfd_ = -1;
}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = other.pid_;
    pidfd_ = other.pidfd_;
    status_ = other.status_;
    other.pid_ = -1;
    other.pidfd_ = -1;
  }
  return *this;
}

Process::~Process() {
  release();
}

void Process::release() {
  if (pid_ > 0 && !status_) {
    kill_group();
    int ignored;
    while (::waitpid(pid_, &ignored, 0) < 0 && errno == EINTR) {
    }
  }
  if (pidfd_ >= 0) ::close(pidfd_);
  pid_ = -1;
  pidfd_ = -1;
}

std::optional<ExitStatus> Process::try_wait() {
  if (status_) return status_;
  int wait_status = 0;
  double cpu_seconds = 0;
  if (wait_for(pid_, wait_status, WNOHANG, cpu_seconds) == pid_) {
    status_ = decode(wait_status);
    status_->cpu_seconds = cpu_seconds;
    ::kill(-pid_, SIGKILL);  // anything it left behind in its group
  }
  return status_;
}

double Process::cpu_seconds() const {
  if (status_) return status_->cpu_seconds;
  return pid_ > 0 ? group_cpu_seconds(pid_) : 0;
}

ExitStatus Process::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!try_wait()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      // Read before the kill: a killed driver never reaps its cc1plus, whose time would be lost.
      double before_kill = group_cpu_seconds(pid_);
      kill_group();
      int wait_status = 0;
      double reaped = 0;
      wait_for(pid_, wait_status, 0, reaped);
      status_ = decode(wait_status);
      status_->timed_out = true;
      status_->cpu_seconds = std::max(before_kill, reaped);
      break;
    }
    struct pollfd entry = {pidfd_, POLLIN, 0};
    ::poll(&entry, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
  }
  return *status_;
}

// Only while the leader is not yet reaped: after that its number may name another process's
// group (pid_max is 32768 on the machines this runs on), and a SIGSTOP there stops a stranger.
// What the leader left in its group was killed when it was reaped (try_wait).
void Process::kill_group() {
  if (pid_ > 0 && !status_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
}
void Process::stop_group() {
  if (pid_ > 0 && !status_) ::kill(-pid_, SIGSTOP);
}
void Process::continue_group() {
  if (pid_ > 0 && !status_) ::kill(-pid_, SIGCONT);
}

CommandResult run_command(SpawnOptions options, std::chrono::milliseconds timeout,
                          size_t output_limit) {
  TempDir scratch("accelopt-cmd");
  if (options.output_file.empty()) options.output_file = scratch.path() / "output.txt";
  auto start = std::chrono::steady_clock::now();
  Process process = Process::spawn(options);
  CommandResult result;
  result.status = process.wait(timeout);
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string output = read_file(options.output_file);
  if (output.size() > output_limit) {
    output.resize(output_limit);
    output += "\n[output truncated]\n";
  }
  result.output = std::move(output);
  return result;
}

double group_cpu_seconds(pid_t group) {
  uint64_t ticks = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::optional<StatLine> line = read_stat(entry.path() / "stat");
    if (line && line->group == group) ticks += line->ticks;
  }
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::vector<std::string> clean_environment(const std::filesystem::path& home) {
  return {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "LC_ALL=C", "HOME=" + home.string(),
          "TMPDIR=" + home.string()};
}

}  // namespace accelopt
