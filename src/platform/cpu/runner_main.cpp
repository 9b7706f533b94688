// accelopt-runner: loads one kernel library and calls its entry point on buffers in shared memory,
// inside a sandbox it sets up itself before the first call. See runner_protocol.h for the wire.
//
// Order matters: the network namespace and the privilege drop need root and come first. Loading
// the kernel runs its code (global initializers, .init_array, ifunc resolvers) inside dlopen, so
// the kernel never gets a chance to open a file:
//   1. the libraries the kernel needs (its DT_NEEDED entries) are loaded first, by name;
//   2. a filter hands every open to a supervising thread (seccomp user notification); the first
//      open, the loader's open of the kernel, is answered with a copy of the library descriptor
//      the harness passed (nothing is opened by path), and before answering the supervisor makes
//      every later open a trap, so code that runs while loading can open nothing;
//   3. after dlopen every descriptor but the pipes is closed, and the last filter forbids opening
//      anything at all for the calls.
// Trusted library code (--call-while-loading) keeps the older path: read-only opens while loading.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#ifdef ACCELOPT_HAVE_SECCOMP
#include <linux/seccomp.h>
#include <seccomp.h>
#endif

#include "platform/cpu/runner_protocol.h"
#include "task/entry_point_limit.h"

namespace {

using accelopt::platform::kCommandFd;
using accelopt::platform::kLibraryFd;
using accelopt::platform::kReplyFd;
using accelopt::platform::kSharedMemoryFd;
using accelopt::platform::cpu::kRunnerForbiddenSyscall;
using accelopt::platform::cpu::kRunnerSetupFailure;
using accelopt::platform::cpu::kRunnerWroteInput;
using accelopt::platform::cpu::SlotLayout;

void reply(const std::string& line) {
  std::string message = line + "\n";
  size_t written = 0;
  while (written < message.size()) {
    ssize_t n = ::write(kReplyFd, message.data() + written, message.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(kRunnerSetupFailure);
    written += static_cast<size_t>(n);
  }
}

[[noreturn]] void fail(const std::string& why) {
  reply("FAIL " + why);
  ::_exit(kRunnerSetupFailure);
}

bool read_line(std::string& line) {
  line.clear();
  char c;
  while (true) {
    ssize_t n = ::read(kCommandFd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    line.push_back(c);
  }
}

// Writes "<prefix><number>\n" to the reply pipe with nothing but write(2): for signal handlers.
void reply_number(const char* prefix, uint64_t number) {
  char message[64];
  size_t position = 0;
  while (*prefix != '\0' && position < 40) message[position++] = *prefix++;
  char digits[24];
  int length = 0;
  do {
    digits[length++] = static_cast<char>('0' + number % 10);
    number /= 10;
  } while (number != 0 && length < 20);
  while (length > 0) message[position++] = digits[--length];
  message[position++] = '\n';
  [[maybe_unused]] ssize_t ignored = ::write(kReplyFd, message, position);
}

void on_forbidden_syscall(int, siginfo_t* info, void*) {
  reply_number("SYSCALL ", static_cast<unsigned>(info->si_syscall));
  ::_exit(kRunnerForbiddenSyscall);
}

// The pages of each timed slot's inputs, mapped read-only: [begin, end) and the buffer's index.
struct ReadOnlyRange {
  uintptr_t begin = 0, end = 0;
  size_t buffer = 0;
};
// Read by the SIGSEGV handler alone; written once, before the kernel loads.
const std::vector<ReadOnlyRange>* read_only_ranges = nullptr;

// A fault inside a read-only input is a write into it: said as "INPUT <buffer>". Any other fault
// (SA_RESETHAND) faults again on return and ends the runner as before. The kernel may install its
// own handler; then it simply dies of the fault, still not having changed an input.
void on_segmentation_fault(int, siginfo_t* info, void*) {
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  if (read_only_ranges == nullptr) return;
  for (const ReadOnlyRange& range : *read_only_ranges) {
    if (address >= range.begin && address < range.end) {
      reply_number("INPUT ", range.buffer);
      ::_exit(kRunnerWroteInput);
    }
  }
}

// Maps every input of every slot read-only, from a read-only descriptor of the shared memory: a
// mapping made so can never be made writable again (mprotect answers EACCES; the writable
// descriptor is closed before the kernel loads and no file can be opened after), so no kernel can
// change what the other side of a timed turn calls on, or its own inputs between the harness's
// checks. Each buffer's pages reach to the fence page SharedBuffers puts after it.
std::vector<ReadOnlyRange> map_inputs_read_only(char* shared, size_t shared_bytes,
                                                const std::vector<size_t>& offsets,
                                                const SlotLayout& slots) {
  constexpr size_t kPage = 4096;
  std::string path = "/proc/self/fd/" + std::to_string(kSharedMemoryFd);
  int read_only = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (read_only < 0) {
    fail("cannot reopen the shared memory read-only: " + std::string(std::strerror(errno)));
  }
  std::vector<ReadOnlyRange> ranges;
  for (int slot = 0; slot < slots.slots; ++slot) {
    for (size_t t = 0; t < slots.inputs; ++t) {
      size_t index = slots.input(slot, t);
      if (index >= offsets.size()) fail("the slot layout names more buffers than were given");
      size_t begin = offsets[index];
      size_t next = index + 1 < offsets.size() ? offsets[index + 1] : shared_bytes;
      if (begin % kPage != 0 || next < begin + kPage) fail("a buffer not laid out in whole pages");
      size_t end = next - kPage;   // the full fence page stays writable, and checked
      if (end == begin) continue;  // an empty tensor
      void* at =
          ::mmap(shared + begin, end - begin, PROT_READ, MAP_SHARED | MAP_FIXED | MAP_POPULATE,
                 read_only, static_cast<off_t>(begin));
      if (at == MAP_FAILED) {
        fail(std::string("mmap of an input read-only: ") + std::strerror(errno));
      }
      ranges.push_back({reinterpret_cast<uintptr_t>(shared + begin),
                        reinterpret_cast<uintptr_t>(shared + end), index});
    }
  }
  ::close(read_only);
  return ranges;
}

#ifdef ACCELOPT_HAVE_SECCOMP
void add_rule(scmp_filter_ctx filter, uint32_t action, const char* name, unsigned count = 0,
              scmp_arg_cmp condition = {}, scmp_arg_cmp second = {}) {
  int number = seccomp_syscall_resolve_name(name);
  if (number == __NR_SCMP_ERROR) return;  // not on this architecture
  scmp_arg_cmp conditions[] = {condition, second};
  int result = seccomp_rule_add_array(filter, action, number, count, conditions);
  if (result != 0) fail(std::string("seccomp rule for ") + name + ": " + std::strerror(-result));
}

enum class OpenPolicy {
  kReadOnly,    // trusted library code while loading: the loader and it may read files
  kSupervised,  // every open goes to the supervisor (at most one is ever answered)
  kNever,       // the calls: no file at all
};

// The shared memory's addresses in the runner: [begin, end).
struct SharedRange {
  uintptr_t begin = 0, end = 0;
};

// Advice that changes only what this process's own view of memory does. MADV_REMOVE frees the
// shared pages under every process that maps them, MADV_PAGEOUT and MADV_COLD push them out for
// all: the other side's runner would then fault in its timed turn.
constexpr int kOwnViewAdvice[] = {MADV_NORMAL,   MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED,
                                  MADV_DONTNEED, MADV_FREE,   MADV_HUGEPAGE,   MADV_NOHUGEPAGE,
                                  MADV_DONTDUMP, MADV_DODUMP, MADV_DONTFORK,   MADV_DOFORK};

// Allows what computing needs (memory, threads, clocks, the two pipes) and traps everything else:
// files (after loading), sockets, processes, exec, ptrace, mounts, limits. Without allow_threads
// new threads are trapped too: a single-threaded task's kernel has no use for one. Memory calls
// are filtered by argument where they could reach past this process's own view of the shared
// memory (`shared`): `mremap` never on it (a writable page of it, grown or duplicated with an old
// size of 0, would map the inputs writable again), `madvise` only with kOwnViewAdvice; clocks
// only this process's own (another process's CPU clock tells when the other side runs). Returns
// the supervisor's listening descriptor under kSupervised, -1 otherwise.
int install_seccomp(OpenPolicy open_policy, bool allow_threads, SharedRange shared) {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_TRAP);
  if (filter == nullptr) fail("seccomp_init failed");
  static const char* const kAllowed[] = {
      "read",
      "write",
      "readv",
      "writev",
      "pread64",
      "close",
      "fstat",
      "newfstatat",
      "lseek",
      "mmap",
      "munmap",
      "mprotect",
      "brk",
      "futex",
      "set_robust_list",
      "get_robust_list",
      "rseq",
      "sched_yield",
      "sched_getaffinity",
      "sched_getparam",
      "sched_getscheduler",
      "getpid",
      "gettid",
      "getppid",
      "getuid",
      "geteuid",
      "getgid",
      "getegid",
      "getrandom",
      "nanosleep",
      "gettimeofday",
      "time",
      "exit",
      "exit_group",
      "rt_sigprocmask",
      "rt_sigreturn",
      "sigaltstack",
      "restart_syscall",
      "uname",
      "sysinfo",
      "getcpu",
      "membarrier",
      "getrlimit",
      "seccomp"};  // adding a filter only ever narrows what is allowed
  for (const char* name : kAllowed) add_rule(filter, SCMP_ACT_ALLOW, name);
  add_rule(filter, SCMP_ACT_ALLOW, "mremap", 1, SCMP_A0(SCMP_CMP_LT, shared.begin));
  add_rule(filter, SCMP_ACT_ALLOW, "mremap", 1, SCMP_A0(SCMP_CMP_GE, shared.end));
  for (int advice : kOwnViewAdvice) {
    add_rule(filter, SCMP_ACT_ALLOW, "madvise", 1,
             SCMP_A2(SCMP_CMP_EQ, static_cast<scmp_datum_t>(advice)));
  }
  // A clock id with its sign bit set names a process's or a thread's CPU clock by pid.
  for (const char* name : {"clock_gettime", "clock_getres", "clock_nanosleep"}) {
    add_rule(filter, SCMP_ACT_ALLOW, name, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0x80000000u, 0));
  }
  if (allow_threads) {
    add_rule(filter, SCMP_ACT_ALLOW, "clone", 1,
             SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));  // threads, not processes
  }
  add_rule(filter, SCMP_ACT_ERRNO(ENOSYS), "clone3");  // glibc then falls back to clone
  add_rule(filter, SCMP_ACT_ALLOW, "rt_sigaction", 1, SCMP_A0(SCMP_CMP_NE, SIGSYS));
  add_rule(filter, SCMP_ACT_ALLOW, "tgkill", 1,
           SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(::getpid())));
  add_rule(filter, SCMP_ACT_ALLOW, "kill", 1,
           SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(::getpid())));
  add_rule(filter, SCMP_ACT_ALLOW, "prlimit64", 1, SCMP_A2(SCMP_CMP_EQ, 0));  // read, never raise
  // fcntl by command: F_SETOWN, F_SETSIG and O_ASYNC would make a write to a pipe signal any
  // process of the runner's uid; F_SETLEASE and F_NOTIFY signal too. Every other command traps.
  for (int command : {F_GETFD, F_SETFD, F_GETFL, F_DUPFD_CLOEXEC}) {
    add_rule(filter, SCMP_ACT_ALLOW, "fcntl", 1,
             SCMP_A1(SCMP_CMP_EQ, static_cast<scmp_datum_t>(command)));
  }
  add_rule(filter, SCMP_ACT_ALLOW, "fcntl", 2, SCMP_A1(SCMP_CMP_EQ, F_SETFL),
           SCMP_A2(SCMP_CMP_MASKED_EQ, O_ASYNC, 0));
  int listener = -1;
  if (open_policy == OpenPolicy::kSupervised) {
    // The listener will take the lowest free descriptor; only the supervisor may talk to it.
    listener = ::fcntl(kReplyFd, F_DUPFD_CLOEXEC, 0);
    ::close(listener);
    // Only the supervisor's own requests, so no generic ioctl (FIOASYNC, ...) reaches the listener.
    for (unsigned long request : {SECCOMP_IOCTL_NOTIF_RECV, SECCOMP_IOCTL_NOTIF_SEND,
                                  SECCOMP_IOCTL_NOTIF_ID_VALID, SECCOMP_IOCTL_NOTIF_ADDFD}) {
      add_rule(filter, SCMP_ACT_ALLOW, "ioctl", 2,
               SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(listener)),
               SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, request));
    }
    add_rule(filter, SCMP_ACT_ERRNO(ENOTTY), "ioctl", 1,
             SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(listener)));
    add_rule(filter, SCMP_ACT_NOTIFY, "openat");
  } else {
    add_rule(filter, SCMP_ACT_ERRNO(ENOTTY), "ioctl");
  }
  if (open_policy == OpenPolicy::kReadOnly) {
    add_rule(filter, SCMP_ACT_ALLOW, "openat", 1,
             SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY));
  }
  // Synchronizing threads and a listener do not mix; only the supervised load is single-threaded.
  seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, open_policy == OpenPolicy::kSupervised ? 0 : 1);
  seccomp_attr_set(filter, SCMP_FLTATR_CTL_NNP, 0);  // set once by main(); prctl is not allowed
  int result = seccomp_load(filter);
  if (result == 0 && open_policy == OpenPolicy::kSupervised) {
    int actual = seccomp_notify_fd(filter);
    if (actual != listener) fail("the seccomp listener is on an unexpected descriptor");
  }
  seccomp_release(filter);
  if (result != 0) fail(std::string("seccomp_load: ") + std::strerror(-result));
  return listener;
}

