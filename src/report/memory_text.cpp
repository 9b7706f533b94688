#include "report/memory_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/run_view.h"

namespace accelopt::report {

void print_memory_entries(std::ostream& out, const std::vector<store::MemoryEntryRecord>& entries) {
  if (entries.empty()) out << "the memory is empty\n";
  for (const store::MemoryEntryRecord& entry : entries) {
    // A lesson found again (store.h: evidence) is one entry; say how often it was found.
    std::string again;
    if (!entry.evidence.empty()) {
      size_t against = 0;
      for (const Json& found : entry.evidence) {
        if (found.value("positive", entry.positive) != entry.positive) ++against;
      }
      again = fmt::format("  (found {} times", 1 + entry.evidence.size());
      if (against > 0)
        again += fmt::format(", {} of them {}", against, entry.positive ? "slower" : "faster");
      again += ")";
    }
    fmt::print(out, "#{:<5} {:<14} run {:<3} {} {:.2f}x  {}{}\n", entry.id, entry.task,
               entry.run_id, entry.positive ? "+" : "-", entry.speedup,
               one_line(entry.insight.value("title", ""), 80), again);
  }
}

}  // namespace accelopt::report
