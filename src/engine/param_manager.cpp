#include "engine/param_manager.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <spdlog/spdlog.h>
#include <stdexcept>
#include <utility>

#include "circuits/synthetic.hpp"
#include "groth16/param_file.hpp"
#include "groth16/setup.hpp"

namespace cuzk::engine {
namespace {

int64_t host_bytes_of(const groth16::Parameters& p) {
  return int64_t(p.base_bytes() + p.vk.ic.size() * sizeof(groth16::G1Affine));
}

}  // namespace

ParamSet::ParamSet(std::string id_, groth16::Parameters params_, std::string origin_)
    : id(std::move(id_)),
      origin(std::move(origin_)),
      params(std::move(params_)),
      pvk(params.vk),
      host_bytes(host_bytes_of(params)) {}

ParameterManager::ParameterManager(std::string cache_dir, bool allow_synthetic_setup, MemoryBudget& budget,
                                   std::function<void(const ParamSet&)> on_evict,
                                   std::function<void(int64_t)> on_resident_change, MakeParameters make_parameters,
                                   std::vector<ParameterSource> sources)
    : dir_(std::move(cache_dir)),
      allow_synthetic_setup_(allow_synthetic_setup),
      budget_(budget),
      on_evict_(std::move(on_evict)),
      on_resident_change_(std::move(on_resident_change)),
      make_parameters_(std::move(make_parameters)),
      sources_(std::move(sources)) {}

std::string ParameterManager::synthetic_id(const CircuitDescription& c) {
  return "synthetic-" + std::to_string(c.constraints) + "-" + std::to_string(c.public_inputs) + "-seed" +
         std::to_string(c.seed);
}

std::optional<CircuitDescription> ParameterManager::parse_synthetic_id(const std::string& id) {
  // synthetic-<constraints>-<inputs>-seed<seed>
  const std::string prefix = "synthetic-";
  if (id.rfind(prefix, 0) != 0) return std::nullopt;
  CircuitDescription c;
  const char* p = id.data() + prefix.size();
  const char* end = id.data() + id.size();
  auto r1 = std::from_chars(p, end, c.constraints);
  if (r1.ec != std::errc() || r1.ptr == end || *r1.ptr != '-') return std::nullopt;
  auto r2 = std::from_chars(r1.ptr + 1, end, c.public_inputs);
  if (r2.ec != std::errc() || std::string_view(r2.ptr, end - r2.ptr).rfind("-seed", 0) != 0) return std::nullopt;
  auto r3 = std::from_chars(r2.ptr + 5, end, c.seed);
  if (r3.ec != std::errc() || r3.ptr != end) return std::nullopt;
  return c;
}

bool ParameterManager::valid_id(const std::string& id) {
  if (id.empty() || id.size() > 200 || id[0] == '.') return false;
  return std::all_of(id.begin(), id.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-';
  });
}

std::string ParameterManager::path_of(const std::string& id) const {
  return (std::filesystem::path(dir_) / (id + ".params")).string();
}

std::optional<int64_t> ParameterManager::expected_bytes(const std::string& id) const {
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it != entries_.end() && it->second.set) return it->second.set->host_bytes;
  }
  return unloaded_bytes(id);
}

std::optional<int64_t> ParameterManager::unloaded_bytes(const std::string& id) const {
  for (const auto& s : sources_) {
    if (s.serves && s.serves(id)) return s.expected_bytes ? s.expected_bytes(id) : std::nullopt;
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path_of(id), ec);
  if (!ec) return int64_t(size);  // uncompressed points take as many bytes on disk as in memory
  if (auto c = parse_synthetic_id(id)) {
    // h: n - 1; l, a: ~aux; b_g1, b_g2: B's density (~25% of aux); ic: inputs.
    const int64_t n = int64_t(std::bit_ceil(c->constraints));
    const int64_t aux = int64_t(c->constraints);
    return int64_t(sizeof(groth16::G1Affine)) * (n + 2 * aux + aux / 3) +
           int64_t(sizeof(groth16::G2Affine)) * (aux / 3);
  }
  return std::nullopt;
}

