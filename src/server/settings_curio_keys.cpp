// Curio's cuzk.toml keys: each sets one of our settings, or is ignored with a note saying why.
#include <functional>

#include "server/settings.hpp"

namespace cuzk::server {

namespace {

bool is_uint(const SettingValue& v, uint64_t x) {
  return std::holds_alternative<uint64_t>(v) && std::get<uint64_t>(v) == x;
}

std::vector<ForeignKey> make_foreign_keys() {
  auto same = [](std::string_view section, std::string_view key, std::string_view target, std::string_view note = {}) {
    ForeignKey f;
    f.section = section, f.key = key, f.target = target, f.note = note;
    return f;
  };
  auto ignored = [](std::string_view section, std::string_view key, std::string_view note,
                    std::function<bool(const SettingValue&)> harmless = {}) {
    ForeignKey f;
    f.section = section, f.key = key, f.note = note, f.harmless = std::move(harmless);
    return f;
  };
  return {
      // [daemon] listen and status_listen, and [srs] param_cache, are ours too, under the same names.
      ignored("srs", "preload",
              "is ignored (deprecated in Curio too): parameters load when the first proof needs them; load one ahead "
              "with `cuzk preload ID` (PreloadSRS)"),
      same("memory", "total_budget", "engine.budget"),
      same("memory", "safety_margin", "engine.safety_margin"),
      ignored("memory", "eviction_min_idle",
              "is ignored: idle parameter sets are evicted when the budget needs their room (or by `cuzk evict`), "
              "whatever their idle time",
              [](const SettingValue& v) { return v == SettingValue(std::string("5m")); }),
      ignored("memory", "pinned_budget",
              "is ignored (deprecated in Curio too): engine.budget (memory.total_budget) is the one budget"),
      ignored("memory", "working_memory_budget",
              "is ignored (deprecated in Curio too): engine.budget (memory.total_budget) is the one budget"),
      same("gpus", "devices", "engine.devices"),
      ignored("gpus", "gpu_threads",
              "is ignored: cuzk has no separate CPU pool for GPU-side work; engine.cpu_threads sets the CPU threads "
              "and engine.finalizer_threads the threads finishing proofs",
              [](const SettingValue& v) { return is_uint(v, 0); }),
      same("gpus", "gpu_workers_per_device", "engine.gpu_workers_per_device"),
      ignored("scheduler", "max_batch_size",
              "is ignored: cuzk does not batch proofs into one GPU call; it pipelines the partitions of all queued "
              "jobs",
              [](const SettingValue& v) { return is_uint(v, 1); }),
      ignored("scheduler", "max_batch_wait_ms", "is ignored: cuzk does not batch proofs, so it never waits for a batch",
              [](const SettingValue&) { return true; }),
      ignored("scheduler", "sort_by_type",
              "is ignored: jobs run by priority, then arrival; parameter sets stay resident while the budget has room",
              [](const SettingValue& v) { return v == SettingValue(true); }),
      same("synthesis", "threads", "engine.cpu_threads",
           "engine.cpu_threads also sets the CPU prover's threads, not synthesis' only"),
      ignored("synthesis", "partition_workers",
              "is ignored (deprecated in Curio too): the memory budget bounds the partitions synthesized at once; "
              "engine.synthesis_workers caps them"),
      ignored("pipeline", "enabled", "is ignored: synthesis and proving always overlap in cuzk",
              [](const SettingValue& v) { return v == SettingValue(true); }),
      ignored("pipeline", "synthesis_lookahead",
              "is ignored: the memory budget and engine.gpu_queue_capacity bound the partitions waiting for a GPU",
              [](const SettingValue& v) { return is_uint(v, 1); }),
      ignored("pipeline", "synthesis_concurrency",
              "is ignored: the memory budget and engine.synthesis_workers bound the syntheses running at once",
              [](const SettingValue& v) { return is_uint(v, 1); }),
      same("pipeline", "max_parallel_synthesis", "engine.synthesis_workers",
           "0 means automatic here (a quarter of the cores, 2 to 16), not Curio's 18"),
      ignored("pipeline", "slot_size", "is ignored: the memory budget bounds the partitions in flight",
              [](const SettingValue& v) { return is_uint(v, 0); }),
      ignored("pipeline", "max_gpu_queue_depth",
              "is ignored: engine.gpu_queue_capacity bounds the synthesized partitions waiting for a GPU (the budget "
              "is the real bound)",
              [](const SettingValue& v) { return is_uint(v, 0); }),
      same("logging", "level", "daemon.log_level"),
      same("logging", "format", "daemon.log_format"),
  };
}

}  // namespace

const std::vector<ForeignKey>& foreign_keys() {
  static const std::vector<ForeignKey> keys = make_foreign_keys();
  return keys;
}

const ForeignKey* find_foreign_key(std::string_view section, std::string_view key) {
  for (const ForeignKey& f : foreign_keys()) {
    if (f.section == section && f.key == key) return &f;
  }
  return nullptr;
}

}  // namespace cuzk::server
