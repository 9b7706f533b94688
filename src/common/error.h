// Two kinds of failure: the user's input is wrong (UserError: say what to fix), or accelopt has a
// bug or the machine failed it (InternalError). Expected outcomes, such as a kernel that does not
// compile, are values (a Verdict), not exceptions.
#pragma once

#include <stdexcept>
#include <string>

namespace accelopt {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

class InternalError : public std::runtime_error {
 public:
  explicit InternalError(const std::string& message) : std::runtime_error(message) {}
};

// "<what>: <strerror(errno)>", for failed system calls.
std::string errno_message(const std::string& what);

}  // namespace accelopt
