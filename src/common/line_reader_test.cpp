#include "common/line_reader.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace accelopt {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A real pipe; each end is closed once, by the destructor or by close_writer().
class Pipe {
 public:
  Pipe() {
    int ends[2];
    if (::pipe(ends) != 0) throw std::runtime_error("pipe failed");
    read_fd = ends[0];
    write_fd = ends[1];
  }
  ~Pipe() {
    ::close(read_fd);
    close_writer();
  }
  void write(const std::string& text) const {
    ASSERT_EQ(::write(write_fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  void close_writer() {
    if (write_fd >= 0) ::close(write_fd);
    write_fd = -1;
  }
  int read_fd = -1;
  int write_fd = -1;
};

TEST(LineReader, ReturnsEachLineThatArrivesWithoutItsNewline) {
  Pipe pipe;
  LineReader reader(pipe.read_fd, "the test pipe");
  pipe.write("ready\nok 0.5\n");
  bool timed_out = true;
  EXPECT_EQ(reader.read_line(steady_clock::now() + milliseconds(2000), timed_out), "ready");
  EXPECT_FALSE(timed_out);
  EXPECT_EQ(reader.read_line(steady_clock::now() + milliseconds(2000), timed_out), "ok 0.5");
  EXPECT_FALSE(timed_out);
}

TEST(LineReader, TimesOutWhenNoWholeLineComesBeforeTheDeadline) {
  Pipe pipe;
  LineReader reader(pipe.read_fd, "the test pipe");
  pipe.write("half a li");
  bool timed_out = false;
  auto start = steady_clock::now();
  EXPECT_EQ(reader.read_line(start + milliseconds(100), timed_out), std::nullopt);
  EXPECT_TRUE(timed_out);
  EXPECT_GE(steady_clock::now() - start, milliseconds(95));  // to the millisecond, not finer
  // The half line is kept: its end still makes a whole line.
  pipe.write("ne\n");
  EXPECT_EQ(reader.read_line(steady_clock::now() + milliseconds(2000), timed_out), "half a line");
  EXPECT_FALSE(timed_out);
}

TEST(LineReader, SaysTheWriterEndedWhenItClosesBeforeANewline) {
  Pipe pipe;
  LineReader reader(pipe.read_fd, "the test pipe");
  pipe.write("unfinish");
  pipe.close_writer();
  bool timed_out = true;
  auto start = steady_clock::now();
  EXPECT_EQ(reader.read_line(start + milliseconds(5000), timed_out), std::nullopt);
  EXPECT_FALSE(timed_out);
  EXPECT_LT(steady_clock::now() - start, milliseconds(4000));  // not by waiting for the deadline
}

TEST(LineReader, JoinsALineSplitOverSeveralWrites) {
  Pipe pipe;
  LineReader reader(pipe.read_fd, "the test pipe");
  std::thread writer([&pipe] {
    for (const char* part : {"ok ", "1.2", "5e-3", "\nnext"}) {
      pipe.write(part);
      std::this_thread::sleep_for(milliseconds(20));
    }
  });
  bool timed_out = true;
  auto line = reader.read_line(steady_clock::now() + milliseconds(5000), timed_out);
  writer.join();
  EXPECT_EQ(line, "ok 1.25e-3");
  EXPECT_FALSE(timed_out);
}

TEST(LineReader, KeepsOnlyTheEndOfALineLongerThanItsLimit) {
  Pipe pipe;
  LineReader reader(pipe.read_fd, "the test pipe");
  std::thread writer([&pipe] {
    pipe.write(std::string(3 * LineReader::kMaxPending, 'x'));
    pipe.write("tail\n");
  });
  bool timed_out = true;
  auto line = reader.read_line(steady_clock::now() + milliseconds(5000), timed_out);
  writer.join();
  ASSERT_TRUE(line.has_value());
  EXPECT_LE(line->size(), LineReader::kMaxPending);
  EXPECT_TRUE(line->ends_with("xtail"));
}

}  // namespace
}  // namespace accelopt
