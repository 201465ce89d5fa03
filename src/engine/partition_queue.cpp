#include "engine/partition_queue.hpp"

namespace cuzk::engine {

bool PartitionQueue::push(const QueueKey& key, std::shared_ptr<Partition> p) {
  std::unique_lock lock(mutex_);
  not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
  if (closed_) return false;
  items_.emplace(key, std::move(p));
  not_empty_.notify_one();
  return true;
}

void PartitionQueue::push_unbounded(const QueueKey& key, std::shared_ptr<Partition> p) {
  std::lock_guard lock(mutex_);
  items_.emplace(key, std::move(p));
  not_empty_.notify_one();
}

std::shared_ptr<Partition> PartitionQueue::pop() {
  std::unique_lock lock(mutex_);
  not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
  if (closed_) return nullptr;
  return take_first();
}

std::shared_ptr<Partition> PartitionQueue::try_pop_if(const std::function<bool(const Partition&)>& pred) {
  std::lock_guard lock(mutex_);
  if (closed_ || items_.empty() || !pred(*items_.begin()->second)) return nullptr;
  return take_first();
}

std::shared_ptr<Partition> PartitionQueue::try_pop_before(const QueueKey& key) {
  std::lock_guard lock(mutex_);
  if (closed_ || items_.empty() || !(items_.begin()->first < key)) return nullptr;
  return take_first();
}

std::shared_ptr<Partition> PartitionQueue::take_first() {
  auto it = items_.begin();
  auto p = std::move(it->second);
  items_.erase(it);
  not_full_.notify_one();
  return p;
}

std::vector<std::shared_ptr<Partition>> PartitionQueue::remove_if(const std::function<bool(const Partition&)>& pred) {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Partition>> out;
  for (auto it = items_.begin(); it != items_.end();) {
    if (pred(*it->second)) {
      out.push_back(std::move(it->second));
      it = items_.erase(it);
    } else {
      ++it;
    }
  }
  if (!out.empty()) not_full_.notify_all();
  return out;
}

void PartitionQueue::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  not_empty_.notify_all();
  not_full_.notify_all();
}

size_t PartitionQueue::size() const {
  std::lock_guard lock(mutex_);
  return items_.size();
}

}  // namespace cuzk::engine
