// What `accelopt eval` prints of a kernel's profile: a loop of intrinsics is hand-vectorized, never
// "scalar", and one-lane instructions are named for what they are (issue 48).
#include "report/verdict_text.h"

#include <gtest/gtest.h>

#include <sstream>

namespace accelopt::report {
namespace {

kernel::Verdict profiled_verdict() {
  kernel::Verdict verdict;
  verdict.status = kernel::Status::kPassed;
  verdict.profile["vectorization"] =
      Json::array({{{"line", 12},
                    {"vectorized", false},
                    {"intrinsics", true},
                    {"detail", "couldn't vectorize loop"}},
                   {{"line", 20},
                    {"vectorized", false},
                    {"intrinsics", false},
                    {"detail", "not vectorized: control flow in loop"}}});
  verdict.profile["instruction_mix"] = {
      {"fp_512", 4},          {"fp_256", 0},      {"fp_128", 0},      {"fp_scalar", 3},
      {"share_512", 4 / 7.0}, {"share_256", 0.0}, {"share_128", 0.0}, {"share_scalar", 3 / 7.0}};
  return verdict;
}

TEST(VerdictText, ALoopOfIntrinsicsIsHandVectorizedNotScalar) {
  std::ostringstream out;
  print_verdict(out, profiled_verdict(), false);
  std::string text = out.str();
  EXPECT_NE(text.find("line 12: hand-vectorized with intrinsics (the compiler's own vectorizer "
                      "did not vectorize it: couldn't vectorize loop)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("line 20: not auto-vectorized by the compiler: control flow in loop"),
            std::string::npos);
  EXPECT_EQ(text.find("scalar loop"), std::string::npos);
  EXPECT_NE(text.find("43 % one-lane (ss/sd: scalar code, loop remainders, the last steps of "
                      "horizontal sums)"),
            std::string::npos);
  EXPECT_EQ(text.find("43 % scalar"), std::string::npos);
}

}  // namespace
}  // namespace accelopt::report
