#include "groth16/cuda/resident_parameters.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <span>
#include <stdexcept>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "groth16/cuda/host_copy.hpp"
#include "util/elapsed.hpp"

namespace cuzk::groth16::cuda {

using cuzk::cuda::check;
using msm::cuda::G1Bases;
using msm::cuda::G2Bases;

ProofShape proof_shape(const Parameters& p) { return {std::bit_ceil(p.h.size() + 1), p.l.size(), p.vk.ic.size()}; }

QueryBytes query_bytes(const Parameters& p) {
  return {p.h.size() * sizeof(G1Affine), p.l.size() * sizeof(G1Affine), p.a.size() * sizeof(G1Affine),
          p.b_g1.size() * sizeof(G1Affine), p.b_g2.size() * sizeof(G2Affine)};
}

namespace {

double in_gb(size_t bytes) { return double(bytes) / 1e9; }

// f(points, bases) for each query of a placed set: its host points and their bases.
template <class F>
void for_each_query(const Parameters& p, const ResidentSet& r, F&& f) {
  f(p.h, *r.h);
  f(p.l, *r.l);
  f(p.a, *r.a);
  f(p.b_g1, *r.b_g1);
  f(p.b_g2, *r.b_g2);
}

// The set's host copy given back where its bases are resident; the bytes given back.
size_t discard_host_copy(const Parameters& p, const ResidentSet& r) {
  size_t bytes = 0;
  for_each_query(p, r, [&](const auto& points, const auto& bases) { bytes += discard_host_points(points, bases); });
  return bytes;
}

}  // namespace

size_t ResidentParameters::free_device_memory(size_t ours, size_t* total) const {
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const size_t reserved = options_.device_memory_reserved;
  free_bytes = free_bytes > reserved ? free_bytes - reserved : 0;
  total_bytes = total_bytes > reserved ? total_bytes - reserved : 0;
  if (const size_t limit = options_.device_memory_bytes; limit && limit < total_bytes) {
    if (options_.urgent_lane) {             // the rest of the card is the ordinary backend's, in use
      const size_t used = ours + outside_;  // the lane's matrices count against its limit too
      free_bytes = std::min(free_bytes, limit > used ? limit - used : 0);
    } else {  // a card of `limit` bytes, whose use is the card's
      const size_t beyond = total_bytes - limit;
      free_bytes = free_bytes > beyond ? free_bytes - beyond : 0;
    }
    total_bytes = limit;
  }
  *total = total_bytes;
  return free_bytes;
}

DeviceMemoryPlan ResidentParameters::plan_for(const Parameters& params, size_t held, size_t others,
                                              size_t taken) const {
  ProofShape shape = proof_shape(params);
  for (const auto& [p, r] : sets_) {
    const ProofShape s = proof_shape(*p);
    shape = {std::max(shape.n, s.n), std::max(shape.aux, s.aux), std::max(shape.inputs, s.inputs)};
  }
  // What this backend holds on the device is the plan's to divide again.
  const size_t ours = total_.load() + msm::cuda::workspace_bytes(device_) + held;
  size_t total = 0;
  const size_t free_bytes = free_device_memory(ours, &total);
  const size_t margin = device_memory_margin(total);
  // taken comes out of what the plan divides, not of the free bytes alone: the placement that
  // follows may free the set's bases (or the workspace) for it.
  const size_t have = free_bytes + ours;
  const size_t available = have > margin + taken ? have - margin - taken : 0;
  // Witness-only proofs (its compiled circuit's matrices placed, or about to be: taken), and the
  // other resident sets' too: no compact a/b/c, a second witness buffer where it fits. Never on the
  // urgent lane, whose proofs come one at a time.
  bool witness_only = !options_.urgent_lane && (witness_sets_.count(&params) || taken > 0);
  for (const auto& [p, r] : sets_) witness_only = witness_only && (p == &params || witness_sets_.count(p));
  return plan_device_memory(available, others, shape, query_bytes(params), params.h.size(), options_.h_copies,
                            witness_only);
}

const ResidentSet& ResidentParameters::get(const Parameters& params, size_t held) {
  auto it = sets_.find(&params);
  if (it != sets_.end()) {
    if (placed_for_now(it->second)) return it->second;
    total_ -= it->second.bytes();  // a set left since: place this one again, with the room it left
    pins_between_[&params] = std::move(it->second.pinned);  // its pages stay locked meanwhile
    sets_.erase(it);
  }
  DeviceMemoryPlan plan = plan_for(params, held, total_.load());
  // Other sets' copies, then their bases, give way to a set that would not fit or would stream.
  if ((!plan.fits || plan.streamed_bytes) && drop_h_copies()) plan = plan_for(params, held, total_.load());
  if (!plan.fits && total_.load()) {
    stream_all();
    plan = plan_for(params, held, 0);
  }
  if (!plan.fits) throw std::runtime_error(owner_ + ": " + plan.why);
  ResidentSet r;
  r.generation = generation_;
  if (auto kept = pins_between_.extract(&params)) {
    r.pinned = std::move(kept.mapped());
  } else {
    r.pinned = std::make_unique<PinnedParameters>(params);
  }
  // The limit first: a workspace that earlier proofs grew beyond it gives its memory back before
  // the bases go up (else they find the card full and stream).
  msm::cuda::set_workspace_limit(device_, plan.workspace_limit);
  place(params, plan, r);
  set_plan(plan);
  std::fprintf(stderr, "cuzk: %s device memory plan for a set of 2^%d (%.1f GB of bases): %s\n", owner_.c_str(),
               std::countr_zero(proof_shape(params).n), in_gb(params.base_bytes()), plan.summary().c_str());
  total_ += r.bytes();
  return sets_.insert_or_assign(&params, std::move(r)).first->second;
}

void ResidentParameters::place(const Parameters& params, const DeviceMemoryPlan& plan, ResidentSet& r) {
  // The plan rests on one reading of the free memory (other processes allocate too): a resident
  // upload that fails after all leaves those bases in host memory.
  auto refused = [&](unsigned q, const std::runtime_error& e) {
    cudaGetLastError();
    std::fprintf(stderr, "cuzk: %s could not upload the %s bases (%s); streaming them\n", owner_.c_str(), query_name(q),
                 e.what());
  };
  auto g1 = [&](const std::vector<G1Affine>& points, unsigned q) {
    if (plan.resident[q]) {
      try {
        return G1Bases::upload(device_, points);
      } catch (const std::runtime_error& e) {
        refused(q, e);
      }
    }
    return G1Bases::in_host_memory(device_, points);
  };
  const HCopiesPlan& copies = plan.h_copies;
  if (plan.resident[kQueryH] && copies.copies > 1) {
    try {
      r.h = G1Bases::upload(device_, params.h, {.window_bits = copies.window_bits, .copies = copies.copies});
      std::fprintf(stderr,
                   "cuzk: %s keeps %u copies of H's bases (%zu points, window %u, %u bucket sets, %.1f GB) made in "
                   "%.1f s\n",
                   owner_.c_str(), r.h->copies(), params.h.size(), r.h->window_bits(), r.h->bucket_sets(),
                   in_gb(r.h->device_bytes()), (r.h->upload_ms() + r.h->precompute_ms()) / 1e3);
    } catch (const std::runtime_error& e) {
      cudaGetLastError();
      std::fprintf(stderr, "cuzk: %s could not make %u copies of H's bases (%s); keeping them plain\n", owner_.c_str(),
                   copies.copies, e.what());
    }
  }
  if (!r.h) r.h = g1(params.h, kQueryH);
  r.l = g1(params.l, kQueryL);
  r.a = g1(params.a, kQueryA);
  r.b_g1 = g1(params.b_g1, kQueryBG1);
  if (plan.resident[kQueryBG2]) {
    try {
      r.b_g2 = G2Bases::upload(device_, params.b_g2);
    } catch (const std::runtime_error& e) {
      refused(kQueryBG2, e);
    }
  }
  if (!r.b_g2) r.b_g2 = G2Bases::in_host_memory(device_, params.b_g2);
}

void ResidentParameters::set_witness_only(const Parameters& params, bool on) {
  if (on) {
    witness_sets_.insert(&params);
  } else {
    witness_sets_.erase(&params);
  }
}

bool ResidentParameters::will_place(const Parameters& params) const {
  auto it = sets_.find(&params);
  return it == sets_.end() || !placed_for_now(it->second);
}

void ResidentParameters::witness_ahead_refused() {
  DeviceMemoryPlan plan = this->plan();
  if (!plan.witness_ahead) return;
  plan.workspace_limit += plan.witness_ahead;
  plan.witness_ahead = 0;
  msm::cuda::set_workspace_limit(device_, plan.workspace_limit);
  set_plan(plan);
}

void ResidentParameters::release(const Parameters& params, bool restore_host) {
  if (!restore_host) {  // the caller frees the set
    witness_sets_.erase(&params);
    {
      std::lock_guard lock(kept_mutex_);
      kept_.erase(&params);
    }
    pins_between_.erase(&params);  // unlocking 60 GB takes a while: not under kept_mutex_
  }
  auto it = sets_.find(&params);
  if (it == sets_.end()) return;
  if (restore_host) {
    restore_host_copy(params, it->second, "to place the set again");
    pins_between_[&params] = std::move(it->second.pinned);
  }
  released_ -= it->second.host_released;
  total_ -= it->second.bytes();
  sets_.erase(it);
  generation_++;
  if (!restore_host) publish_released_of();  // else placed again before the proof ends
}

void ResidentParameters::clear() {
  {
    std::lock_guard lock(kept_mutex_);
    kept_.clear();
  }
  witness_sets_.clear();
  sets_.clear();
  pins_between_.clear();
  total_ = 0;
  released_ = 0;
  publish_released_of();
}

void ResidentParameters::publish_released_of() {
  std::lock_guard lock(released_of_mutex_);
  released_of_.clear();
  for (const auto& [p, r] : sets_) {
    if (r.host_released) released_of_[p] = r.host_released;
  }
}

void ResidentParameters::release_host_copies() {
  if (!options_.release_host_bases) return;
  std::lock_guard lock(kept_mutex_);
  for (auto& [p, r] : sets_) {
    if (r.host_released || r.any_streamed() || kept_.count(p)) continue;
    const void* ranges[] = {p->h.data(), p->l.data(), p->a.data(), p->b_g1.data(), p->b_g2.data()};
    // Pinned by another device's backend too: that one may still upload from it.
    if (std::any_of(std::begin(ranges), std::end(ranges),
                    [](const void* q) { return HostPins::instance().holders(q) > 1; }))
      continue;
    r.pinned.reset();  // page-locked memory cannot be given back
    r.host_released = discard_host_copy(*p, r);
    released_ += r.host_released;
    std::fprintf(stderr,
                 "cuzk: %s gave back the host copy of a set of 2^%d (%.1f GB): its bases are all on the device\n",
                 owner_.c_str(), std::countr_zero(proof_shape(*p).n), in_gb(r.host_released));
    if (!r.host_released) r.pinned = std::make_unique<PinnedParameters>(*p);  // refused: as before
  }
  publish_released_of();
}

bool ResidentParameters::mark_kept(const Parameters& params) {
  {
    std::lock_guard lock(kept_mutex_);
    kept_.insert(&params);
  }
  return released_host_bytes_of(params) > 0;  // published before kept_mutex_ was let go
}

void ResidentParameters::unmark_kept(const Parameters& params) {
  std::lock_guard lock(kept_mutex_);
  kept_.erase(&params);
}

void ResidentParameters::restore_kept(const Parameters& params) {
  auto it = sets_.find(&params);
  if (it == sets_.end() || !it->second.host_released) return;
  restore_host_copy(params, it->second, "for another backend on the card");
  publish_released_of();
}

void ResidentParameters::restore_host_copy(const Parameters& params, ResidentSet& r, const char* why) {
  if (!r.host_released) return;
  const auto t0 = std::chrono::steady_clock::now();
  // Pages mapped on every core, then page-locked, so the copies run at the link's speed.
  for_each_query(params, r, [](const auto& points, const auto&) {
    populate_host_pages(points.data(), points.size() * sizeof(points[0]));
  });
  const double mapped_s = seconds_since(t0);
  r.pinned = std::make_unique<PinnedParameters>(params);
  const double locked_s = seconds_since(t0) - mapped_s;
  try {
    for_each_query(params, r, [](const auto& points, const auto& bases) { restore_host_points(points, bases); });
  } catch (...) {  // still given back, as host_released says: unlocked and its pages discarded again
    r.pinned.reset();
    discard_host_copy(params, r);
    throw;
  }
  released_ -= r.host_released;
  r.host_released = 0;
  std::fprintf(stderr,
               "cuzk: %s wrote the host copy of a set of 2^%d (%.1f GB) back from the device %s (%.1f s: pages "
               "mapped in %.1f s, page-locked in %.1f s)\n",
               owner_.c_str(), std::countr_zero(proof_shape(params).n), in_gb(params.base_bytes()), why,
               seconds_since(t0), mapped_s, locked_s);
}

DeviceMemoryPlan ResidentParameters::plan() const {
  std::lock_guard lock(plan_mutex_);
  return plan_;
}

void ResidentParameters::set_plan(const DeviceMemoryPlan& plan) {
  std::lock_guard lock(plan_mutex_);
  plan_ = plan;
}

void ResidentParameters::stream_all() {
  for (auto& [p, r] : sets_) {
    if (!r.bytes()) continue;
    restore_host_copy(*p, r, "to stream it");  // may throw: the sets streamed so far are counted
    total_ -= r.bytes();
    r.h = G1Bases::in_host_memory(device_, p->h);
    r.l = G1Bases::in_host_memory(device_, p->l);
    r.a = G1Bases::in_host_memory(device_, p->a);
    r.b_g1 = G1Bases::in_host_memory(device_, p->b_g1);
    r.b_g2 = G2Bases::in_host_memory(device_, p->b_g2);
    std::fprintf(stderr, "cuzk: %s streams the bases of a set of 2^%d from host memory now, for room\n", owner_.c_str(),
                 std::countr_zero(proof_shape(*p).n));
  }
}

bool ResidentParameters::drop_h_copies() {
  bool dropped = false;
  for (auto& [p, r] : sets_) {
    if (r.h->copies() <= 1) continue;
    drop_h_copies(*p, r);
    std::fprintf(stderr, "cuzk: %s dropped the precomputed copies of H's bases (%zu points) for room\n", owner_.c_str(),
                 p->h.size());
    dropped = true;
  }
  return dropped;
}

void ResidentParameters::drop_h_copies(const Parameters& params, ResidentSet& r) {
  total_ -= r.bytes();
  struct Recount {  // what r holds now, counted again even when a write-back throws
    std::atomic<size_t>& total;
    ResidentSet& r;
    ~Recount() {
      if (r.h) total += r.bytes();  // null only when its plain upload threw other than a device error
    }
  } recount{total_, r};
  if (r.host_released) {
    // The host copy is zeros: H's plain bases come from copy 0 on the device, while there is room
    // for both; else the host copy is written back first.
    try {
      r.h = G1Bases::upload(device_, std::span(r.h->device_data(), r.h->size()));
    } catch (const std::runtime_error&) {
      cudaGetLastError();
      restore_host_copy(params, r, "for H's plain bases");
    }
  }
  if (!r.host_released) {
    r.h.reset();  // first, so that the plain upload has the room
    try {
      r.h = G1Bases::upload(device_, params.h);
    } catch (const std::runtime_error&) {
      cudaGetLastError();
      r.h = G1Bases::in_host_memory(device_, params.h);
    }
  }
}

std::string ResidentParameters::witness_overlaid_beside(const Parameters& params, size_t held, size_t matrices) const {
  // As get() would plan the set: beside the other sets, or alone when it does not fit beside them
  // (they would give way).
  auto it = sets_.find(&params);
  const size_t own = it == sets_.end() ? 0 : it->second.bytes();
  DeviceMemoryPlan plan = plan_for(params, held, total_.load() - own, matrices);
  if (!plan.fits) plan = plan_for(params, held, 0, matrices);
  if (plan.fits && plan.layout != ScratchLayout::kOverlaid) return {};
  const std::string beside = "beside the compiled circuit's matrices (" + std::to_string(matrices >> 20) + " MiB)";
  if (!plan.fits) return owner_ + " has no room for a proof " + beside + ": " + plan.why;
  return owner_ + "'s memory plan overlays the witness on a/b/c " + beside +
         ": too little device memory beside the set's bases";
}

void ResidentParameters::replan(const Parameters& params, size_t held) {
  auto it = sets_.find(&params);
  if (it == sets_.end()) return;
  ResidentSet& r = it->second;
  if (r.host_released) {
    const DeviceMemoryPlan plan = plan_for(params, held, total_.load() - r.bytes());
    if (plan.fits && plan.all_resident()) {
      msm::cuda::set_workspace_limit(device_, plan.workspace_limit);  // first: room for H's plain bases
      if (r.h->copies() > 1 && plan.h_copies.copies < r.h->copies()) drop_h_copies(params, r);
      set_plan(plan);
      std::fprintf(stderr, "cuzk: %s device memory plan for a set of 2^%d made again, its bases kept: %s\n",
                   owner_.c_str(), std::countr_zero(proof_shape(params).n), plan.summary().c_str());
      return;
    }
  }
  release(params, /*restore_host=*/true);  // get() places it again, from the host copy
}

std::string ResidentParameters::make_room(unsigned step) {
  std::string freed;
  const size_t before = total_.load() + msm::cuda::workspace_bytes(device_);
  if (drop_h_copies()) freed = "the copies of H's bases";
  if (step >= 1 && total_.load()) {
    stream_all();
    freed += std::string(freed.empty() ? "" : ", ") + "every set's resident bases (streamed now)";
  }
  if (step >= 1) {
    const size_t limit = msm::cuda::workspace_limit(device_);
    const size_t halved =
        std::max(msm_workspace_floor(size_t(1) << 20), (limit ? limit : msm::cuda::workspace_bytes(device_)) / 2);
    msm::cuda::set_workspace_limit(device_, halved);
    freed += std::string(freed.empty() ? "" : ", ") + "half the MSM workspace's limit";
  }
  if (msm::cuda::workspace_bytes(device_)) {
    msm::cuda::release_workspace(device_);
    freed += std::string(freed.empty() ? "" : ", ") + "the MSM workspace";
  }
  const size_t after = total_.load() + msm::cuda::workspace_bytes(device_);
  if (freed.empty()) return freed;
  char bytes[48];
  std::snprintf(bytes, sizeof(bytes), " (%.2f GB)", before > after ? in_gb(before - after) : 0.0);
  return freed + bytes;
}

}  // namespace cuzk::groth16::cuda
