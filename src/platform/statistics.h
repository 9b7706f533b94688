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
MedianInterval median_interval(std::vector<double> values);

}  // namespace accelopt::platform
