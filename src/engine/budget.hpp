// The host-memory budget: partitions reserve their estimated bytes before synthesis and give
// them back as their buffers are freed. Waiters are served first come, first served, so a
// large partition at the head of the queue is not starved by smaller ones behind it.
// Under the budget policy used() <= total() at every change, except for what force_reserve
// charges: urgent partitions (UrgentAdmission::kBeside, by design: used() <= total() plus the
// bytes urgent partitions hold, and the sets they load), the jobs' parsed inputs (in memory
// before the job is accepted), a set or an assignment larger than its estimate, and a compiled
// circuit read or recorded while the budget is full (engine/compiled_circuits.hpp).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace cuzk::engine {

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t total_bytes);

  uint64_t total() const { return total_; }
  uint64_t used() const;
  uint64_t peak() const;
  // Reservations waiting now.
  size_t waiters() const;

  // Waits until bytes fit (and every earlier waiter has been served) or until give_up()
  // returns true; give_up is checked whenever the budget changes and after wake_all().
  // Returns whether the bytes were reserved. bytes > total() never fits: callers reject
  // such work up front.
  // on_pressure (optional) runs, outside the lock, when this waiter is at the head of the line
  // and does not fit, once per change of the budget: it may free memory (evict idle sets), and
  // returns the bytes of memory already charged that the caller takes over for this reservation
  // (a kept buffer it will use): they count towards `bytes` (at most), and stay charged, the
  // caller's, when the reservation is given up. What it throws withdraws the reservation and
  // propagates (what it took over before stays charged, the caller's).
  // keep_free: the bytes fit only when keep_free more would still fit (room left for urgent work).
  bool reserve(uint64_t bytes, const std::function<bool()>& give_up, const std::function<uint64_t()>& on_pressure = {},
               uint64_t keep_free = 0);
  // Reserves without waiting when the bytes (and keep_free more) fit now and nobody waits.
  bool try_reserve(uint64_t bytes, uint64_t keep_free = 0);
  // Charges bytes already in memory (what a backend keeps between partitions, a preparation)
  // when they (and keep_free more) fit now, whether or not others wait: nothing new is allocated,
  // the caller frees them when they do not fit.
  bool try_charge(uint64_t bytes, uint64_t keep_free = 0);
  // Reserves even beyond the total (urgent work, inputs, the comparison policies, estimates that
  // were short: see above); the excess shows in used() and makes waiters wait longer.
  void force_reserve(uint64_t bytes);
  void release(uint64_t bytes);
  // Wakes every waiter to re-check give_up (after a cancellation or at shutdown).
  void wake_all();
  // As a change of the budget for its waiters: the head runs on_pressure again (what it checks
  // there changed outside the budget).
  void recheck();
  // Called after every change with (total, used), under the budget's lock: it must not call
  // back into the budget.
  void set_observer(std::function<void(uint64_t, uint64_t)> observer);

 private:
  void changed(std::unique_lock<std::mutex>& lock);

  const uint64_t total_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t used_ = 0, peak_ = 0;
  uint64_t version_ = 0;  // bumped at every change
  uint64_t next_ticket_ = 0;
  std::deque<uint64_t> waiting_;  // tickets, in arrival order
  std::function<void(uint64_t, uint64_t)> observer_;
};

}  // namespace cuzk::engine