std::optional<uint64_t> ParameterManager::claim_load(const std::string& id, const std::function<bool()>& give_up,
                                                     const std::function<void()>& on_wait) {
  const uint64_t expected = uint64_t(std::max<int64_t>(0, unloaded_bytes(id).value_or(0)));
  std::unique_lock lock(mutex_);
  bool waited = false;
  for (;;) {
    if (give_up && give_up()) return std::nullopt;
    auto it = entries_.find(id);
    if (it != entries_.end()) {
      const Entry& e = it->second;
      if (e.set || e.loading || e.paid) return 0;
      if (e.claimed) {  // its payer waits for the budget: this partition then needs its own bytes only
        if (!waited && on_wait) {
          waited = true;
          lock.unlock();
          on_wait();
          lock.lock();
          continue;
        }
        cv_.wait(lock);
        continue;
      }
    }
    // Unknown before loading (an embedder's set): charged once loaded, as acquire says.
    if (expected == 0) return 0;
    entries_[id].claimed = true;
    return expected;
  }
}

void ParameterManager::load_paid(const std::string& id, uint64_t bytes) {
  std::lock_guard lock(mutex_);
  Entry& e = entries_[id];
  e.claimed = false;
  e.paid += bytes;
  cv_.notify_all();
}

void ParameterManager::unclaim(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  if (it != entries_.end()) {
    it->second.claimed = false;
    erase_if_unused(it);
  }
  cv_.notify_all();  // another partition may pay now
}

void ParameterManager::wake_waiters() {
  std::lock_guard lock(mutex_);
  cv_.notify_all();
}

void ParameterManager::erase_if_unused(std::map<std::string, Entry>::iterator it) {
  const Entry& e = it->second;
  if (!e.set && !e.loading && !e.claimed && e.paid == 0) entries_.erase(it);
}

std::shared_ptr<const ParamSet> ParameterManager::acquire(const std::string& id, bool within_budget) {
  std::unique_lock lock(mutex_);
  for (;;) {
    auto& e = entries_[id];
    if (e.set && e.suspect && e.set.use_count() == 1) {
      // Nobody holds the suspect set any more: drop it and load it again from its file (its
      // charge stays, as the reload's).
      recheck_.insert(id);
      auto set = take_locked(entries_.find(id), /*keep_charge=*/true);
      lock.unlock();
      finish_drop(set, /*keep_charge=*/true);
      lock.lock();
      continue;
    }
    if (e.set) {
      e.last_used = std::chrono::steady_clock::now();
      auto set = e.set;
      // Paid for by a reservation that arrived while another load made it: not needed.
      const uint64_t surplus = std::exchange(e.paid, 0);
      lock.unlock();
      if (surplus) budget_.release(surplus);
      return set;
    }
    if (!e.loading) break;
    cv_.wait(lock);
  }
  uint64_t paid = std::exchange(entries_[id].paid, 0);
  if (!paid) {
    // Nobody's admission carried it: its bytes are reserved before it loads.
    if (const auto expected = unloaded_bytes(id); expected && *expected > 0) {
      if (within_budget && !budget_.try_reserve(uint64_t(*expected))) {
        erase_if_unused(entries_.find(id));
        return nullptr;
      }
      if (!within_budget) budget_.force_reserve(uint64_t(*expected));
      paid = uint64_t(*expected);
    }
  }
  entries_[id].loading = true;
  const bool recheck = recheck_.count(id) > 0;
  lock.unlock();
  std::shared_ptr<const ParamSet> set;
  std::string error;
  bool not_found = false;
  try {
    set = load(id, recheck);
  } catch (const ParametersNotFound& ex) {
    error = ex.what();
    not_found = true;
  } catch (const std::exception& ex) {
    error = ex.what();
  }
  lock.lock();
  if (set) recheck_.erase(id);
  auto it = entries_.find(id);  // kept while loading
  Entry& e = it->second;
  e.loading = false;
  cv_.notify_all();
  if (!set) {
    erase_if_unused(it);
    if (!not_found) refused_loads_++;
    lock.unlock();
    if (paid) budget_.release(paid);
    if (not_found) throw ParametersNotFound("parameters '" + id + "': " + error);
    throw std::runtime_error("parameters '" + id + "': " + error);
  }
  e.set = set;
  e.last_used = std::chrono::steady_clock::now();
  resident_bytes_ += set->host_bytes;
  // What was paid becomes the set's charge, made exact.
  const uint64_t host = uint64_t(set->host_bytes);
  if (host < paid) {
    budget_.release(paid - host);
  } else if (host > paid && !budget_.try_charge(host - paid)) {
    budget_.force_reserve(host - paid);
    spdlog::warn("parameters {}: {:.1f} MiB, {:.1f} MiB more than expected, beyond the host-memory budget", id,
                 double(host) / (1 << 20), double(host - paid) / (1 << 20));
  }
  if (on_resident_change_) on_resident_change_(resident_bytes_);
  return set;
}

