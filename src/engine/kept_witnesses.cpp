#include "engine/kept_witnesses.hpp"

#include "ff/fr.hpp"

namespace cuzk::engine {

std::optional<KeptWitnesses::Entry> KeptWitnesses::put(Entry&& e) {
  std::optional<Entry> out;
  std::lock_guard lock(mutex_);
  if (capacity_ == 0) {
    out.emplace(std::move(e));
    return out;
  }
  entries_.push_back(std::move(e));  // first: if it throws, e and every entry stay as they were
  if (entries_.size() > capacity_) {
    out.emplace(std::move(entries_.front()));
    entries_.pop_front();
  }
  return out;
}

std::optional<KeptWitnesses::Entry> KeptWitnesses::take(uint64_t elements) {
  std::optional<Entry> out;
  std::lock_guard lock(mutex_);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {  // the newest first
    const uint64_t room = it->witness.aux.capacity();
    if (room >= elements && room - elements <= elements / 8) {
      out.emplace(std::move(*it));
      entries_.erase(std::next(it).base());
      break;
    }
  }
  return out;
}

std::vector<KeptWitnesses::Entry> KeptWitnesses::take_all() {
  std::vector<Entry> out;
  std::lock_guard lock(mutex_);
  out.reserve(entries_.size());
  for (auto& e : entries_) out.push_back(std::move(e));
  entries_.clear();
  return out;
}

uint64_t KeptWitnesses::bytes() const {
  std::lock_guard lock(mutex_);
  uint64_t b = 0;
  for (const auto& e : entries_) b += e.witness.bytes();
  return b;
}

uint64_t KeptWitnesses::charged() const {
  std::lock_guard lock(mutex_);
  uint64_t b = 0;
  for (const auto& e : entries_) b += e.charged;
  return b;
}

}  // namespace cuzk::engine