// From now on every open traps, in every thread (the filter joins the stack, so it only narrows).
void trap_every_open() {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr) ::_exit(kRunnerSetupFailure);
  for (const char* name : {"open", "openat", "openat2", "open_by_handle_at", "creat"}) {
    int number = seccomp_syscall_resolve_name(name);
    if (number != __NR_SCMP_ERROR) seccomp_rule_add(filter, SCMP_ACT_TRAP, number, 0);
  }
  seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
  seccomp_attr_set(filter, SCMP_FLTATR_CTL_NNP, 0);
  int result = seccomp_load(filter);
  seccomp_release(filter);
  if (result != 0) ::_exit(kRunnerSetupFailure);
}

// The supervising thread: answers the loader's open of the kernel with `library_fd`, refuses
// anything else, and makes all later opens trap before it answers, so no kernel code ever runs
// while an open could still be granted.
void supervise_load(int listener, int library_fd, const std::string& library_path,
                    std::string& refused) {
  struct seccomp_notif* request = nullptr;
  struct seccomp_notif_resp* response = nullptr;
  if (seccomp_notify_alloc(&request, &response) != 0) ::_exit(kRunnerSetupFailure);
  while (seccomp_notify_receive(listener, request) != 0) {
    if (errno != EINTR && errno != ENOENT) ::_exit(kRunnerSetupFailure);
  }
  // The path lives in this process: the thread that asked is blocked in the loader.
  const char* path = reinterpret_cast<const char*>(request->data.args[1]);
  bool expected = request->data.nr == __NR_openat && path != nullptr && library_path == path;
  trap_every_open();
  if (expected) {
    struct seccomp_notif_addfd answer {};
    answer.id = request->id;
    answer.flags = SECCOMP_ADDFD_FLAG_SEND;
    answer.srcfd = static_cast<uint32_t>(library_fd);
    answer.newfd_flags = O_CLOEXEC;
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &answer) < 0) ::_exit(kRunnerSetupFailure);
  } else {
    refused = path == nullptr ? "(no path)" : std::string(path).substr(0, 200);
    response->id = request->id;
    response->error = -EACCES;
    response->val = 0;
    response->flags = 0;
    seccomp_notify_respond(listener, response);
  }
  seccomp_notify_free(request, response);
}
#endif

