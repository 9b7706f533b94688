// Distribution-free summaries of timing samples: the median and a confidence interval for it from
// order statistics (no assumption that the noise is normal: these machines' noise is not).
#pragma once

#include <vector>

namespace accelopt::platform {

struct MedianInterval {
  double median = 0;
  double low = 0, high = 0;  // 95 % confidence interval of the median
};

double median(std::vector<double> values);
// For independent samples.
MedianInterval median_interval(std::vector<double> values);

// For a series taken in time order whose neighbours are alike: a shared machine has slow phases
// that span several samples, so n samples hold fewer than n independent ones. The ranks of the
// interval widen by how much more the count of samples below the median varies than it would for
// independent samples (its variance inflation, estimated from the series' own autocorrelation and
// never below 1). Needs no blocks to be chosen and costs one pass.
MedianInterval median_interval_series(const std::vector<double>& series);

// How many times the variance of the count below the median exceeds that of independent samples.
double variance_inflation(const std::vector<double>& series);

}  // namespace accelopt::platform
