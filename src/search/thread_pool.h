// The search's concurrency: a fixed pool of threads for the iteration's jobs (jobs run in
// submission order as threads free up), a gate that lets at most N holders in at once and tells
// each which of the N places it holds (the evaluations' slots, each with cores of its own; N may
// change while it is used: the remote workers connected now), and
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
  explicit Gate(int places) : places_(std::max(1, places)), held_(static_cast<size_t>(places_)) {}
  int places() const {
    std::lock_guard lock(mutex_);
    return places_;
  }
  // From now on at most `places` (at least one) holders: more let waiters in at once; fewer let
  // the holders of the places above finish, and nobody takes those places meanwhile.
  void resize(int places) {
    {
      std::lock_guard lock(mutex_);
      places_ = std::max(1, places);
      if (held_.size() < static_cast<size_t>(places_)) held_.resize(static_cast<size_t>(places_));
    }
    wake_.notify_all();
  }

  // Holds one place (the lowest free) until it goes.
  class Pass {
   public:
    explicit Pass(Gate& gate) : gate_(gate) {
      std::unique_lock lock(gate_.mutex_);
      gate_.wake_.wait(lock, [this] { return (place_ = gate_.lowest_free()) >= 0; });
      gate_.held_[static_cast<size_t>(place_)] = true;
    }
    ~Pass() {
      {
        std::lock_guard lock(gate_.mutex_);
        gate_.held_[static_cast<size_t>(place_)] = false;
      }
      gate_.wake_.notify_all();  // the waiter whose turn it is may be any of them
    }
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;
    int place() const { return place_; }

   private:
    Gate& gate_;
    int place_ = -1;
  };

 private:
  // The lowest place below places_ nobody holds; -1: none. (caller must hold mutex_)
  int lowest_free() const {
    for (int place = 0; place < places_; ++place) {
      if (!held_[static_cast<size_t>(place)]) return place;
    }
    return -1;
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  int places_;
  std::vector<bool> held_;  // by place; longer than places_ after a shrink
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