// The DT_NEEDED names of the ELF shared object on `fd`, read with pread (no mapping, no code run).
std::vector<std::string> needed_libraries(int fd) {
  auto read_at = [&](void* into, size_t size, uint64_t offset) {
    return ::pread(fd, into, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
  };
  Elf64_Ehdr header{};
  if (!read_at(&header, sizeof header, 0) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr)) {
    fail("the kernel library is not a 64-bit ELF file");
  }
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  if (!read_at(segments.data(), segments.size() * sizeof(Elf64_Phdr), header.e_phoff)) {
    fail("cannot read the kernel library's program headers");
  }
  auto file_offset = [&](uint64_t address) -> uint64_t {
    for (const Elf64_Phdr& segment : segments) {
      if (segment.p_type == PT_LOAD && address >= segment.p_vaddr &&
          address < segment.p_vaddr + segment.p_filesz) {
        return address - segment.p_vaddr + segment.p_offset;
      }
    }
    fail("the kernel library's dynamic section points outside its file");
  };
  std::vector<uint64_t> names;
  uint64_t strings = 0;
  for (const Elf64_Phdr& segment : segments) {
    if (segment.p_type != PT_DYNAMIC) continue;
    for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= segment.p_filesz; at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      if (!read_at(&entry, sizeof entry, segment.p_offset + at) || entry.d_tag == DT_NULL) break;
      if (entry.d_tag == DT_NEEDED) names.push_back(entry.d_un.d_val);
      if (entry.d_tag == DT_STRTAB) strings = entry.d_un.d_ptr;
    }
  }
  std::vector<std::string> libraries;
  for (uint64_t name : names) {
    char text[256] = {};
    if (!read_at(text, sizeof text - 1, file_offset(strings) + name)) {
      fail("cannot read a library name of the kernel");
    }
    libraries.emplace_back(text);
  }
  return libraries;
}

