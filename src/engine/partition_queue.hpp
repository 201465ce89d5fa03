// A priority queue of partition work items ordered by (priority desc, job sequence, partition
// index), so the oldest job's lowest partition goes first and a higher priority overtakes.
// Used four times: the work waiting for admission, the urgent jobs' work (their own synthesis
// worker), the bounded GPU queue and the finalizer queue.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace cuzk::engine {

struct Partition;

struct QueueKey {
  int priority = 0;
  uint64_t job_seq = 0;
  uint32_t partition = 0;
  friend bool operator<(const QueueKey& x, const QueueKey& y) {
    return std::tuple(-int64_t(x.priority), x.job_seq, x.partition) <
           std::tuple(-int64_t(y.priority), y.job_seq, y.partition);
  }
};

class PartitionQueue {
 public:
  explicit PartitionQueue(size_t capacity = std::numeric_limits<size_t>::max()) : capacity_(capacity) {}

  // Waits while the queue is full; false when the queue was closed meanwhile.
  bool push(const QueueKey& key, std::shared_ptr<Partition> p);
  // Never waits: the item may sit beyond the capacity (it models a sender blocked on a full
  // channel while still holding its memory, as the semaphore-release-after-synth design did).
  void push_unbounded(const QueueKey& key, std::shared_ptr<Partition> p);
  // The first item, waiting for one; nullptr once the queue is closed (items left in it are
  // collected with remove_if by whoever closed it).
  std::shared_ptr<Partition> pop();
  // Never waits: the first item when pred holds for it, else nullptr (the queue left as it was).
  std::shared_ptr<Partition> try_pop_if(const std::function<bool(const Partition&)>& pred);
  // Never waits: the first item when it goes before key, else nullptr.
  std::shared_ptr<Partition> try_pop_before(const QueueKey& key);
  // Removes every item for which pred holds (a cancelled job's partitions).
  std::vector<std::shared_ptr<Partition>> remove_if(const std::function<bool(const Partition&)>& pred);
  // Wakes everyone; pop() returns nullptr from now on, push() false.
  void close();
  size_t size() const;
  size_t capacity() const { return capacity_; }

 private:
  std::shared_ptr<Partition> take_first();  // under mutex_, items_ not empty

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::multimap<QueueKey, std::shared_ptr<Partition>> items_;
  bool closed_ = false;
};

}  // namespace cuzk::engine
