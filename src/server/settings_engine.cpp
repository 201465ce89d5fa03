// The settings table's [engine] section: memory, workers, devices, admission and priorities.
#include "server/setting_builders.hpp"

namespace cuzk::server {

void setting_builders::add_engine_settings(std::vector<Setting>& t) {
  using engine::BackendKind;
  using engine::EngineConfig;
  using engine::Policy;
  t.push_back(size("engine", "budget", "--budget", field(&EngineConfig::budget_bytes),
                   "Host-memory budget for partition buffers and resident parameters; 0 or \"auto\": MemTotal minus "
                   "safety_margin"));
  t.back().auto_is_zero = true;
  t.push_back(size("engine", "safety_margin", "--safety-margin", field(&EngineConfig::safety_margin_bytes),
                   "Memory kept free when the budget is automatic"));
  t.push_back(count("engine", "synthesis_workers", "--synthesis-workers", field(&EngineConfig::synthesis_workers), 0,
                    4096,
                    "Partitions synthesized at once at most (the budget may allow fewer); 0: a quarter of the "
                    "cores, 2 to 16"));
  t.push_back(choice("engine", "backend", "--backend", field(&EngineConfig::backend), &engine::backend_name,
                     &engine::parse_backend, {BackendKind::kAuto, BackendKind::kCpu, BackendKind::kCuda},
                     "Prover backend: auto (CUDA when built and a device is present), cpu or cuda"));
  Setting devices = base("engine", "devices", "--devices", SettingKind::kDevices,
                         "CUDA devices to use, e.g. [0, 1] (flag: 0,1); empty: all visible");
  devices.max = 1023;
  devices.get = [](const DaemonConfig& c) { return SettingValue(c.engine.devices); };
  devices.set = [](DaemonConfig& c, const SettingValue& v) { c.engine.devices = std::get<std::vector<int>>(v); };
  t.push_back(devices);
  t.push_back(count("engine", "gpu_workers_per_device", "--gpu-workers-per-device",
                    field(&EngineConfig::gpu_workers_per_device), 1, 64, "GPU workers per device"));
  t.push_back(count("engine", "gpu_h_copies", "--gpu-h-copies", field(&EngineConfig::gpu_h_copies), 0, 64,
                    "Precomputed copies of H's bases on each device: 0 as many as device memory allows, 1 none, k "
                    "at most k"));
  t.push_back(size("engine", "device_memory_limit", "--device-memory-limit", field(&EngineConfig::device_memory_limit),
                   "Device memory each GPU's plan uses (proof buffers, then bases, which are streamed from host "
                   "memory when they do not fit, then copies); 0: the whole card"));
  t.push_back(toggle("engine", "release_host_parameters", "--release-host-parameters",
                     field(&EngineConfig::release_host_parameters),
                     "With one GPU: give a parameter set's host copy back to the OS once the device holds all its "
                     "bases (written back from the device when needed), so the set takes host memory once"));
  t.push_back(count("engine", "kept_witnesses", "--kept-witnesses", field(&EngineConfig::kept_witnesses), 0, 64,
                    "Witness-only partitions' aux memory kept (page-locked, with CUDA) for the next synthesis of "
                    "the shape, so that a witness is not mapped and page-locked anew each partition; charged to the "
                    "budget, freed when room is needed or no job is left; 0: none (budget policy only)"));
  t.push_back(count("engine", "finalizer_threads", "--finalizer-threads", field(&EngineConfig::finalizer_threads), 1,
                    1024, "Finalizer threads (B-in-G2 tail, proof assembly, verification)"));
  t.push_back(count("engine", "gpu_queue_capacity", "--gpu-queue-capacity", field(&EngineConfig::gpu_queue_capacity), 1,
                    UINT32_MAX, "Synthesized partitions that may wait for a GPU worker"));
  t.push_back(count("engine", "max_queued_partitions", "--max-queued-partitions",
                    field(&EngineConfig::max_queued_partitions), 1, UINT32_MAX,
                    "Partitions queued across all jobs before the engine says busy; at least max_partitions_per_job"));
  t.push_back(count("engine", "max_partitions_per_job", "--max-partitions-per-job",
                    field(&EngineConfig::max_partitions_per_job), 1, UINT32_MAX, "Partitions one job may have"));
  t.push_back(choice("engine", "policy", "--policy", field(&EngineConfig::policy), &engine::policy_name,
                     &engine::parse_policy,
                     {Policy::kBudget, Policy::kSemaphoreReleaseAfterSynth, Policy::kSemaphoreHoldUntilDelivered,
                      Policy::kChannelCapacityWorkers},
                     "Admission policy; only budget bounds host memory: the others reproduce earlier designs' "
                     "out-of-memory behaviour for comparison and are refused unless allow_comparison_policies is "
                     "on"));
  t.push_back(count("engine", "urgent_priority", "--urgent-priority", field(&EngineConfig::urgent_priority), 1,
                    1'000'000,
                    "Jobs of this priority or higher are urgent (priority level x 1000 + offset: CRITICAL, "
                    "WinningPoSt's default, is 4000): a synthesis worker of their own, admitted at once, the head "
                    "of the GPU queue"));
  t.push_back(choice("engine", "urgent_admission", "--urgent-admission", field(&EngineConfig::urgent_admission),
                     &engine::urgent_admission_name, &engine::parse_urgent_admission,
                     {engine::UrgentAdmission::kBeside, engine::UrgentAdmission::kReserve},
                     "How urgent jobs take host memory: beside (charged beyond the budget when it is full; other "
                     "work loses nothing) or reserve (other work leaves urgent_reserve of the budget free)"));
  t.push_back(size("engine", "urgent_reserve", "--urgent-reserve", field(&EngineConfig::urgent_reserve_bytes),
                   "With urgent_admission = reserve: the budget other work leaves free for urgent jobs (a 32 GiB "
                   "WinningPoSt partition holds about 0.12 GiB, its parameters 0.18 GiB)"));
  t.push_back(
      size("engine", "urgent_lane_memory", "--urgent-lane-memory", field(&EngineConfig::urgent_lane_memory),
           "With CUDA: device memory of the first GPU set aside for urgent jobs' own prover (streams of "
           "the greatest priority), so that a WinningPoSt is proved beside a partition's prove_start, not "
           "after it; the GPU's own prover plans with the rest. 0 (the default): no lane (urgent partitions wait "
           "for the GPU's current one). A 32 GiB WinningPoSt needs 2 GiB; on an 80 GB card that leaves a 32 "
           "GiB C2 no room for its witness path (it goes by full synthesis), so use it where the card has "
           "room beside the largest set"));
  t.push_back(toggle("engine", "allow_comparison_policies", "--allow-comparison-policies",
                     field(&DaemonConfig::allow_comparison_policies),
                     "Accept a comparison policy (any but budget) in this daemon; for measurements only: it does not "
                     "bound host memory (cuzk-bench pipeline --policy compares them)"));
  t.push_back(text("engine", "param_cache_dir", "--param-cache-dir", field(&EngineConfig::param_cache_dir),
                   "Directory of parameters of our own setup: synthetic circuits', and Filecoin circuits' TEST "
                   "parameters (srs.allow_test_parameters); compiled circuits go to its compiled/ folder. auto: "
                   "/var/cache/cuzk/params for root, else $XDG_CACHE_HOME/cuzk/params (~/.cache/cuzk/params)"));
  t.push_back(choice("engine", "witness_synthesis", "--witness-synthesis", field(&EngineConfig::witness_synthesis),
                     &engine::witness_synthesis_name, &engine::parse_witness_synthesis,
                     {engine::WitnessSynthesis::kAuto, engine::WitnessSynthesis::kOn, engine::WitnessSynthesis::kOff},
                     "Synthesize the witness only and make a/b/c on the GPU from each circuit's compiled matrices "
                     "(recorded once into param_cache_dir/compiled): auto (when every device is a GPU), on, or off "
                     "(a/b/c on the host, as before); on with the CPU backend makes a/b/c in its prover"));
  t.push_back(toggle("engine", "allow_synthetic_setup", "--synthetic-setup",
                     field(&EngineConfig::allow_synthetic_setup),
                     "Set up missing parameters of synthetic circuits (demo and benchmark jobs)"));
  t.push_back(toggle("engine", "verify_before_return", "--verify", field(&EngineConfig::verify_before_return),
                     "Verify every proof before returning it"));
  t.push_back(text("engine", "timeline_path", "--timeline", field(&EngineConfig::timeline_path),
                   "Write a Chrome-trace timeline (Perfetto) of the pipeline to this file; empty: none"));
  t.push_back(toggle("engine", "log_events", "--log-events", field(&EngineConfig::log_events),
                     "Log one line per buffer-tracker event (info level)"));
  t.push_back(count("engine", "cpu_threads", "--cpu-threads", field(&EngineConfig::cpu_threads), 0, 4096,
                    "Threads of the CPU prover and of each synthesis' inner parallelism; 0: all cores"));
}

}  // namespace cuzk::server
