// The spending caps of a run: USD, tokens (prompt + completion) and calls.
//
// Before a call, its cost is estimated (prompt characters / 4, plus max_tokens of output when set)
// and reserved; a call whose reservation would pass a cap is refused with BudgetExceeded naming the
// cap. After the call, the reservation is replaced by what it really cost. A call that ends over a
// cap keeps its answer (it is paid for); the next call is refused. Reserving makes this hold when
// many agents call at once.
#pragma once

#include <cstdint>
#include <mutex>

#include "llm/config.h"

namespace accelopt::llm {

struct Spend {
  double usd = 0;
  int64_t tokens = 0;
  int64_t calls = 0;
};

class Budget {
 public:
  explicit Budget(BudgetConfig caps) : caps_(caps) {}

  // Reserves `estimate` (calls = 1) or throws BudgetExceeded. (thread-safe)
  void reserve(const Spend& estimate);
  // Replaces a reservation by the actual spend. (thread-safe)
  void settle(const Spend& estimate, const Spend& actual);
  Spend spent() const;  // (thread-safe)
  const BudgetConfig& caps() const { return caps_; }

 private:
  BudgetConfig caps_;
  mutable std::mutex mutex_;
  Spend spent_;
  Spend reserved_;
};

// The spend to reserve for `request` on `model` (options already merged).
Spend estimate_spend(const ModelConfig& model, const ChatRequest& request);

}  // namespace accelopt::llm
