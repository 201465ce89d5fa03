// The CUDA backend's parameter sets on its device, placed by a device memory plan
// (device_memory_plan.hpp): host memory pinned; each query's bases resident on the device where
// the plan has room, else read from the pinned host memory by the MSMs chunk by chunk; H's with
// precomputed copies where room is left over. Host code.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "groth16/backend.hpp"
#include "groth16/cuda/device_memory_plan.hpp"
#include "groth16/cuda/host_pins.hpp"
#include "groth16/parameters.hpp"
#include "msm/cuda/msm.hpp"

namespace cuzk::groth16::cuda {

// What a plan needs of a parameter set: the proofs it makes (domain n, H having n - 1 points;
// one L base per aux variable; one verifying-key point per input) and its queries' device bytes.
ProofShape proof_shape(const Parameters& p);
QueryBytes query_bytes(const Parameters& p);

// One parameter set on the device: its host vectors pinned, its bases resident or streamed.
struct ResidentSet {
  std::unique_ptr<PinnedParameters> pinned;
  std::shared_ptr<msm::cuda::G1Bases> h, l, a, b_g1;
  std::shared_ptr<msm::cuda::G2Bases> b_g2;
  unsigned generation = 0;  // ResidentParameters' generation when it was placed
  // Host bytes of the set given back to the OS (CudaBackendOptions::release_host_bases): its
  // host vectors read as zeros until restore_host_copy writes them back from the device.
  size_t host_released = 0;
  // Device bytes of its bases (0 for streamed ones).
  size_t bytes() const {
    return h->device_bytes() + l->device_bytes() + a->device_bytes() + b_g1->device_bytes() + b_g2->device_bytes();
  }
  bool any_streamed() const {
    return h->streamed() || l->streamed() || a->streamed() || b_g1->streamed() || b_g2->streamed();
  }
};

// The sets of one device. Not thread-safe except bytes() and plan(): the backend calls the rest
// under its lock, with the device current.
class ResidentParameters {
 public:
  // owner names the backend in log lines ("cuda:0").
  ResidentParameters(int device, const CudaBackendOptions& options, std::string owner)
      : device_(device), options_(options), owner_(std::move(owner)) {}

  // The set's bases, placed on first use by a plan for the sets on the device (logged; the MSM
  // workspace's limit follows it); later proofs reuse them. held: device bytes the backend keeps
  // for proofs (scratch, compact a/b/c, twiddles), which the plan divides anew. A set placed with
  // streamed bases is placed again once another set has left the device. Throws
  // std::runtime_error when the card cannot prove this set's domain at all (the plan's why).
  const ResidentSet& get(const Parameters& params, size_t held);
  // Drops the set's bases and pins (nothing when it is not resident). A host copy given back is
  // written back first when restore_host_copy says so (the set is placed again from it);
  // otherwise it stays zeros: the caller frees the set (an eviction).
  void release(const Parameters& params, bool restore_host_copy);
  // Drops every set; host copies given back stay zeros (the backend goes, and the sets with it).
  void clear();
  // Device memory outside the plan changed (a compiled circuit's matrices uploaded, or freed
  // again): the set's plan is made again so that it counts it. A set whose host copy was given back keeps its bases
  // where the new plan keeps them all resident (giving up H's copies, on the device, when it has no
  // room for them); otherwise the set is dropped here and get() places it again from its host copy.
  void replan(const Parameters& params, size_t held);
  // Why the plan get() would make for the set beside `matrices` more device bytes (a compiled
  // circuit's, not yet uploaded) overlays the witness on a/b/c, or leaves no room for a proof;
  // empty when it would not. A prediction: the check after the upload still decides.
  std::string witness_overlaid_beside(const Parameters& params, size_t held, size_t matrices) const;
  // Device bytes the backend holds outside the plans (its compiled circuits' matrices): the
  // urgent lane's limit counts them.
  void set_outside_bytes(size_t bytes) { outside_ = bytes; }
  // The set's proofs are witness-only (its compiled circuit's matrices are on the device): its
  // plans give a second witness buffer where there is room (DeviceMemoryPlan::witness_ahead).
  // Forgotten when the set is released for good.
  void set_witness_only(const Parameters& params, bool on);
  bool witness_only(const Parameters& params) const { return witness_sets_.count(&params) != 0; }
  // Whether get() would place the set now (it is not resident, or is to be placed again).
  bool will_place(const Parameters& params) const;
  // The backend could not allocate the plan's second witness buffer: its bytes go back to the
  // MSM workspace, and the plan in force says so.
  void witness_ahead_refused();
  // Whether the set's host copy is given back now.
  bool host_released(const Parameters& params) const {
    auto it = sets_.find(&params);
    return it != sets_.end() && it->second.host_released;
  }
  // The set's host bytes given back now, 0 while the host holds its copy (read without the
  // backend's lock: the engine's admission asks while a proof runs).
  size_t released_host_bytes_of(const Parameters& params) const {
    std::lock_guard lock(released_of_mutex_);
    auto it = released_of_.find(&params);
    return it == released_of_.end() ? 0 : it->second;
  }
  // With CudaBackendOptions::release_host_bases: gives the host copy of every set whose bases
  // are all resident back to the OS (its pins first), unless another device pins it too. Every
  // path that would read a host copy again (streaming, H's plain re-upload, a re-placement)
  // writes it back from the device first.
  void release_host_copies();
  // The set's host copy is never given back from now on (another backend uploads from it), until
  // release(params, false) or clear(). Without the backend's lock; true when the copy is given
  // back now: restore_kept (under the lock) writes it back.
  bool mark_kept(const Parameters& params);
  void restore_kept(const Parameters& params);
  // Undoes mark_kept (without the backend's lock): given back at the next release_host_copies.
  void unmark_kept(const Parameters& params);
  // Host bytes given back now (read without the backend's lock).
  size_t released_host_bytes() const { return released_.load(); }
  // Makes the sets' given-back bytes as they stand now what released_host_bytes_of reads (done by
  // release_host_copies, an eviction and clear; the backend also calls it when a proof fails).
  void publish_released_of();
  // Device bytes of the resident sets (read without the backend's lock).
  size_t bytes() const { return total_.load(); }
  // The plan in force (the last set placed); fits is false before any.
  DeviceMemoryPlan plan() const;
  // After a device allocation failed although the plan allowed it (another process took memory):
  // step 0 drops every set's copies of H and frees the MSM workspace; step 1 also streams every
  // set's bases and halves the workspace's limit. What was freed, for the log; empty when nothing.
  std::string make_room(unsigned step);

