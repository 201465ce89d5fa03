#include "engine/budget.hpp"

#include <algorithm>
#include <stdexcept>

namespace cuzk::engine {

MemoryBudget::MemoryBudget(uint64_t total_bytes) : total_(total_bytes) {}

uint64_t MemoryBudget::used() const {
  std::lock_guard lock(mutex_);
  return used_;
}

uint64_t MemoryBudget::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

size_t MemoryBudget::waiters() const {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

bool MemoryBudget::reserve(uint64_t bytes, const std::function<bool()>& give_up,
                           const std::function<uint64_t()>& on_pressure, uint64_t keep_free) {
  std::unique_lock lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  waiting_.push_back(ticket);
  uint64_t pressured_at = ~uint64_t(0);
  uint64_t taken_over = 0;  // of bytes, charged already (on_pressure's)
  for (;;) {
    if (give_up && give_up()) {
      waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
      cv_.notify_all();  // the next waiter may be at the head now
      return false;
    }
    if (waiting_.front() == ticket) {
      if (used_ + (bytes - taken_over) + keep_free <= total_) break;
      if (on_pressure && pressured_at != version_) {
        pressured_at = version_;
        lock.unlock();
        try {
          taken_over += std::min(on_pressure(), bytes - taken_over);
        } catch (...) {  // withdrawn: a ticket left at the head would hold up every later waiter
          lock.lock();
          waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
          cv_.notify_all();
          throw;
        }
        lock.lock();
        continue;
      }
    }
    cv_.wait(lock);
  }
  waiting_.pop_front();
  used_ += bytes - taken_over;
  peak_ = std::max(peak_, used_);
  cv_.notify_all();
  changed(lock);
  return true;
}

bool MemoryBudget::try_reserve(uint64_t bytes, uint64_t keep_free) {
  std::unique_lock lock(mutex_);
  if (!waiting_.empty() || used_ + bytes + keep_free > total_) return false;
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  changed(lock);
  return true;
}

bool MemoryBudget::try_charge(uint64_t bytes, uint64_t keep_free) {
  std::unique_lock lock(mutex_);
  if (used_ + bytes + keep_free > total_) return false;
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  changed(lock);
  return true;
}

void MemoryBudget::force_reserve(uint64_t bytes) {
  std::unique_lock lock(mutex_);
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  changed(lock);
}

void MemoryBudget::release(uint64_t bytes) {
  std::unique_lock lock(mutex_);
  if (bytes > used_) throw std::logic_error("memory budget: released more bytes than were reserved");
  used_ -= bytes;
  cv_.notify_all();
  changed(lock);
}

void MemoryBudget::wake_all() {
  std::lock_guard lock(mutex_);
  cv_.notify_all();
}

void MemoryBudget::recheck() {
  std::lock_guard lock(mutex_);
  version_++;
  cv_.notify_all();
}

void MemoryBudget::set_observer(std::function<void(uint64_t, uint64_t)> observer) {
  std::lock_guard lock(mutex_);
  observer_ = std::move(observer);
}

// Under the lock, so that the observer sees the changes in order (it must not call back).
void MemoryBudget::changed(std::unique_lock<std::mutex>&) {
  version_++;
  if (observer_) observer_(total_, used_);
}

}  // namespace cuzk::engine
