// Reading a child's replies: one line at a time from a pipe, each before a deadline.
//
// The sandboxed runners (CPU and CUDA) answer each command with one line on a pipe; a runner that
// hangs must not hang accelopt, and a kernel that floods the pipe without a newline must not grow
// accelopt's memory, so the reader keeps at most the last kMaxPending bytes of an unfinished line.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace accelopt {

class LineReader {
 public:
  static constexpr size_t kMaxPending = 4096;

  // Reads from `fd`, which stays the caller's to close; `source` names the writer in errors
  // ("the CUDA runner").
  LineReader(int fd, std::string source);

  // The next line, without its '\n'. nullopt with `timed_out` set when the deadline passed first;
  // nullopt with `timed_out` clear when the writer closed its end (or the read failed) before a
  // whole line came. Throws InternalError when the descriptor cannot be polled.
  std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline,
                                       bool& timed_out);

 private:
  int fd_;
  std::string source_;
  std::string pending_;  // bytes read past the last line
};

}  // namespace accelopt
