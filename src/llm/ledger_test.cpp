// The call ledger: totals, and a file that survives a writer killed at any byte.
#include "llm/ledger.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/files.h"
#include "common/timestamp.h"

namespace accelopt::llm {
namespace {

CallRecord call(std::string run, std::string role, std::string model, double cost,
                CallStatus status = CallStatus::kOk) {
  CallRecord record;
  record.run_id = std::move(run);
  record.role = std::move(role);
  record.model = std::move(model);
  record.prompt_tokens = 100;
  record.completion_tokens = 20;
  record.reasoning_tokens = 5;
  record.cached_tokens = 10;
  record.cost_usd = cost;
  record.latency_s = 1.5;
  record.status = status;
  record.request_hash = "abc";
  record.timestamp = utc_timestamp();
  if (status != CallStatus::kOk) record.error = "it broke";
  return record;
}

TEST(Ledger, TotalsByRunRoleAndModel) {
  MemoryLedger ledger;
  ledger.record(call("r1", "planner", "claude", 0.5));
  ledger.record(call("r1", "executor", "local", 0.1));
  ledger.record(call("r1", "executor", "local", 0, CallStatus::kTimeout));
  ledger.record(call("r2", "planner", "claude", 9));
  std::vector<CallRecord> records = ledger.records("r1");
  ASSERT_EQ(records.size(), 3u);
  CallTotals all = total(records);
  EXPECT_EQ(all.calls, 3);
  EXPECT_EQ(all.failed_calls, 1);
  EXPECT_EQ(all.prompt_tokens, 300);
  EXPECT_DOUBLE_EQ(all.cost_usd, 0.6);
  auto by_role = totals_by_role(records);
  EXPECT_EQ(by_role["executor"].calls, 2);
  EXPECT_DOUBLE_EQ(by_role["planner"].cost_usd, 0.5);
  auto by_model = totals_by_model(records);
  EXPECT_EQ(by_model.size(), 2u);
  EXPECT_EQ(ledger.records("").size(), 4u);
}

TEST(Ledger, JsonLinesFileKeepsRecordsAcrossOpens) {
  TempDir dir;
  auto path = dir.path() / "calls.jsonl";
  {
    JsonlLedger ledger(path);
    ledger.record(call("r1", "planner", "claude", 0.5));
    ledger.record(call("r1", "fixer", "local", 0, CallStatus::kBudgetExceeded));
  }
  JsonlLedger reopened(path);
  reopened.record(call("r2", "planner", "claude", 1));
  std::vector<CallRecord> records = reopened.records("r1");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].status, CallStatus::kBudgetExceeded);
  EXPECT_EQ(records[1].error, "it broke");
  EXPECT_EQ(records[0].reasoning_tokens, 5);
  EXPECT_EQ(reopened.records("").size(), 3u);
}

// Cuts the file at every length, as a killed writer could leave it: what is whole survives, and
// the ledger can be written again.
TEST(Ledger, TornFileAtEveryLengthRecovers) {
  TempDir dir;
  auto path = dir.path() / "calls.jsonl";
  {
    JsonlLedger ledger(path);
    ledger.record(call("r", "planner", "a", 1));
    ledger.record(call("r", "planner", "b", 2));
  }
  std::string whole = read_file(path);
  size_t header_end = whole.find('\n') + 1;
  size_t first_end = whole.find('\n', header_end) + 1;
  for (size_t length = header_end; length <= whole.size(); ++length) {
    auto cut = dir.path() / "cut.jsonl";
    write_file_atomic(cut, whole.substr(0, length));
    size_t expected = length == whole.size() ? 2 : (length >= first_end ? 1 : 0);
    {
      // Reading a torn file without reopening for writing.
      JsonlLedger reader(cut);
      EXPECT_EQ(reader.records("r").size(), expected) << "length " << length;
      reader.record(call("r", "planner", "c", 3));
      EXPECT_EQ(reader.records("r").size(), expected + 1) << "length " << length;
    }
    std::filesystem::remove(cut);
  }
}

TEST(Ledger, CorruptionBeforeTheEndAndForeignFilesAreReported) {
  TempDir dir;
  auto path = dir.path() / "calls.jsonl";
  {
    JsonlLedger ledger(path);
    ledger.record(call("r", "planner", "a", 1));
  }
  std::string content = read_file(path);
  write_file_atomic(path, content + "garbage\n" + content.substr(content.find('\n') + 1));
  JsonlLedger ledger(path);
  EXPECT_THROW(ledger.records("r"), InternalError);

  auto foreign = dir.path() / "other.jsonl";
  write_file_atomic(foreign, "{\"format\":\"something-else\"}\n");
  EXPECT_THROW(JsonlLedger{foreign}, UserError);
  write_file_atomic(foreign, "{\"format\":\"accelopt-llm-ledger\",\"version\":99}\n");
  EXPECT_THROW(JsonlLedger{foreign}, UserError);
}

// Small spends stay visible: a run of cheap calls is not "$0.00".
TEST(Ledger, DollarsKeepSmallAmountsVisible) {
  EXPECT_EQ(format_usd(0), "$0.00");
  EXPECT_EQ(format_usd(0.0004), "$0.0004");
  EXPECT_EQ(format_usd(0.00043), "$0.00043");
  EXPECT_EQ(format_usd(0.0123), "$0.012");
  EXPECT_EQ(format_usd(0.5), "$0.50");
  EXPECT_EQ(format_usd(0.007), "$0.007");
  EXPECT_EQ(format_usd(12.345), "$12.35");
  EXPECT_EQ(format_usd(1), "$1.00");
}

}  // namespace
}  // namespace accelopt::llm
