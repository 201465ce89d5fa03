// A CPU backend that acts out the CUDA backend's host copies (engine tests): it says it gave a
// set's host copy back once it holds the set (load_parameters or a proof), as the CUDA backend does
// with release_host_bases (here the pages stay: the CPU proves from them), until
// release_parameters or keep_host_copy; it counts the loads, the proofs and the sets kept.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "groth16/backend.hpp"

namespace cuzk::engine {

class ReleasingBackend final : public groth16::ProverBackend {
 public:
  // With `keeps` it says it gives copies back but keeps them, as a card that cannot hold every
  // base does.
  explicit ReleasingBackend(std::shared_ptr<std::atomic<int>> loads, bool keeps = false,
                            std::string name = "releasing-cpu")
      : loads_(std::move(loads)), keeps_(keeps), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  bool gives_back_host_copies() const override { return true; }
  // Called at each load_parameters first (set before the engine's first job); may throw, as a
  // failed load.
  std::function<void(const groth16::Parameters&)> on_load;
  void load_parameters(const groth16::Parameters& params) override {
    if (on_load) on_load(params);
    std::lock_guard lock(mutex_);
    if (!placed_.insert(&params).second) return;  // placed already
    (*loads_)++;
    give_back(params);
  }
  groth16::PendingProof prove_start(const groth16::Parameters& params, r1cs::ProvingAssignment& pa, const ff::Fr& r,
                                    const ff::Fr& s, groth16::ProveTimings* t,
                                    const r1cs::ProvingAssignment* /*next*/) override {
    auto out = cpu_->prove_start(params, pa, r, s, t);
    std::lock_guard lock(mutex_);
    if (placed_.insert(&params).second && !keeps_) unplaced_proofs_++;
    give_back(params);
    proofs_++;
    return out;
  }
  void keep_host_copy(const groth16::Parameters& params) override {
    std::lock_guard lock(mutex_);
    kept_.insert(&params);
    released_.erase(&params);  // written back
  }
  void let_host_copy_go(const groth16::Parameters& params) override {
    std::lock_guard lock(mutex_);
    kept_.erase(&params);
  }
  void release_parameters(const groth16::Parameters& params) override {
    std::lock_guard lock(mutex_);
    released_.erase(&params);
    placed_.erase(&params);
    kept_.erase(&params);
  }
  size_t released_host_bytes() const override {
    std::lock_guard lock(mutex_);
    size_t sum = 0;
    for (const auto& [p, bytes] : released_) sum += bytes;
    return sum;
  }
  size_t released_host_bytes_of(const groth16::Parameters& params) const override {
    std::lock_guard lock(mutex_);
    auto it = released_.find(&params);
    return it == released_.end() ? 0 : it->second;
  }
  int unplaced_proofs() const {
    std::lock_guard lock(mutex_);
    return unplaced_proofs_;
  }
  int proofs() const {
    std::lock_guard lock(mutex_);
    return proofs_;
  }
  size_t kept_sets() const {
    std::lock_guard lock(mutex_);
    return kept_.size();
  }

 private:
  void give_back(const groth16::Parameters& params) {
    if (!keeps_ && !kept_.count(&params)) released_[&params] = params.base_bytes();
  }

  std::shared_ptr<std::atomic<int>> loads_;
  const bool keeps_;
  const std::string name_;
  mutable std::mutex mutex_;
  std::set<const groth16::Parameters*> placed_, kept_;
  std::map<const groth16::Parameters*, size_t> released_;
  int unplaced_proofs_ = 0, proofs_ = 0;
  std::unique_ptr<groth16::ProverBackend> cpu_ = groth16::make_cpu_backend();
};

// An EngineConfig::make_backend (or make_urgent_backend) that makes one and says where it is.
inline std::function<std::unique_ptr<groth16::ProverBackend>()> releasing_backend_maker(
    std::shared_ptr<std::atomic<int>> loads, ReleasingBackend** made, bool keeps = false,
    std::string name = "releasing-cpu") {
  return [loads, made, keeps, name] {
    auto b = std::make_unique<ReleasingBackend>(loads, keeps, name);
    *made = b.get();
    return b;
  };
}

}  // namespace cuzk::engine
