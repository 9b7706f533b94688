"""A stand-in for neuronxcc.nki, for testing the NKI evaluator's protocol side where there is no
Trainium: jit and baremetal run the kernel as plain numpy code, and benchmark times it with the
host clock, reporting latency the way the SDK does (microseconds, by percentile)."""
import time


def jit(kernel):
    return kernel


def baremetal(kernel):
    return kernel


class _Latency:
    def __init__(self, microseconds):
        self.microseconds = microseconds

    def get_latency_percentile(self, percentile):
        return self.microseconds


class _Result:
    def __init__(self, microseconds):
        self.nc_latency = _Latency(microseconds)


def benchmark(warmup, iters):
    def wrap(kernel):
        class Benchmark:
            def __call__(self, *inputs):
                for _ in range(warmup):
                    kernel(*inputs)
                samples = []
                for _ in range(iters):
                    start = time.perf_counter()
                    kernel(*inputs)
                    samples.append(time.perf_counter() - start)
                samples.sort()
                self.benchmark_result = _Result(samples[len(samples) // 2] * 1e6)

        return Benchmark()

    return wrap
