// Sets of a kernel's buffers kept from one evaluation for the next that needs the same sizes.
//
// On the virtual machines this project runs on, the first write to each page of a new mapping
// costs 25 to 60 times what writing it again does (58.7 MB: 0.09 to 0.25 s against 4 ms,
// docs/harness.md "Round five"), and a CPU workload's set is 235 MB (silu) or more. A set
// lent again is zeroed first (SharedBuffers::clear), and only once every process that mapped it
// has ended, so nothing one kernel leaves in it reaches another.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "platform/shared_buffers.h"

namespace accelopt::platform::cpu {

class BufferShelf {
 public:
  // Keeps at most `capacity_bytes` of idle sets, the most recently shelved first; 0 keeps none.
  explicit BufferShelf(uint64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // A set of `byte_sizes` (SharedBuffers' constructor): an idle one, zeroed, or a new one.
  std::unique_ptr<SharedBuffers> take(const std::vector<size_t>& byte_sizes);
  // Keeps `buffers` for a later take, dropping the oldest idle sets beyond the capacity. The caller
  // has ended every process that mapped them.
  void put_back(std::unique_ptr<SharedBuffers> buffers);

  size_t idle_sets() const;

 private:
  uint64_t capacity_bytes_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<SharedBuffers>> idle_;  // oldest first
};

// A set taken from a shelf for one evaluation, put back when dropped.
class BuffersOnLoan {
 public:
  BuffersOnLoan(BufferShelf& shelf, const std::vector<size_t>& byte_sizes)
      : shelf_(shelf), buffers_(shelf.take(byte_sizes)) {}
  ~BuffersOnLoan() { shelf_.put_back(std::move(buffers_)); }
  BuffersOnLoan(const BuffersOnLoan&) = delete;
  BuffersOnLoan& operator=(const BuffersOnLoan&) = delete;

  SharedBuffers& buffers() { return *buffers_; }

 private:
  BufferShelf& shelf_;
  std::unique_ptr<SharedBuffers> buffers_;
};

}  // namespace accelopt::platform::cpu