std::shared_ptr<const ParamSet> ParameterManager::load(const std::string& id, bool recheck) {
  if (!valid_id(id)) throw std::invalid_argument("invalid parameter id (use letters, digits, '.', '_', '-')");
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& s : sources_) {
    if (!s.serves || !s.serves(id)) continue;
    auto made = s.load(id, recheck);
    if (!made.params) throw std::runtime_error("its source loaded nothing");
    auto set = std::make_shared<const ParamSet>(id, std::move(*made.params), std::move(made.origin));
    spdlog::info("parameters {}: loaded from {} ({:.1f} MiB) in {:.2f} s", id, set->origin,
                 double(set->host_bytes) / (1 << 20),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return set;
  }
  const std::string path = path_of(id);
  if (std::filesystem::exists(path)) {
    // A synthetic set is our own setup: used only whole, its digest trailer checked. Another file
    // someone put in the cache: its trailer checked if it has one, else every point checked (on
    // the curve and in the subgroup), since nothing else vouches for it.
    groth16::Parameters params;
    if (parse_synthetic_id(id)) {
      params = groth16::read_own_parameters(path);
    } else {
      auto file = groth16::ParameterFile::open(path);
      params = file.decode(file.has_digest() ? groth16::ReadMode::kUnchecked : groth16::ReadMode::kChecked);
    }
    auto set = std::make_shared<const ParamSet>(id, std::move(params), path);
    spdlog::info("parameters {}: loaded {} ({:.1f} MiB) in {:.2f} s", id, path, double(set->host_bytes) / (1 << 20),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return set;
  }
  if (make_parameters_) {
    if (auto made = make_parameters_(id)) {
      auto set = std::make_shared<const ParamSet>(id, std::move(*made), "the embedder's make_parameters");
      spdlog::info("parameters {}: made by the embedder ({:.1f} MiB) in {:.2f} s", id,
                   double(set->host_bytes) / (1 << 20),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      return set;
    }
  }
  const auto synthetic = parse_synthetic_id(id);
  if (!synthetic) throw ParametersNotFound("no parameter file " + path);
  if (!allow_synthetic_setup_) throw ParametersNotFound("no parameter file " + path + " (synthetic setup disabled)");
  spdlog::info("parameters {}: not cached, running the setup (random toxic waste)", id);
  circuits::SyntheticCircuit circuit(synthetic->constraints, synthetic->public_inputs, {}, synthetic->seed);
  auto params = groth16::generate_parameters(circuit, groth16::ToxicWaste::random());
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  // Write to a temporary name first so a concurrent reader never sees half a file.
  const std::string tmp = path + ".tmp";
  try {
    groth16::write_parameters(params, tmp);
    std::filesystem::rename(tmp, path);
  } catch (const std::exception& ex) {
    spdlog::warn("parameters {}: could not cache at {}: {}", id, path, ex.what());
    // A full disk left half a file behind: it would hold the space and never be read.
    std::filesystem::remove(tmp, ec);
  }
  auto set =
      std::make_shared<const ParamSet>(id, std::move(params), "a synthetic setup of this process (" + path + ")");
  spdlog::info("parameters {}: set up in {:.2f} s", id,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return set;
}

std::shared_ptr<const ParamSet> ParameterManager::take_locked(std::map<std::string, Entry>::iterator it,
                                                              bool keep_charge) {
  auto set = std::move(it->second.set);
  resident_bytes_ -= set->host_bytes;
  it->second.suspect = false;  // the next set is loaded afresh
  if (keep_charge) it->second.paid += uint64_t(set->host_bytes);
  erase_if_unused(it);
  return set;
}

// Outside the lock: the backends may wait for a proof in flight to drop their device copies.
void ParameterManager::finish_drop(const std::shared_ptr<const ParamSet>& set, bool keep_charge) {
  if (on_evict_) on_evict_(*set);
  // The tracker lets go of the bytes before the budget does: what it counts stays within it.
  if (on_resident_change_) on_resident_change_(resident_bytes());
  if (!keep_charge) budget_.release(uint64_t(set->host_bytes));
  spdlog::info("parameters {}: evicted ({:.1f} MiB)", set->id, double(set->host_bytes) / (1 << 20));
}

bool ParameterManager::evict(const std::string& id) {
  std::shared_ptr<const ParamSet> set;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end() || !it->second.set) return false;
    if (it->second.set.use_count() > 1) throw std::logic_error("parameters '" + id + "' are in use by a job");
    set = take_locked(it);
  }
  finish_drop(set);
  return true;
}

int64_t ParameterManager::evict_idle_for(uint64_t bytes, const std::string& keep) {
  int64_t freed = 0;
  while (budget_.used() + bytes > budget_.total()) {
    std::shared_ptr<const ParamSet> set;
    {
      std::lock_guard lock(mutex_);
      auto victim = entries_.end();
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (!it->second.set || it->second.set.use_count() > 1 || it->first == keep ||
            kept_under_pressure_.count(it->first))
          continue;
        if (victim == entries_.end() || it->second.last_used < victim->second.last_used) victim = it;
      }
      if (victim == entries_.end()) break;
      set = take_locked(victim);
    }
    freed += set->host_bytes;
    finish_drop(set);
  }
  return freed;
}

