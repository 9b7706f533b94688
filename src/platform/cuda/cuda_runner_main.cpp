// accelopt-cuda-runner: loads one CUDA kernel library, mirrors the harness's shared memory on the
// device and calls the kernel on it when told (runner_protocol.h). Candidate code runs in this
// process, host stub included, so the runner holds nothing the harness trusts: the harness checks
// every tensor and fence on its own side, and this process is sandboxed as far as a process that
// talks to a GPU can be: an empty environment and working directory (set by the harness), no new
// privileges, Landlock denying every file outside /dev (the driver's device files), and seccomp
// killing it on network sockets, exec, new processes and ptrace.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef ACCELOPT_HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "platform/cuda/runner_protocol.h"
#include "task/entry_point_limit.h"

namespace {

using namespace accelopt::platform;
using namespace accelopt::platform::cuda;

void reply(const std::string& line) {
  std::string text = line + "\n";
  if (::write(kReplyFd, text.data(), text.size()) < 0) std::_Exit(2);
}

[[noreturn]] void fail(const std::string& why) {
  reply("FAIL " + why);
  std::_Exit(3);
}

std::string read_command() {
  std::string line;
  char c = 0;
  while (::read(kCommandFd, &c, 1) == 1) {
    if (c == '\n') return line;
    line += c;
  }
  std::_Exit(0);  // the harness went away
}

std::vector<size_t> parse_offsets(const char* text) {
  std::vector<size_t> offsets;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!item.empty()) offsets.push_back(std::stoull(item));
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return offsets;
}

// Files: nothing but the device nodes. Returns whether Landlock is in force.
bool restrict_files() {
  landlock_ruleset_attr attributes{};
  attributes.handled_access_fs =
      LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
      LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
      LANDLOCK_ACCESS_FS_MAKE_SYM;
  long ruleset = ::syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
  if (ruleset < 0) return false;
  int dev = ::open("/dev", O_PATH | O_CLOEXEC);
  if (dev >= 0) {
    landlock_path_beneath_attr rule{};
    rule.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;
    rule.parent_fd = dev;
    ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    ::close(dev);
  }
  bool ok = ::syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
  ::close(static_cast<int>(ruleset));
  return ok;
}

bool restrict_system_calls() {
#ifdef ACCELOPT_HAVE_SECCOMP
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr) return false;
  for (int call : {SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork),
                   SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
                   SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept),
                   SCMP_SYS(accept4), SCMP_SYS(sendto), SCMP_SYS(recvfrom)}) {
    seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, call, 0);
  }
  // Threads (the CUDA runtime starts some) but no processes: clone must carry CLONE_THREAD, and
  // clone3, whose flags seccomp cannot see, answers ENOSYS so that libc falls back to clone.
  seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                   SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  bool ok = seccomp_load(filter) == 0;
  seccomp_release(filter);
  return ok;
#else
  return false;
#endif
}

std::string cuda_error(const char* what, cudaError_t error) {
  return std::string(what) + ": " + cudaGetErrorString(error);
}

}  // namespace

