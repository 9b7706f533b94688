// A task's reference written in Python (reference.py: `run(**inputs)` returning the outputs, as
// FlashInfer-Bench's definitions write it; NumPy, or PyTorch where installed), run for the harness
// as untrusted code is: Debian's /usr/bin/python3 in a sandbox of its own (new mount, network, IPC
// and PID namespaces, a root holding only /usr, nobody or no capabilities, an empty working
// directory), where a driver (python_reference_driver.py) loads what the reference imports, then
// closes every open, socket and exec (seccomp, and an audit hook that names what was refused)
// before the reference's own code runs. Tensors travel in shared memory, the source on a
// descriptor: nothing the sandbox shows holds a candidate or the secret seeds.
//
// A task's constant inputs (task.h) are written to the driver once for as long as the cases hold
// the same values, and the driver keeps what it made of them (a view, read-only) from call to call.
//
// Answers for seeds a person chose are kept on disk, keyed by (driver, definition, reference
// source, workload, input set, seed), so a slow reference runs once per case; secret seeds never
// repeat and are not kept. A reference that fails keeps nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/json.h"
#include "platform/checker.h"
#include "task/task.h"

namespace accelopt::platform {

struct PythonReferenceOptions {
  std::filesystem::path interpreter = "/usr/bin/python3";
  std::filesystem::path driver;                     // empty: find_python_driver()
  std::chrono::milliseconds start_timeout{120000};  // loading NumPy (or PyTorch) and the source
  std::chrono::milliseconds call_timeout{600000};   // one run() on one case
  uint64_t memory_bytes = 8ull << 30;               // address space beyond the tensors
  std::vector<int> cpus;                            // empty: inherit
  std::filesystem::path cache_directory;            // empty: cache_directory()/python-reference
  const std::atomic<bool>* abandon = nullptr;       // as EvalRequest's
};

// python_reference_driver.py: $ACCELOPT_PYTHON_DRIVER, beside the running executable, or in the
// source tree this build came from. Throws InternalError when none is found.
std::filesystem::path find_python_driver();

class PythonReference {
 public:
  // Starts nothing yet: the interpreter starts on the first answer the cache does not hold.
  PythonReference(const task::Task& task, const task::Workload& workload,
                  PythonReferenceOptions options);
  ~PythonReference();
  PythonReference(const PythonReference&) = delete;
  PythonReference& operator=(const PythonReference&) = delete;

  // Fills `reference_case`'s outputs and reference_seconds (run()'s own time) from its inputs.
  // `public_seed`: the case's seed is not secret, so its answer may be kept and reused.
  // Throws UserError naming the task, the case and reference.py's line when the reference fails.
  void answer(ReferenceCase& reference_case, bool public_seed = false);
  // The same for inputs given as bytes at their dtypes' width (a timed slot's), in definition
  // order, into `answer`'s outputs; nothing is kept.
  void answer(const std::vector<std::span<const unsigned char>>& inputs, ReferenceCase& answer);

  // Runs run() once on `reference_case`'s inputs under the driver's FLOP counter (nothing is
  // kept): {"mm_flops", "vec_flops", "library": "torch" or "numpy", "unknown": [operations it
  // could not count]}. What counts how much is in python_reference_driver.py and
  // docs/task-format.md, "FLOP counts". Throws as answer() does.
  Json count_flops(const ReferenceCase& reference_case);

  // The sandbox's measures once started ("seccomp", "audit_hook", "isolated", ...).
  Json sandbox() const;
  // How many answers came from the cache, and how many run() calls were made.
  int cache_hits() const;
  int calls() const;
  // How many calls found the constant inputs changed, and wrote them (the first call included).
  int constant_writes() const;
  // From now on `flag` stops a call, in place of the options' abandon; not during an answer.
  void abandon_when(const std::atomic<bool>* flag);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace accelopt::platform
