// The record of every model call: who asked (run, role), which model, what it cost, how it ended.
// The record and the CallLedger interface are in common/call_record.h; here are the totals and
// two ledgers (in memory, and a JSON-lines file). The kernel database is a third
// (store::StoreLedger).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "llm/client.h"

namespace accelopt::llm {

using accelopt::CallLedger;
using accelopt::CallRecord;

struct CallTotals {
  int64_t calls = 0;
  int64_t failed_calls = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t reasoning_tokens = 0;
  int64_t cached_tokens = 0;
  double cost_usd = 0;
  double latency_s = 0;

  void add(const CallRecord& record);
};

CallTotals total(const std::vector<CallRecord>& records);
std::map<std::string, CallTotals> totals_by_role(const std::vector<CallRecord>& records);
std::map<std::string, CallTotals> totals_by_model(const std::vector<CallRecord>& records);

// Dollars for a person: cents from $1 up; below, two significant digits, so that a small spend
// shows ("$0.0004", "$0.012"), never "$0.00" unless nothing was spent.
std::string format_usd(double usd);

class MemoryLedger : public CallLedger {
 public:
  void record(const CallRecord& record) override;
  std::vector<CallRecord> records(const std::string& run_id) const override;

 private:
  mutable std::mutex mutex_;
  std::vector<CallRecord> records_;
};

// File format: JSON lines. The first line is {"format":"accelopt-llm-ledger","version":1}; each
// further line is one CallRecord. Lines are appended with O_APPEND and fsync'd one by one, because
// the file is written while a run goes on and a run may be killed at any moment. Only the last line
// can then be torn: opening the file cuts it off, reading skips it; a bad line elsewhere is
// corruption and is reported with its line number.
class JsonlLedger : public CallLedger {
 public:
  explicit JsonlLedger(std::filesystem::path path);
  ~JsonlLedger() override;
  JsonlLedger(const JsonlLedger&) = delete;
  JsonlLedger& operator=(const JsonlLedger&) = delete;

  void record(const CallRecord& record) override;
  std::vector<CallRecord> records(const std::string& run_id) const override;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  mutable std::mutex mutex_;
};

}  // namespace accelopt::llm
