#include "groth16/cuda/prepared_abc.hpp"

namespace cuzk::groth16::cuda {

PreparedAbc::~PreparedAbc() {
  for (int i = 0; i < 3; i++) {
    if (compact[i]) copies_->give_back(i, std::move(*compact[i]));
  }
}

size_t PreparedAbc::host_bytes() const {
  size_t bytes = 0;
  for (const auto& c : compact) bytes += c ? c->vector.bytes() : 0;
  return bytes;
}

bool AuxLock::lock(const void* p, size_t bytes) {
  if (!locks_.lock(p, bytes)) return false;
  p_ = p;
  bytes_ = bytes;
  return true;
}

bool PreparedAbc::locked(const void* p) const {
  if (p && p == held_aux) return true;
  for (const auto& c : compact) {
    if (c && c->locked(p)) return true;
  }
  return locks.locked(p);
}

size_t PreparedAbc::compact_device_bytes() const {
  size_t bytes = 0;
  for (const auto& c : compact) {
    if (!c) continue;
    const ntt::ZeroOneVector& z = c->vector;
    bytes += device_aligned(z.kinds.size() * 4) + device_aligned(z.chunk_offsets.size() * 4) +
             device_aligned(z.others.size() * sizeof(Fr));
  }
  return bytes;
}

bool PreparedAbc::made_from(const r1cs::ProvingAssignment& pa) const {
  const r1cs::FrVector* vectors[3] = {&pa.a(), &pa.b(), &pa.c()};
  for (int i = 0; i < 3; i++) {
    if (vectors[i]->data() != source[i].first || vectors[i]->size() != source[i].second) return false;
  }
  return true;
}

void prepare_abc(r1cs::ProvingAssignment& pa, const std::shared_ptr<std::atomic<size_t>>& counter,
                 const std::shared_ptr<CompactCopies>& copies) {
  auto prepared = std::make_shared<PreparedAbc>(counter, copies);
  const r1cs::FrVector* vectors[3] = {&pa.a(), &pa.b(), &pa.c()};
  for (int i = 0; i < 3; i++) prepared->source[i] = {vectors[i]->data(), vectors[i]->size()};
  if (pa.abc_pending()) {
    const Fr* aux = pa.aux().data();
    const size_t room = pa.aux().capacity() * sizeof(Fr);
    auto held = std::dynamic_pointer_cast<const AuxLock>(pa.aux_hold());
    if (!held || !held->covers(aux, pa.num_aux() * sizeof(Fr))) {  // a reused witness keeps its lock
      pa.set_aux_hold(nullptr);                                    // a lock on part of it would refuse the new one
      auto lock = std::make_shared<AuxLock>(counter);
      held = lock->lock(aux, room) ? std::move(lock) : nullptr;
      pa.set_aux_hold(held);
    }
    if (held) prepared->held_aux = aux;
    pa.set_abc_preparation(std::move(prepared));
    return;
  }
  for (int i = 0; i < 3; i++) {
    CompactCopies::Copy copy = copies->take(i);
    if (copies->fill(copy, *vectors[i])) {
      prepared->compact[i].emplace(std::move(copy));
    } else {
      copies->give_back(i, std::move(copy));  // emptied, its memory kept for later
      prepared->locks.lock(vectors[i]->data(), vectors[i]->size() * sizeof(Fr));
    }
  }
  pa.set_abc_preparation(std::move(prepared));
}

}  // namespace cuzk::groth16::cuda
