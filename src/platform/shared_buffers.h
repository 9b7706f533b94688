// The tensors a kernel reads and writes, in one shared-memory region that both the harness and the
// runner map. Each tensor starts on its own page and is fenced by canary bytes on both sides, so a
// write past either end is seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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
  size_t offset(size_t index) const { return offsets_[index]; }
  size_t size(size_t index) const { return sizes_[index]; }
  void* data(size_t index) const { return base_ + offsets_[index]; }
  float* floats(size_t index) const { return static_cast<float*>(data(index)); }

  void fill_canaries();
  // The index of the first buffer whose fence was overwritten.
  std::optional<size_t> damaged_canary() const;

 private:
  int fd_ = -1;
  char* base_ = nullptr;
  size_t total_ = 0;
  std::vector<size_t> offsets_;
  std::vector<size_t> sizes_;
};

}  // namespace accelopt::platform