// Loads what the kernel links against while opening files is still allowed, so that loading the
// kernel itself opens only the kernel.
void preload_libraries(int library_fd) {
  for (const std::string& name : needed_libraries(library_fd)) {
    if (name.find('/') != std::string::npos) fail("the kernel needs a library by path: " + name);
    if (::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
      fail("cannot load " + name + ", which the kernel needs: " + ::dlerror());
    }
  }
}

// Whatever the kernel opened or duplicated while loading does not survive into the calls.
void close_all_but_pipes() {
  for (int fd = 0; fd < 1024; ++fd) {
    if (fd > STDERR_FILENO && fd != kCommandFd && fd != kReplyFd) ::close(fd);
  }
}

// SIGKILL when the harness dies, so that a killed accelopt leaves no runner spinning. The harness
// sets it before exec (common/subprocess.h), but a change of user clears it: set again after
// drop_privileges. A harness that died in between is no longer `parent`.
void die_with_parent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
}

// A uid no other process has: kRunnerUids plus this runner's pid, unique among the runners alive,
// so that its kernel can signal no other runner, compiler or process of the machine (a signal
// needs the same uid). Where that uid cannot be had (a container mapping few uids), nobody.
constexpr uid_t kRunnerUids = 1u << 30;

enum class Dropped { kNo, kToNobody, kToOwnUid };

