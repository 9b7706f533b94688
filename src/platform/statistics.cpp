#include "platform/statistics.h"

#include <algorithm>
#include <cmath>

namespace accelopt::platform {
namespace {

// The interval between the ranks n/2 ∓ 1.96·√(n·inflation)/2 of the sorted values (the normal
// approximation to Binomial(n, 1/2), its variance scaled by `inflation`).
MedianInterval interval_from_ranks(std::vector<double> values, double inflation) {
  MedianInterval result;
  if (values.empty()) return result;
  std::sort(values.begin(), values.end());
  double n = static_cast<double>(values.size());
  result.median = median(values);
  double half_width = 1.96 * std::sqrt(n * inflation) / 2;
  auto low_rank = static_cast<long>(std::floor(n / 2 - half_width));
  auto high_rank = static_cast<long>(std::ceil(n / 2 + half_width));
  low_rank = std::clamp(low_rank, 1L, static_cast<long>(n)) - 1;
  high_rank = std::clamp(high_rank, 1L, static_cast<long>(n)) - 1;
  result.low = values[static_cast<size_t>(low_rank)];
  result.high = values[static_cast<size_t>(high_rank)];
  return result;
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

MedianInterval median_interval(std::vector<double> values) {
  return interval_from_ranks(std::move(values), 1);
}

double variance_inflation(const std::vector<double>& series) {
  size_t n = series.size();
  if (n < 4) return 1;
  double center = median(series);
  // +1 above the median, -1 below, 0 on it: the count below the median is their sum, shifted.
  std::vector<double> signs(n);
  for (size_t i = 0; i < n; ++i) {
    signs[i] = series[i] > center ? 1.0 : series[i] < center ? -1.0 : 0.0;
  }
  double mean = 0;
  for (double sign : signs) mean += sign;
  mean /= static_cast<double>(n);
  auto autocovariance = [&](size_t lag) {
    double sum = 0;
    for (size_t i = lag; i < n; ++i) sum += (signs[i] - mean) * (signs[i - lag] - mean);
    return sum / static_cast<double>(n);
  };
  double variance = autocovariance(0);
  if (variance <= 0) return 1;
  // Autocorrelations summed two lags at a time while the sums stay positive (Geyer's initial
  // positive sequence): it ignores the noise of long lags, and the alternating order of the pairs,
  // which makes lag 1 alone negative, does not cut it short. Up to a quarter of the series.
  double inflation = 1;
  for (size_t lag = 1; lag + 1 <= n / 4; lag += 2) {
    double correlations = (autocovariance(lag) + autocovariance(lag + 1)) / variance;
    if (correlations <= 0) break;
    inflation += 2 * correlations;
  }
  return std::min(inflation, static_cast<double>(n));
}

MedianInterval median_interval_series(const std::vector<double>& series) {
  return interval_from_ranks(series, variance_inflation(series));
}

}  // namespace accelopt::platform
