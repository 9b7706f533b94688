#include "platform/evaluation_memory.h"

#include <fstream>
#include <sstream>
#include <string>

#include "task/dtype.h"

namespace accelopt::platform {

uint64_t evaluation_memory_bytes(const task::Task& task, const task::Workload& workload) {
  uint64_t per_case_bytes = 0, constant_bytes = 0, elements = 0;
  for (const task::TensorSpec& input : task.inputs) {
    auto count = static_cast<uint64_t>(task.element_count(input, workload));
    elements += count;
    (input.constant ? constant_bytes : per_case_bytes) += count * task::dtype_size(input.dtype);
  }
  uint64_t python_copy = task.python_reference ? 4 * elements : 0;
  return per_case_bytes * static_cast<uint64_t>(task.seeds + 1) + 3 * constant_bytes + python_copy;
}

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {  // "MemAvailable:   21474836 kB"
    std::istringstream fields(line);
    std::string key;
    uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace accelopt::platform
