// A reference case's tensors in the shared memory the runner mirrors on the device, each at its
// dtype's storage width (task/dtype.h): inputs encoded as the CPU harness encodes them, outputs
// cleared to NaN in their dtype, and after a call the outputs decoded to float for the checker. The
// runner copies bytes and never reads them, so a bfloat16 or int32 task needs no change on the
// device side.
#pragma once

#include <optional>
#include <vector>

#include "platform/checker.h"
#include "platform/shared_buffers.h"
#include "task/task.h"

namespace accelopt::platform::cuda {

// Throws UserError naming the first tensor the CUDA platform cannot run: float64 (no kernel
// type for it here). float32, bfloat16, float16, float8_e4m3fn, int8 and int32 run.
void require_cuda_dtypes(const task::Task& task);

// The case's inputs in place (they are held in their dtypes), every output cleared to NaN (integers
// to 0xA5 bytes), the fences re-armed. `buffers` holds the inputs then the outputs (buffer_sizes).
void stage_case(SharedBuffers& buffers, const task::Task& task,
                const ReferenceCase& reference_case);

// The first input whose bytes differ from the case's (the kernel wrote it).
std::optional<size_t> changed_input(const SharedBuffers& buffers, const task::Task& task,
                                    const ReferenceCase& reference_case);

// The outputs as float values, in definition order: float32 outputs read where they are, the
// others decoded into `storage`, which must outlive the pointers.
std::vector<const float*> decoded_outputs(const SharedBuffers& buffers, const task::Task& task,
                                          std::vector<std::vector<float>>& storage);

}  // namespace accelopt::platform::cuda
