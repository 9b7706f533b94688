#include "common/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <utility>

#include "common/error.h"

namespace accelopt {

LineReader::LineReader(int fd, std::string source) : fd_(fd), source_(std::move(source)) {}

std::optional<std::string> LineReader::read_line(std::chrono::steady_clock::time_point deadline,
                                                 bool& timed_out) {
  timed_out = false;
  while (true) {
    size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      return std::nullopt;
    }
    // Polls a second at most: a far deadline in milliseconds would overflow poll's int.
    pollfd entry = {fd_, POLLIN, 0};
    int ready = ::poll(&entry, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) throw InternalError(errno_message("poll " + source_));
    if (ready <= 0) continue;
    char chunk[512];
    ssize_t count = ::read(fd_, chunk, sizeof chunk);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return std::nullopt;  // the writer ended
    pending_.append(chunk, static_cast<size_t>(count));
    if (pending_.size() > kMaxPending) pending_.erase(0, pending_.size() - kMaxPending);
  }
}

}  // namespace accelopt
