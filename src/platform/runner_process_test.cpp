// When a deadline that passed is the machine's doing and not the process's.
#include "platform/runner_process.h"

#include <gtest/gtest.h>

namespace accelopt::platform {
namespace {

// A reference that slept or blocked past its deadline waited for no core: its own doing, even when
// it waited a little more than it ran (0.02 s against 0.01 s of a 1.5 s deadline).
TEST(BusyMoreThanRunning, AProcessThatSleptIsNotBusy) {
  EXPECT_FALSE(busy_more_than_running(0.02, 0.01, 1.5));
  EXPECT_FALSE(busy_more_than_running(0.0, 0.0, 1.5));
}

// Most of the deadline spent runnable but off every core: the machine was busy.
TEST(BusyMoreThanRunning, MostOfTheDeadlineWaitingForACoreIsBusy) {
  EXPECT_TRUE(busy_more_than_running(1.0, 0.4, 1.5));
}

// A spinning process runs more than it waits; unknown figures (negative) say nothing.
TEST(BusyMoreThanRunning, ASpinnerOrUnknownFiguresAreNotBusy) {
  EXPECT_FALSE(busy_more_than_running(0.8, 1.2, 1.5));
  EXPECT_FALSE(busy_more_than_running(-1, 0.1, 1.5));
  EXPECT_FALSE(busy_more_than_running(1.0, -1, 1.5));
}

}  // namespace
}  // namespace accelopt::platform