 private:
  // Free device memory and the card's size as plans see them, given the bytes this backend
  // holds (ours): the driver's figures less options_.device_memory_reserved; within
  // options_.device_memory_bytes, when set and smaller, a card of that size whose use is the
  // card's, or, for the urgent lane, at most the limit less ours (the rest of the card is the
  // ordinary backend's, in use).
  size_t free_device_memory(size_t ours, size_t* total) const;
  // The plan for params beside the other resident sets (others), given what the backend holds.
  // taken: device bytes about to be used outside the plan, as if already allocated.
  DeviceMemoryPlan plan_for(const Parameters& params, size_t held, size_t others, size_t taken = 0) const;
  // Uploads params' bases as the plan places them into r (a resident upload that fails after all
  // is streamed instead, and logged).
  void place(const Parameters& params, const DeviceMemoryPlan& plan, ResidentSet& r);
  // Every set's bases streamed (their device memory freed): room for a set that did not fit.
  void stream_all();
  // Replaces every resident set's H copies by its plain bases. True when any were dropped.
  bool drop_h_copies();
  // One set's: H's plain bases replace its copies (from copy 0 on the device when its host copy
  // was given back and there is room for both, else from the host copy).
  void drop_h_copies(const Parameters& params, ResidentSet& r);
  void set_plan(const DeviceMemoryPlan& plan);
  // Whether a resident set stays as placed: placed since the last set left, or nothing streamed
  // (else get() places it again, with the room that set left).
  bool placed_for_now(const ResidentSet& r) const { return r.generation == generation_ || !r.any_streamed(); }
  // Writes r's host copy back from its resident bases and pins it again, when it was given back;
  // why names the reason in the log.
  void restore_host_copy(const Parameters& params, ResidentSet& r, const char* why);

  int device_;
  CudaBackendOptions options_;
  std::string owner_;
  std::map<const Parameters*, ResidentSet> sets_;
  size_t outside_ = 0;                        // set_outside_bytes
  std::set<const Parameters*> witness_sets_;  // set_witness_only
  // A set released to be placed again (release with restore_host) keeps its host pages locked
  // until get() places it: locking 60 GB again takes seconds.
  std::map<const Parameters*, std::unique_ptr<PinnedParameters>> pins_between_;
  std::atomic<size_t> total_{0};     // device bytes of sets_, kept under the backend's lock
  std::atomic<size_t> released_{0};  // host bytes given back, the sum of sets_' host_released
  // sets_' host_released by set, for readers without the backend's lock, published where a
  // backend call ends in a settled state (release_host_copies, an eviction, clear): a copy written
  // back only to place the set again within one proof is never seen.
  mutable std::mutex released_of_mutex_;
  std::map<const Parameters*, size_t> released_of_;
  // mark_kept's sets; release_host_copies reads them under the same mutex, all through, so that a
  // set is either given back before it is marked (and seen so) or never.
  std::mutex kept_mutex_;
  std::set<const Parameters*> kept_;
  unsigned generation_ = 0;  // sets that left: a set with streamed bases placed before is placed again
  mutable std::mutex plan_mutex_;
  DeviceMemoryPlan plan_;
};

}  // namespace cuzk::groth16::cuda