int main(int argc, char** argv) {
  std::string entry_point = "kernel";
  std::vector<size_t> offsets;
  size_t flush_bytes = 0;
  bool call_before_sandbox = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--entry") entry_point = argv[i + 1];
    if (flag == "--offsets") offsets = parse_offsets(argv[i + 1]);
    if (flag == "--flush-bytes") flush_bytes = std::stoull(argv[i + 1]);
    if (flag == "--call-before-sandbox") call_before_sandbox = std::string(argv[i + 1]) == "1";
  }

  struct stat shared {};
  if (::fstat(kSharedMemoryFd, &shared) != 0) fail("no shared memory on fd 5");
  auto total = static_cast<size_t>(shared.st_size);
  void* host = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, kSharedMemoryFd, 0);
  if (host == MAP_FAILED) fail(std::string("mmap: ") + std::strerror(errno));

  int devices = 0;
  if (cudaError_t error = cudaGetDeviceCount(&devices); error != cudaSuccess || devices == 0) {
    fail("no CUDA device: " +
         std::string(error == cudaSuccess ? "none found" : cudaGetErrorString(error)));
  }
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, 0);
  char* device = nullptr;
  char* flush = nullptr;
  if (cudaError_t error = cudaMalloc(&device, total); error != cudaSuccess) {
    fail(cuda_error("cudaMalloc of the tensors", error));
  }
  if (flush_bytes == 0) flush_bytes = 2 * static_cast<size_t>(properties.l2CacheSize);
  if (cudaError_t error = cudaMalloc(&flush, flush_bytes); error != cudaSuccess) {
    fail(cuda_error("cudaMalloc of the L2 flush buffer", error));
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);

  std::string library = "/proc/self/fd/" + std::to_string(kLibraryFd);
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) fail(std::string("cannot load the kernel: ") + ::dlerror());
  void* symbol = ::dlsym(handle, entry_point.c_str());
  if (symbol == nullptr) fail("the kernel does not define extern \"C\" " + entry_point);

  // The entry point takes one device pointer per tensor, up to 16 (as the CPU runner; the MoE has
  // 11). It is called with 16, the unused ones null: the caller pops its arguments in the x86-64
  // calling convention, so a function of fewer parameters never sees the rest.
  using accelopt::task::kMostTensors;
  if (offsets.size() > kMostTensors) {
    fail("the entry point has " + std::to_string(offsets.size()) + " tensors; at most " +
         std::to_string(kMostTensors) + " are passed");
  }
  using Pointer = void*;
  std::vector<Pointer> pointers;
  for (size_t offset : offsets) pointers.push_back(device + offset);
  pointers.resize(kMostTensors, nullptr);
  auto call_kernel = [&] {
    using P = Pointer;
    using Kernel = void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P);
    const std::vector<Pointer>& a = pointers;
    reinterpret_cast<Kernel>(symbol)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                     a[10], a[11], a[12], a[13], a[14], a[15]);
  };

  // Trusted library code (cuBLAS side by side) loads more of itself on its first call; it makes
  // that call before the sandbox closes the file system. Never set for a kernel an agent wrote.
  if (call_before_sandbox) {
    call_kernel();
    if (cudaError_t error = cudaDeviceSynchronize(); error != cudaSuccess) {
      fail(cuda_error("the first call", error));
    }
  }

  bool no_new_privs = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
  bool landlock = restrict_files();
  bool seccomp = restrict_system_calls();
  std::string device_name = properties.name;  // one word on the READY line
  std::replace(device_name.begin(), device_name.end(), ' ', '_');
  reply("READY device=" + device_name + " sm=" + std::to_string(properties.major) + "." +
        std::to_string(properties.minor) + " landlock=" + (landlock ? "1" : "0") +
        " seccomp=" + (seccomp ? "1" : "0") + " no_new_privs=" + (no_new_privs ? "1" : "0"));

  for (;;) {
    std::string command = read_command();
    cudaError_t error = cudaSuccess;
    if (command == "LOAD") {
      error = cudaMemcpy(device, host, total, cudaMemcpyHostToDevice);
      if (error == cudaSuccess) reply("LOADED");
    } else if (command == "FETCH") {
      error = cudaMemcpy(host, device, total, cudaMemcpyDeviceToHost);
      if (error == cudaSuccess) reply("FETCHED");
    } else if (command.rfind("CALL ", 0) == 0) {
      int count = std::atoi(command.c_str() + 5);
      double seconds = 0;
      for (int call = 0; call < count && error == cudaSuccess; ++call) {
        cudaMemsetAsync(flush, call & 0xff, flush_bytes);
        cudaEventRecord(start);
        call_kernel();
        cudaEventRecord(stop);
        error = cudaEventSynchronize(stop);
        if (error == cudaSuccess) error = cudaGetLastError();
        float milliseconds = 0;
        if (error == cudaSuccess) error = cudaEventElapsedTime(&milliseconds, start, stop);
        seconds += milliseconds / 1e3;
      }
      if (error == cudaSuccess) {
        char line[64];
        std::snprintf(line, sizeof line, "DONE %.9g", seconds);
        reply(line);
      }
    } else if (command == "QUIT") {
      return 0;
    } else {
      reply("ERROR unknown command: " + command);
      return 4;
    }
    if (error != cudaSuccess) {
      reply("ERROR " + std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error));
      return 5;
    }
  }
}
