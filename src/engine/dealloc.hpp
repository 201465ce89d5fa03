// The deallocation thread: large buffers are handed here to be freed, so that unmapping
// gigabytes never sits on a synthesis or GPU worker's path.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace cuzk::engine {

class Deallocator {
 public:
  Deallocator();
  // Runs what is still queued, then joins.
  ~Deallocator();
  // Queues a task that frees something (and updates the accounting afterwards).
  void post(std::function<void()> task);
  // Waits until everything posted so far has run.
  void drain();
  size_t pending() const;

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable cv_, idle_;
  std::deque<std::function<void()>> tasks_;
  bool busy_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk::engine
