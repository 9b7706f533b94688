// The tensors a kernel reads and writes, in one shared-memory region that both the harness and the
// runner map. Each tensor starts on its own page and is fenced by canary bytes on both sides, so a
// write past either end is seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace accelopt::platform {

class SharedBuffers {
 public:
  // One buffer per entry of `byte_sizes`, in order.
  explicit SharedBuffers(const std::vector<size_t>& byte_sizes);
  ~SharedBuffers();
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;

  int fd() const { return fd_; }
  size_t count() const { return offsets_.size(); }
  const std::vector<size_t>& sizes() const { return sizes_; }  // as constructed
  size_t total_bytes() const { return total_; }                // fences included
  // Every byte zeroed, fences too: a set lent to another evaluation holds nothing of the last.
  void clear();
  size_t offset(size_t index) const { return offsets_[index]; }
  size_t size(size_t index) const { return sizes_[index]; }
  void* data(size_t index) const { return base_ + offsets_[index]; }
  float* floats(size_t index) const { return static_cast<float*>(data(index)); }

  // The fences around buffers first .. first + count - 1 (all by default): before each of them and
  // after the last. Timed turns re-arm and check only the buffers of the slots they used.
  void fill_canaries(size_t first = 0, size_t count = SIZE_MAX);
  // The index of the first of those buffers whose fence was overwritten.
  std::optional<size_t> damaged_canary(size_t first = 0, size_t count = SIZE_MAX) const;

 private:
  int fd_ = -1;
  char* base_ = nullptr;
  size_t total_ = 0;
  std::vector<size_t> offsets_;
  std::vector<size_t> sizes_;

  // The fence before buffer i (i == count(): after the last buffer), as [begin, end).
  std::pair<size_t, size_t> fence(size_t i) const;
};

}  // namespace accelopt::platform