Dropped drop_privileges() {
  if (::geteuid() != 0) return Dropped::kNo;
  if (::setgroups(0, nullptr) != 0)
    fail(std::string("cannot drop groups: ") + std::strerror(errno));
  const uid_t own = kRunnerUids + static_cast<uid_t>(::getpid());
  Dropped dropped = Dropped::kToOwnUid;
  if (::setresgid(own, own, own) != 0 || ::setresuid(own, own, own) != 0) {
    const uid_t nobody = 65534;
    dropped = Dropped::kToNobody;
    if (::setresgid(nobody, nobody, nobody) != 0 || ::setresuid(nobody, nobody, nobody) != 0) {
      fail(std::string("cannot drop privileges: ") + std::strerror(errno));
    }
  }
  ::prctl(PR_SET_DUMPABLE, 1);  // keeps /proc/self readable for the loader and the harness
  return dropped;
}

using Pointer = void*;

// The entry point called with its pointers: one function type per count, up to
// accelopt::task::kMostTensors (16; loading a task refuses more).
static_assert(accelopt::task::kMostTensors == 16, "call_entry has a case for each count up to 16");

void call_entry(void* entry, const std::vector<Pointer>& a) {
  using P = Pointer;
  switch (a.size()) {
    case 1:
      return reinterpret_cast<void (*)(P)>(entry)(a[0]);
    case 2:
      return reinterpret_cast<void (*)(P, P)>(entry)(a[0], a[1]);
    case 3:
      return reinterpret_cast<void (*)(P, P, P)>(entry)(a[0], a[1], a[2]);
    case 4:
      return reinterpret_cast<void (*)(P, P, P, P)>(entry)(a[0], a[1], a[2], a[3]);
    case 5:
      return reinterpret_cast<void (*)(P, P, P, P, P)>(entry)(a[0], a[1], a[2], a[3], a[4]);
    case 6:
      return reinterpret_cast<void (*)(P, P, P, P, P, P)>(entry)(a[0], a[1], a[2], a[3], a[4],
                                                                 a[5]);
    case 7:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P)>(entry)(a[0], a[1], a[2], a[3], a[4],
                                                                    a[5], a[6]);
    case 8:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P)>(entry)(a[0], a[1], a[2], a[3], a[4],
                                                                       a[5], a[6], a[7]);
    case 9:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    case 10:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
    case 11:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
    case 12:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
    case 13:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12]);
    case 14:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13]);
    case 15:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
          a[14]);
    case 16:
      return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(entry)(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
          a[14], a[15]);
    default:
      fail("entry points with " + std::to_string(a.size()) + " arguments are not supported (1-" +
           std::to_string(accelopt::task::kMostTensors) + ")");
  }
}

