// The record of every model call: who asked (run, role), which model, what it cost, how it ended.
// The kernel database will implement CallLedger too; until then the JSON-lines file serves.
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

struct CallRecord {
  std::string run_id;
  std::string role;
  std::string model;  // the [models] name
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t reasoning_tokens = 0;
  int64_t cached_tokens = 0;
  bool usage_estimated = false;
  double cost_usd = 0;
  double latency_s = 0;
  CallStatus status = CallStatus::kOk;
  int retries = 0;
  std::string request_hash;
  std::string timestamp;  // UTC, ISO 8601
  std::string error;      // empty when status is kOk
  bool replayed = false;  // answered from a cassette
  bool reused = false;    // answered by an identical earlier call of the run: not paid again

  Json to_json() const;
  static CallRecord from_json(const Json& json);
};

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

class CallLedger {
 public:
  virtual ~CallLedger() = default;
  virtual void record(const CallRecord& record) = 0;  // durable when it returns (thread-safe)
  // The records of one run, in the order they were made; an empty run_id selects all. (thread-safe)
  virtual std::vector<CallRecord> records(const std::string& run_id) const = 0;
};

CallTotals total(const std::vector<CallRecord>& records);
std::map<std::string, CallTotals> totals_by_role(const std::vector<CallRecord>& records);
std::map<std::string, CallTotals> totals_by_model(const std::vector<CallRecord>& records);

// Dollars for a person: cents from $1 up; below, two significant digits, so that a small spend
// shows ("$0.0004", "$0.012"), never "$0.00" unless nothing was spent.
std::string format_usd(double usd);

// Now, as "2025-01-31T12:00:00.123Z".
std::string utc_timestamp();

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
