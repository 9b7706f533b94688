#include "llm/ledger.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/files.h"
#include "llm/protocol.h"

namespace accelopt::llm {
namespace {

constexpr std::string_view kFormat = "accelopt-llm-ledger";
constexpr int kVersion = 1;

void write_all(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw InternalError(errno_message("writing the ledger " + path.string()));
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
}

}  // namespace

void CallTotals::add(const CallRecord& record) {
  ++calls;
  if (record.status != CallStatus::kOk) ++failed_calls;
  prompt_tokens += record.prompt_tokens;
  completion_tokens += record.completion_tokens;
  reasoning_tokens += record.reasoning_tokens;
  cached_tokens += record.cached_tokens;
  cost_usd += record.cost_usd;
  latency_s += record.latency_s;
}

CallTotals total(const std::vector<CallRecord>& records) {
  CallTotals totals;
  for (const auto& record : records) totals.add(record);
  return totals;
}

std::map<std::string, CallTotals> totals_by_role(const std::vector<CallRecord>& records) {
  std::map<std::string, CallTotals> totals;
  for (const auto& record : records) totals[record.role].add(record);
  return totals;
}

std::map<std::string, CallTotals> totals_by_model(const std::vector<CallRecord>& records) {
  std::map<std::string, CallTotals> totals;
  for (const auto& record : records) totals[record.model].add(record);
  return totals;
}

std::string format_usd(double usd) {
  if (usd == 0 || std::abs(usd) >= 1) return fmt::format("${:.2f}", usd);
  // Two significant digits: 0.00043 has its first digit at the 4th decimal, so 5 decimals.
  int first_digit = -static_cast<int>(std::floor(std::log10(std::abs(usd))));
  int decimals = std::clamp(first_digit + 1, 2, 9);
  std::string text = fmt::format("{:.{}f}", usd, decimals);
  size_t point = text.find('.');
  while (text.size() > point + 3 && text.back() == '0') text.pop_back();
  return "$" + text;
}

void MemoryLedger::record(const CallRecord& record) {
  std::lock_guard lock(mutex_);
  records_.push_back(record);
}

std::vector<CallRecord> MemoryLedger::records(const std::string& run_id) const {
  std::lock_guard lock(mutex_);
  std::vector<CallRecord> selected;
  for (const auto& record : records_) {
    if (run_id.empty() || record.run_id == run_id) selected.push_back(record);
  }
  return selected;
}

JsonlLedger::JsonlLedger(std::filesystem::path path) : path_(std::move(path)) {
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UserError(errno_message("opening the ledger " + path_.string()));
  std::string content = read_file(path_);
  size_t complete = content.rfind('\n');
  complete = complete == std::string::npos ? 0 : complete + 1;
  if (complete < content.size()) {  // a torn last line from a killed writer
    if (::ftruncate(fd_, static_cast<off_t>(complete)) != 0) {
      throw InternalError(errno_message("cutting the torn end of the ledger " + path_.string()));
    }
  }
  if (complete == 0) {
    Json header{{"format", kFormat}, {"version", kVersion}};
    write_all(fd_, header.dump() + "\n", path_);
    ::fsync(fd_);
  } else {
    Json header = Json::parse(content.substr(0, content.find('\n')), nullptr, false);
    if (header.is_discarded() || !header.is_object() || header.value("format", "") != kFormat) {
      throw UserError(fmt::format("{} is not an accelopt LLM ledger (first line: {})",
                                  path_.string(),
                                  content.substr(0, std::min<size_t>(80, content.find('\n')))));
    }
    int version = header.value("version", 0);
    if (version != kVersion) {
      throw UserError(fmt::format("ledger {} has version {}; this accelopt reads version {}",
                                  path_.string(), version, kVersion));
    }
  }
}

JsonlLedger::~JsonlLedger() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonlLedger::record(const CallRecord& record) {
  std::string line = dump_json(record.to_json()) + "\n";
  std::lock_guard lock(mutex_);
  write_all(fd_, line, path_);
  if (::fsync(fd_) != 0) throw InternalError(errno_message("syncing the ledger " + path_.string()));
}

std::vector<CallRecord> JsonlLedger::records(const std::string& run_id) const {
  std::string content;
  {
    std::lock_guard lock(mutex_);
    content = read_file(path_);
  }
  std::vector<CallRecord> selected;
  size_t line_number = 0;
  size_t begin = 0;
  while (begin < content.size()) {
    size_t end = content.find('\n', begin);
    bool last = end == std::string::npos;
    std::string_view line(content.data() + begin, (last ? content.size() : end) - begin);
    begin = last ? content.size() : end + 1;
    ++line_number;
    if (line_number == 1 || line.empty()) continue;
    Json json = Json::parse(line, nullptr, false);
    CallRecord record;
    bool ok = !json.is_discarded();
    if (ok) {
      try {
        record = CallRecord::from_json(json);
      } catch (const Json::exception&) {
        ok = false;
      }
    }
    if (!ok) {
      if (last) break;  // torn by a writer that was killed: normal
      throw InternalError(
          fmt::format("ledger {} line {} is corrupt: {:.80}", path_.string(), line_number, line));
    }
    if (run_id.empty() || record.run_id == run_id) selected.push_back(std::move(record));
  }
  return selected;
}

}  // namespace accelopt::llm