// The entry point's arguments for every slot: a timed turn's call i uses slot i.
std::vector<std::vector<Pointer>> slot_arguments(const std::vector<Pointer>& buffers,
                                                 const SlotLayout& slots) {
  if (slots.buffers() != buffers.size()) fail("--slots does not match the --offset arguments");
  std::vector<std::vector<Pointer>> all;
  for (int slot = 0; slot < slots.slots; ++slot) {
    std::vector<Pointer> arguments;
    for (size_t t = 0; t < slots.inputs; ++t) arguments.push_back(buffers[slots.input(slot, t)]);
    for (size_t t = 0; t < slots.outputs; ++t) arguments.push_back(buffers[slots.output(slot, t)]);
    all.push_back(std::move(arguments));
  }
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const pid_t parent = ::getppid();
  std::string entry_name = "kernel";
  std::vector<size_t> offsets;
  SlotLayout slots;
  bool slots_given = false;
  bool want_seccomp = true;
  // Trusted library code (oneDNN) reads its CPU's description from /sys on its first call; that
  // call happens while files may still be opened read-only.
  bool call_while_loading = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--entry" && i + 1 < argc) {
      entry_name = argv[++i];
    } else if (arg == "--offset" && i + 1 < argc) {
      offsets.push_back(std::strtoull(argv[++i], nullptr, 10));
    } else if (arg == "--slots" && i + 3 < argc) {
      slots.inputs = std::strtoull(argv[++i], nullptr, 10);
      slots.outputs = std::strtoull(argv[++i], nullptr, 10);
      slots.slots = std::max(1, std::atoi(argv[++i]));
      slots_given = true;
    } else if (arg == "--no-seccomp") {
      want_seccomp = false;
    } else if (arg == "--call-while-loading") {
      call_while_loading = true;
    } else {
      fail("unknown argument " + arg);
    }
  }

  struct stat shared_stat {};
  if (::fstat(kSharedMemoryFd, &shared_stat) != 0) fail("no shared memory on fd 5");
  // Populated before the kernel loads: no page faults in its first calls (the harness's pages).
  auto* shared = static_cast<char*>(::mmap(nullptr, static_cast<size_t>(shared_stat.st_size),
                                           PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                                           kSharedMemoryFd, 0));
  if (shared == MAP_FAILED) fail(std::string("mmap of shared memory: ") + std::strerror(errno));
#ifdef ACCELOPT_HAVE_SECCOMP
  SharedRange range{reinterpret_cast<uintptr_t>(shared),
                    reinterpret_cast<uintptr_t>(shared) + static_cast<size_t>(shared_stat.st_size)};
