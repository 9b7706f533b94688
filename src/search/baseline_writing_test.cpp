#include "search/baseline_writing.h"

#include <gtest/gtest.h>

#include <deque>

namespace accelopt::search {
namespace {

// Answers from a list, recording what it was shown.
struct ListedWriter : roles::BaselineWriter {
  std::deque<std::string> answers;
  std::vector<roles::KernelView> asked;
  roles::Implementation write(const roles::KernelView& task, int) override {
    asked.push_back(task);
    roles::Implementation kernel;
    kernel.author = "llm:test";
    if (answers.empty()) return kernel;
    kernel.source = answers.front();
    answers.pop_front();
    if (kernel.source.empty()) kernel.parse_error = "no code block";
    return kernel;
  }
};

struct ListedFixer : roles::Fixer {
  std::deque<std::string> answers;
  std::vector<roles::KernelView> asked;
  std::optional<roles::Implementation> fix(const roles::KernelView& failed,
                                           const roles::Plan&) override {
    asked.push_back(failed);
    if (answers.empty()) return std::nullopt;
    roles::Implementation kernel{answers.front(), "", "llm:fixer"};
    answers.pop_front();
    return kernel;
  }
};

// A check that passes the source "right" only.
std::optional<kernel::Verdict> check(const std::string& source) {
  kernel::Verdict verdict;
  verdict.status =
      source == "right" ? kernel::Status::kPassed : kernel::Status::kIncorrectNumerical;
  verdict.message = "checked " + source;
  return verdict;
}

BaselineWriting writing(task::Task& task, ListedWriter& writer, ListedFixer& fixer) {
  BaselineWriting parts;
  parts.task = &task;
  parts.stub = "// stub";
  parts.writer = &writer;
  parts.fixer = &fixer;
  parts.writes = 2;
  parts.repairs = 2;
  parts.check = check;
  return parts;
}

TEST(BaselineWriting, TheFirstKernelThatPassesAfterTheFixersRepair) {
  task::Task task;
  ListedWriter writer;
  ListedFixer fixer;
  writer.answers = {"wrong"};
  fixer.answers = {"right"};
  std::string why;
  auto written = write_baseline(writing(task, writer, fixer), &why);
  ASSERT_TRUE(written);
  EXPECT_EQ(written->source, "right");
  EXPECT_EQ(written->how, "written by the executor (attempt 1), repaired 1 time by the fixer");
  ASSERT_EQ(fixer.asked.size(), 1u);
  EXPECT_EQ(fixer.asked[0].source, "wrong");
  EXPECT_EQ(fixer.asked[0].verdict->message, "checked wrong");
  EXPECT_EQ(fixer.asked[0].place, "i0/baseline/w1/f1");
  EXPECT_EQ(writer.asked[0].source, "// stub");
  EXPECT_EQ(writer.asked[0].place, "i0/baseline/w1");
  EXPECT_NE(writer.asked[0].seed, fixer.asked[0].seed);
}

TEST(BaselineWriting, BoundedWritesAndRepairsThenTheLastFailure) {
  task::Task task;
  ListedWriter writer;
  ListedFixer fixer;
  writer.answers = {"w1", "w2", "never asked"};
  fixer.answers = {"f1", "f2", "f3", "f4", "never asked"};
  int checks = 0;
  BaselineWriting parts = writing(task, writer, fixer);
  parts.check = [&checks](const std::string& source) {
    ++checks;
    return check(source);
  };
  std::string why;
  EXPECT_FALSE(write_baseline(parts, &why));
  EXPECT_EQ(writer.asked.size(), 2u);
  EXPECT_EQ(fixer.asked.size(), 4u);
  EXPECT_EQ(checks, 6);  // two writes, each with two repairs
  EXPECT_EQ(why, "INCORRECT_NUMERICAL: checked f4");
}

TEST(BaselineWriting, AnAnswerWithoutCodeIsWrittenAgainNotRepaired) {
  task::Task task;
  ListedWriter writer;
  ListedFixer fixer;
  writer.answers = {"", "right"};
  std::string why;
  auto written = write_baseline(writing(task, writer, fixer), &why);
  ASSERT_TRUE(written);
  EXPECT_EQ(written->how, "written by the executor (attempt 2)");
  EXPECT_TRUE(fixer.asked.empty());
}

TEST(BaselineWriting, AStopRequestEndsItWithoutAFailure) {
  task::Task task;
  ListedWriter writer;
  ListedFixer fixer;
  writer.answers = {"wrong"};
  BaselineWriting parts = writing(task, writer, fixer);
  parts.check = [](const std::string&) { return std::optional<kernel::Verdict>(); };
  std::string why = "unset";
  EXPECT_FALSE(write_baseline(parts, &why));
  EXPECT_TRUE(why.empty());
  EXPECT_TRUE(fixer.asked.empty());
}

}  // namespace
}  // namespace accelopt::search
