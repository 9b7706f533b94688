// The search's concurrency: a fixed pool of threads for the iteration's jobs (jobs run in
// submission order as threads free up), a gate that lets at most N holders in at once and tells
// each which of the N places it holds (the evaluations' slots, each with cores of its own), and
// run_together for the implementations of one plan, evaluated at once. (thread-safe)
#pragma once

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace accelopt::search {

class Gate {
 public:
  explicit Gate(int places) : places_(std::max(1, places)) {
    for (int place = places_ - 1; place >= 0; --place) free_.push_back(place);
  }
  int places() const { return places_; }

  // Holds one place (the lowest free) until it goes.
  class Pass {
   public:
    explicit Pass(Gate& gate) : gate_(gate) {
      std::unique_lock lock(gate_.mutex_);
      gate_.wake_.wait(lock, [this] { return !gate_.free_.empty(); });
      place_ = gate_.free_.back();
      gate_.free_.pop_back();
    }
    ~Pass() {
      {
        std::lock_guard lock(gate_.mutex_);
        gate_.free_.push_back(place_);
        std::sort(gate_.free_.rbegin(), gate_.free_.rend());
      }
      gate_.wake_.notify_one();
    }
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;
    int place() const { return place_; }

   private:
    Gate& gate_;
    int place_ = 0;
  };

 private:
  const int places_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<int> free_;  // highest first: the lowest is taken first
};

// Runs body(0), …, body(count - 1) at once, each on a thread of its own (the caller's for the
// first), and returns when all have ended; then rethrows the exception of the lowest index, if any.
template <typename Body>
void run_together(size_t count, Body body) {
  std::vector<std::future<void>> others;
  for (size_t index = 1; index < count; ++index) {
    others.push_back(std::async(std::launch::async, [&body, index] { body(index); }));
  }
  std::exception_ptr failure;
  if (count > 0) {
    try {
      body(size_t{0});
    } catch (...) {
      failure = std::current_exception();
    }
  }
  for (auto& other : others) {
    try {
      other.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

class ThreadPool {
 public:
  explicit ThreadPool(int threads) {
    for (int index = 0; index < std::max(1, threads); ++index) {
      workers_.emplace_back([this] { work(); });
    }
  }
  ~ThreadPool() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The future carries the job's exception, if it threw.
  std::future<void> submit(std::function<void()> job) {
    std::packaged_task<void()> task(std::move(job));
    std::future<void> done = task.get_future();
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(task));
    }
    wake_.notify_one();
    return done;
  }

 private:
  void work() {
    for (;;) {
      std::packaged_task<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return closing_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> jobs_;
  bool closing_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace accelopt::search