std::string ParameterManager::suspect(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end() || !it->second.set) return "";
  const std::string& origin = it->second.set->origin;
  if (!it->second.suspect) {
    spdlog::warn(
        "parameters {} ({}): a proof made with them failed; they are dropped, and their file is checked in full "
        "before they are used again",
        id, origin);
  }
  it->second.suspect = true;
  return "parameters " + id + " (" + origin + ") are dropped, and their file is checked in full before their next use";
}

void ParameterManager::keep_under_pressure(const std::string& id) {
  std::lock_guard lock(mutex_);
  kept_under_pressure_.insert(id);
}

bool ParameterManager::resident(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.set;
}

std::shared_ptr<const ParamSet> ParameterManager::peek(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : it->second.set;
}

int64_t ParameterManager::resident_bytes() const {
  std::lock_guard lock(mutex_);
  return resident_bytes_;
}

uint64_t ParameterManager::refused_loads() const {
  std::lock_guard lock(mutex_);
  return refused_loads_;
}

std::vector<ParamSetInfo> ParameterManager::list() const {
  std::lock_guard lock(mutex_);
  std::vector<ParamSetInfo> out;
  for (const auto& [id, e] : entries_) {
    if (e.set) out.push_back({id, e.set->host_bytes, e.set.use_count() > 1});
  }
  return out;
}

}  // namespace cuzk::engine
