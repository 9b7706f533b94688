#include "platform/shared_buffers.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/error.h"

namespace accelopt::platform {
namespace {

constexpr size_t kPage = 4096;
constexpr unsigned char kCanary = 0xA5;

size_t round_up(size_t value, size_t to) {
  return (value + to - 1) / to * to;
}

}  // namespace

SharedBuffers::SharedBuffers(const std::vector<size_t>& byte_sizes) {
  size_t position = kPage;  // a fence before the first buffer
  for (size_t bytes : byte_sizes) {
    offsets_.push_back(position);
    sizes_.push_back(bytes);
    position = round_up(position + bytes, kPage) + kPage;  // the tail of the page, then a full page
  }
  total_ = position;
  fd_ = ::memfd_create("accelopt-tensors", MFD_CLOEXEC);
  if (fd_ < 0) throw InternalError(errno_message("memfd_create"));
  if (::ftruncate(fd_, static_cast<off_t>(total_)) != 0) {
    ::close(fd_);
    throw InternalError(errno_message("ftruncate of shared memory to " + std::to_string(total_)));
  }
  // Populated at once: one call instead of a page fault per page, which on a virtual machine
  // cost seconds per evaluation on the CPU workloads.
  void* mapping =
      ::mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_, 0);
  if (mapping == MAP_FAILED) {
    ::close(fd_);
    throw InternalError(errno_message("mmap of shared memory"));
  }
  base_ = static_cast<char*>(mapping);
  fill_canaries();
}

SharedBuffers::~SharedBuffers() {
  if (base_) ::munmap(base_, total_);
  if (fd_ >= 0) ::close(fd_);
}

std::pair<size_t, size_t> SharedBuffers::fence(size_t i) const {
  size_t begin = i == 0 ? 0 : offsets_[i - 1] + sizes_[i - 1];
  size_t end = i < offsets_.size() ? offsets_[i] : total_;
  return {begin, end};
}

void SharedBuffers::clear() {
  std::memset(base_, 0, total_);
}

void SharedBuffers::fill_canaries(size_t first, size_t count) {
  size_t last = std::min(offsets_.size(), first + std::min(count, offsets_.size()));
  for (size_t i = first; i <= last; ++i) {
    auto [begin, end] = fence(i);
    std::memset(base_ + begin, kCanary, end - begin);
  }
}

std::optional<size_t> SharedBuffers::damaged_canary(size_t first, size_t count) const {
  static const std::vector<unsigned char> kFence(kPage, kCanary);
  size_t last = std::min(offsets_.size(), first + std::min(count, offsets_.size()));
  for (size_t i = first; i <= last; ++i) {
    auto [begin, end] = fence(i);
    for (size_t at = begin; at < end; at += kPage) {
      size_t length = std::min(kPage, end - at);
      if (std::memcmp(base_ + at, kFence.data(), length) != 0) {
        // A damaged fence after buffer i-1 (or before buffer 0) points at the buffer written past.
        return i == 0 ? 0 : i - 1;
      }
    }
  }
  return std::nullopt;
}

}  // namespace accelopt::platform
