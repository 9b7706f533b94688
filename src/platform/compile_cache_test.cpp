// The compile cache every platform's compiler shares: what it keeps, and how entries appear.
#include "platform/compile_cache.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace accelopt::platform {
namespace {

TEST(CompileCache, TheKeyCoversToolchainFlagsHeaderAndSource) {
  std::string key = CompileCache::key("g++ 12", {"-O3"}, "header", "source");
  EXPECT_EQ(key, CompileCache::key("g++ 12", {"-O3"}, "header", "source"));
  EXPECT_NE(key, CompileCache::key("g++ 13", {"-O3"}, "header", "source"));
  EXPECT_NE(key, CompileCache::key("g++ 12", {"-O2"}, "header", "source"));
  EXPECT_NE(key, CompileCache::key("g++ 12", {"-O3"}, "header2", "source"));
  EXPECT_NE(key, CompileCache::key("g++ 12", {"-O3"}, "header", "source2"));
}

TEST(CompileCache, AnEntryIsKeptWholeAndTheFirstKeptWins) {
  TempDir dir;
  CompileCache cache(dir.path());
  std::string key = CompileCache::key("tool", {}, "h", "s");
  EXPECT_FALSE(cache.load(key));
  std::filesystem::path first = cache.staging(key);
  write_file_atomic(first / "diagnostics.txt", "first");
  std::filesystem::path second = cache.staging(key + "x");  // another thread's folder
  EXPECT_TRUE(cache.keep(key, first, {{"ok", true}}));
  ASSERT_TRUE(cache.load(key));
  EXPECT_EQ(cache.load(key)->value("ok", false), true);

  std::filesystem::create_directories(second);
  write_file_atomic(second / "diagnostics.txt", "second");
  EXPECT_FALSE(cache.keep(key, second, {{"ok", false}}));
  EXPECT_EQ(read_file(cache.entry(key) / "diagnostics.txt"), "first");
  EXPECT_FALSE(std::filesystem::exists(second));
}

TEST(CompileCache, AnEntryWithoutItsRecordIsMadeAgain) {
  TempDir dir;
  CompileCache cache(dir.path());
  std::string key = CompileCache::key("tool", {}, "h", "s");
  std::filesystem::create_directories(cache.entry(key));  // a killed process's half entry
  write_file_atomic(cache.entry(key) / "kernel.so", "partial");
  EXPECT_FALSE(cache.load(key));
  std::filesystem::path staging = cache.staging(key);
  write_file_atomic(staging / "kernel.so", "whole");
  EXPECT_TRUE(cache.keep(key, staging, {{"ok", true}}));
  EXPECT_EQ(read_file(cache.entry(key) / "kernel.so"), "whole");
}

TEST(CompileCache, DeadlinesAndSignalsAreNotKeptErrorsAre) {
  ExitStatus error;
  error.exited = true;
  error.exit_code = 1;
  EXPECT_TRUE(keepable(error));
  ExitStatus late = error;
  late.timed_out = true;
  EXPECT_FALSE(keepable(late));
  ExitStatus killed;
  killed.signal = 9;
  EXPECT_FALSE(keepable(killed));
}

}  // namespace
}  // namespace accelopt::platform
