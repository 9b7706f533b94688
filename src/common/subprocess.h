// Starting and ending child processes: the compiler, the sandboxed kernel runner, external
// evaluators.
//
// A child starts in a process group of its own with exactly the environment it is given, stdin from
// /dev/null, stdout and stderr into one file, and the resource limits asked for. Ending it ends the
// whole group with SIGKILL, so nothing it started survives it. A child also gets SIGKILL when the
// thread that spawned it ends (PR_SET_PDEATHSIG), accelopt killed included: spawn a child only from
// a thread that outlives it (every harness child lives within one call on the spawning thread).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace accelopt {

struct ResourceLimits {
  uint64_t address_space_bytes = 0;  // 0: unlimited
  uint64_t cpu_seconds = 0;
  uint64_t file_size_bytes = 0;
  uint64_t processes = 0;
  uint64_t open_files = 0;
  bool core_dumps = false;
};

// A file-system view of its own for a child that reads untrusted input (the compiler reading a
// kernel): new mount, network and IPC namespaces, and a root that is an empty tmpfs holding only
// the listed paths, at the same places. Run as root, the child then becomes nobody (65534);
// otherwise a user namespace makes the mounts possible and the child keeps its user, without
// capabilities. Nothing else of the host's files (home directories, /etc, /proc, /work) exists for
// it. When the namespaces cannot be made (a container that forbids them), the child exits with
// kIsolationFailed and says why on its output.
struct Isolation {
  bool enabled = false;
  std::filesystem::path root;                    // an empty directory the view is built on
  std::vector<std::filesystem::path> read_only;  // files, directories or symlinks to show
  std::vector<std::filesystem::path> writable;   // directories to show writable (and own, as root)
};

inline constexpr int kIsolationFailed = 125;

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::vector<std::string> environment;
  std::filesystem::path working_directory;  // empty: inherit
  std::filesystem::path output_file;        // stdout and stderr; empty: /dev/null
  ResourceLimits limits;
  std::vector<int> cpus;                      // CPU affinity; empty: inherit
  std::vector<std::pair<int, int>> pass_fds;  // (fd here, fd number in the child)
  Isolation isolation;
  // A PID namespace of its own, the child its init: it can name no process outside it, so it can
  // signal none (kill, F_SETOWN), whatever its uid. Not as root, a user namespace comes with it
  // (the same user, mapped to itself). Where the kernel refuses, the child starts without one: it
  // can tell by getpid() != 1.
  bool own_pid_namespace = false;
};

struct ExitStatus {
  bool exited = false;  // exited normally with exit_code
  int exit_code = 0;
  int signal = 0;          // the signal that ended it, when !exited
  bool timed_out = false;  // we ended it at its deadline
  // The CPU time (user and system) of the child and of the descendants it waited for (wait4's
  // figure: a compiler driver's cc1plus included); ended at its deadline, the whole group's CPU
  // time just before the kill (group_cpu_seconds), descendants it had not reaped included.
  double cpu_seconds = 0;

  std::string describe()
      const;  // "exited with status 3", "killed by signal 11 (Segmentation fault)"
};

class Process {
 public:
  static Process spawn(const SpawnOptions& options);

  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();  // kills the group if it still runs

  pid_t pid() const { return pid_; }
  // A descriptor that becomes readable when the child ends (a pidfd), for poll().
  int exit_fd() const { return pidfd_; }

  // Waits up to `timeout`; on the deadline kills the group and reports timed_out.
  ExitStatus wait(std::chrono::milliseconds timeout);
  // Non-blocking: the status if the child has ended.
  std::optional<ExitStatus> try_wait();
  // The CPU time its group has used so far (group_cpu_seconds); once it ended, its status's.
  double cpu_seconds() const;
  void kill_group();
  void stop_group();
  void continue_group();

 private:
  Process(pid_t pid, int pidfd) : pid_(pid), pidfd_(pidfd) {}
  void release();

  pid_t pid_ = -1;
  int pidfd_ = -1;
  std::optional<ExitStatus> status_;
};

// Runs a command to completion under a deadline and returns its status and (trimmed) output.
struct CommandResult {
  ExitStatus status;  // status.cpu_seconds: the command's CPU time, its children's included
  std::string output;
  double wall_seconds = 0;
};
CommandResult run_command(SpawnOptions options, std::chrono::milliseconds timeout,
                          size_t output_limit = 1 << 20);

// The CPU time (user and system, in seconds) of every live process of process group `group`, each
// with the children it has reaped: what a command and all it started have used until now, from
// /proc. Processes in a PID namespace of their own count too (they are visible from outside it).
double group_cpu_seconds(pid_t group);

// A minimal environment for untrusted or reproducible children: PATH, LANG=C, HOME=`home`, TMPDIR.
std::vector<std::string> clean_environment(const std::filesystem::path& home);

}  // namespace accelopt
