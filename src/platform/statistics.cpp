#include "platform/statistics.h"

#include <algorithm>
#include <cmath>

namespace accelopt::platform {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

MedianInterval median_interval(std::vector<double> values) {
  MedianInterval result;
  if (values.empty()) return result;
  std::sort(values.begin(), values.end());
  double n = static_cast<double>(values.size());
  result.median = median(values);
  // Ranks from the normal approximation to Binomial(n, 1/2): n/2 ∓ 1.96·√n/2.
  double half_width = 1.96 * std::sqrt(n) / 2;
  auto low_rank = static_cast<long>(std::floor(n / 2 - half_width));
  auto high_rank = static_cast<long>(std::ceil(n / 2 + half_width));
  low_rank = std::clamp(low_rank, 1L, static_cast<long>(n)) - 1;
  high_rank = std::clamp(high_rank, 1L, static_cast<long>(n)) - 1;
  result.low = values[static_cast<size_t>(low_rank)];
  result.high = values[static_cast<size_t>(high_rank)];
  return result;
}

}  // namespace accelopt::platform
