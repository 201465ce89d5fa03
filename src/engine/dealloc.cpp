#include "engine/dealloc.hpp"

#include <spdlog/spdlog.h>

#include "engine/stages.hpp"
#include "engine/thread_name.hpp"

namespace cuzk::engine {

Deallocator::Deallocator()
    : thread_([this] {
        name_this_thread(worker_name(Worker::kDealloc));
        run();
      }) {}

Deallocator::~Deallocator() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Deallocator::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void Deallocator::drain() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return tasks_.empty() && !busy_; });
}

size_t Deallocator::pending() const {
  std::lock_guard lock(mutex_);
  return tasks_.size() + (busy_ ? 1 : 0);
}

void Deallocator::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stop_ and nothing left
    auto task = std::move(tasks_.front());
    tasks_.pop_front();
    busy_ = true;
    lock.unlock();
    try {
      task();
    } catch (const std::exception& e) {
      spdlog::error("deallocation task failed: {}", e.what());
    }
    task = nullptr;  // whatever the task captured is freed here, still off the lock
    lock.lock();
    busy_ = false;
    if (tasks_.empty()) idle_.notify_all();
  }
}

}  // namespace cuzk::engine