#endif
  std::vector<Pointer> arguments;
  for (size_t offset : offsets) {
    if (offset >= static_cast<size_t>(shared_stat.st_size)) fail("argument offset out of range");
    arguments.push_back(shared + offset);
  }
  std::vector<ReadOnlyRange> input_pages;
  if (slots_given) {
    input_pages =
        map_inputs_read_only(shared, static_cast<size_t>(shared_stat.st_size), offsets, slots);
    read_only_ranges = &input_pages;
  }
  ::close(kSharedMemoryFd);
  if (!slots_given) slots.outputs = arguments.size();  // one slot: every buffer is an argument
  std::vector<std::vector<Pointer>> turn_arguments = slot_arguments(arguments, slots);
  arguments.resize(slots.inputs + slots.outputs);  // slot 0, for CALL

  bool network_namespace = ::unshare(CLONE_NEWNET) == 0;
  Dropped dropped = drop_privileges();
  die_with_parent(parent);
  bool no_new_privs = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;

  struct sigaction action {};
  action.sa_sigaction = on_forbidden_syscall;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSYS, &action, nullptr);
  struct sigaction fault {};
  fault.sa_sigaction = on_segmentation_fault;
  fault.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&fault.sa_mask);
  ::sigaction(SIGSEGV, &fault, nullptr);

  // The task's thread limit (the harness sets OMP_NUM_THREADS to it): one thread means no clone
  // after loading. The harness counts the threads from outside (/proc/<pid>/status) after every
  // call and turn; the runner keeps no descriptor for it. Trusted library code keeps its own thread
  // pools.
  const char* threads_variable = std::getenv("OMP_NUM_THREADS");
  int allowed_threads =
      call_while_loading || threads_variable == nullptr ? 0 : std::atoi(threads_variable);
  bool allow_threads = allowed_threads != 1;

  bool seccomp = false;
  bool supervised_load = false;
  std::string library_path = "/proc/self/fd/" + std::to_string(kLibraryFd);
  void* library = nullptr;
#ifdef ACCELOPT_HAVE_SECCOMP
  if (want_seccomp && !call_while_loading) {
    preload_libraries(kLibraryFd);
    int listener = install_seccomp(OpenPolicy::kSupervised, /*allow_threads=*/true, range);
    std::string refused;
    std::thread supervisor(supervise_load, listener, kLibraryFd, library_path, std::ref(refused));
    library = ::dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    supervisor.join();
    if (!refused.empty()) fail("the loader tried to open " + refused + " besides the kernel");
    supervised_load = true;
  } else if (want_seccomp) {
    install_seccomp(OpenPolicy::kReadOnly, /*allow_threads=*/true, range);
  }
#endif
  if (!supervised_load) library = ::dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) fail(std::string("cannot load the kernel: ") + ::dlerror());
  void* entry = ::dlsym(library, entry_name.c_str());
  if (entry == nullptr) fail("the kernel does not define extern \"C\" " + entry_name);
  if (call_while_loading) {
    call_entry(entry, arguments);  // trusted code may keep what it opened
    ::close(kLibraryFd);
  } else {
    close_all_but_pipes();
  }
#ifdef ACCELOPT_HAVE_SECCOMP
  if (want_seccomp) {
    install_seccomp(OpenPolicy::kNever, allow_threads, range);
    seccomp = true;
  }
#endif

  reply(std::string("READY netns=") + (network_namespace ? "1" : "0") +
        " seccomp=" + (seccomp ? "1" : "0") + " uid=" + std::to_string(::getuid()) +
        " no_new_privs=" + (no_new_privs ? "1" : "0") +
        " dropped_root=" + (dropped != Dropped::kNo ? "1" : "0") +
        " own_uid=" + (dropped == Dropped::kToOwnUid ? "1" : "0") + " load_without_files=" +
        (supervised_load ? "1" : "0") + " thread_limit=" + (allowed_threads > 0 ? "1" : "0"));

  std::string command;
  while (read_line(command)) {
    if (command.rfind("CALL ", 0) == 0) {
      long count = std::strtol(command.c_str() + 5, nullptr, 10);
      for (long i = 0; i < count; ++i) call_entry(entry, arguments);
      reply("DONE");
    } else if (command.rfind("TURN ", 0) == 0) {
      long count = std::min<long>(std::strtol(command.c_str() + 5, nullptr, 10), slots.slots);
      for (long i = 0; i < count; ++i) call_entry(entry, turn_arguments[static_cast<size_t>(i)]);
      reply("DONE");
    } else if (command == "QUIT") {
      break;
    } else {
      fail("unknown command '" + command + "'");
    }
  }
  std::fflush(stdout);
  ::_exit(0);
}
