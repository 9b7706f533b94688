#include "common/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace accelopt {

std::string errno_message(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(errno_message("cannot read " + path.string()));
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(getpid());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InternalError(errno_message("cannot create " + temporary.string()));
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string message = errno_message("cannot write " + temporary.string());
      ::close(fd);
      ::unlink(temporary.c_str());
      throw InternalError(message);
    }
    written += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string message =
        errno_message("cannot rename " + temporary.string() + " to " + path.string());
    ::unlink(temporary.c_str());
    throw InternalError(message);
  }
}

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + ".XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw InternalError(errno_message("cannot create a temporary directory " + pattern));
  }
  path_ = pattern;
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path cache_directory() {
  std::filesystem::path directory;
  if (const char* explicit_dir = std::getenv("ACCELOPT_CACHE_DIR"); explicit_dir && *explicit_dir) {
    directory = explicit_dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    directory = std::filesystem::path(xdg) / "accelopt";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    directory = std::filesystem::path(home) / ".cache" / "accelopt";
  } else {
    directory = std::filesystem::temp_directory_path() / "accelopt-cache";
  }
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    throw UserError("cannot create cache directory " + directory.string() + ": " + error.message());
  return directory;
}

}  // namespace accelopt
