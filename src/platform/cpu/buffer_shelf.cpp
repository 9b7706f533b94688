#include "platform/cpu/buffer_shelf.h"

#include <algorithm>

namespace accelopt::platform::cpu {

std::unique_ptr<SharedBuffers> BufferShelf::take(const std::vector<size_t>& byte_sizes) {
  std::unique_ptr<SharedBuffers> found;
  {
    std::lock_guard lock(mutex_);
    auto match = std::find_if(idle_.rbegin(), idle_.rend(),
                              [&](const auto& idle) { return idle->sizes() == byte_sizes; });
    if (match != idle_.rend()) {
      found = std::move(*match);
      idle_.erase(std::next(match).base());
    }
  }
  if (!found) return std::make_unique<SharedBuffers>(byte_sizes);
  found->clear();
  return found;
}

void BufferShelf::put_back(std::unique_ptr<SharedBuffers> buffers) {
  if (!buffers || buffers->total_bytes() > capacity_bytes_) return;
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(buffers));
  uint64_t kept = 0;
  for (const auto& idle : idle_) kept += idle->total_bytes();
  while (kept > capacity_bytes_) {
    kept -= idle_.front()->total_bytes();
    idle_.erase(idle_.begin());
  }
}

size_t BufferShelf::idle_sets() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

}  // namespace accelopt::platform::cpu
