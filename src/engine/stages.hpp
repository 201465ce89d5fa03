// The stages of a partition's way through the engine, declared once. Each stage's name is what
// the logs, the status document (a partition's "stage"), the metrics' `stage` label and the
// timeline call it; the table also says which file runs it, what the partition holds there,
// which worker runs it (threads and timeline tracks are named "<worker>-N", and the urgent jobs'
// synthesis worker "urgent-synth") and which phase histogram times it. docs/ARCHITECTURE.md ("Engine") prints the same
// table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cuzk::engine {

// The buffer tracker's stages come first: its counters are arrays indexed by them. In the
// others a partition holds no buffer counted apart (it waits, or its bytes stay counted in the
// tracked stage it came from).
enum class Stage : uint8_t {
  kSynthRunning,
  kSynthDoneWaitingGpu,
  kOnGpu,
  kAbcFreed,
  kFinalizingBG2,
  kDeallocPending,
  kQueued,
  kWaitingBudget,
  kWaitingPermit,
  kLoadingParameters,
  kVerifying,
  kCount,
};
inline constexpr size_t kTrackedStageCount = size_t(Stage::kDeallocPending) + 1;
inline constexpr size_t kStageCount = size_t(Stage::kCount);

// The threads that run stages; a worker's thread and timeline track are "<name>-N" ("gpu-"
// adds the device: "gpu-cuda:0-0"), and the metrics' workers{kind} label is the name.
enum class Worker : uint8_t { kNone, kSynthesis, kGpu, kFinalizer, kDealloc };
constexpr const char* worker_name(Worker w) {
  constexpr const char* names[] = {"", "synthesis", "gpu", "finalizer", "dealloc"};
  return names[size_t(w)];
}

// The histograms of time spent (the metrics' `phase` label): per partition, except kTotal (per
// job, submission to end). Several stages may count in one phase (queue_wait: until admitted).
enum class Phase : uint8_t { kQueueWait, kParamLoad, kSynthesis, kGpu, kFinalize, kVerify, kTotal, kNone };
inline constexpr size_t kPhaseCount = size_t(Phase::kNone);
constexpr const char* phase_name(Phase p) {
  constexpr const char* names[] = {"queue_wait", "param_load", "synthesis", "gpu", "finalize", "verify", "total", ""};
  return names[size_t(p)];
}

struct StageInfo {
  const char* name;
  const char* file;   // src/engine/ file that moves a partition into the stage
  const char* holds;  // what a partition holds there
  Worker worker;      // who runs it (kNone: a queue)
  Phase phase;        // the histogram its time counts in
  const char* span;   // the timeline span of its work ("" when it has none)
};

inline constexpr std::array<StageInfo, kStageCount> kStages = {{
    {"synth_running", "synthesis_worker.cpp",
     "its reservation: the assignment being synthesized and the circuit's scratch", Worker::kSynthesis,
     Phase::kSynthesis, "synthesize"},
    {"synth_done_waiting_gpu", "synthesis_worker.cpp",
     "the assignment (a/b/c, with the backend's compact copies; aux, inputs, densities), in the GPU queue",
     Worker::kNone, Phase::kNone, ""},
    {"on_gpu", "gpu_worker.cpp", "the assignment while prove_start runs; a/b/c leave for dealloc_pending when released",
     Worker::kGpu, Phase::kGpu, "prove_start"},
    {"abc_freed", "gpu_worker.cpp", "aux, inputs and densities (a/b/c are gone), in the finalizer queue", Worker::kNone,
     Phase::kNone, ""},
    {"finalizing_b_g2", "finalizer_worker.cpp", "aux, inputs and densities while prove_finish runs", Worker::kFinalizer,
     Phase::kFinalize, "prove_finish"},
    {"dealloc_pending", "admission.cpp", "buffers handed to the deallocation thread, until freed", Worker::kDealloc,
     Phase::kNone, ""},
    {"queued", "engine.cpp", "nothing (the job's input is charged per job), in the admission queue", Worker::kNone,
     Phase::kQueueWait, ""},
    {"waiting_budget", "admission.cpp", "nothing: it waits for its reservation from the budget", Worker::kSynthesis,
     Phase::kQueueWait, ""},
    {"waiting_permit", "admission.cpp", "nothing: it waits for a permit (the semaphore comparison policies)",
     Worker::kSynthesis, Phase::kQueueWait, ""},
    {"loading_parameters", "synthesis_worker.cpp", "its reservation, while its parameter set is acquired",
     Worker::kSynthesis, Phase::kParamLoad, ""},
    {"verifying", "finalizer_worker.cpp", "as finalizing_b_g2 (counted there), while the proof is verified",
     Worker::kFinalizer, Phase::kVerify, "verify"},
}};

// A row left out would leave the last stages nameless.
static_assert(
    [] {
      for (const StageInfo& s : kStages) {
        if (s.name == nullptr || *s.name == 0) return false;
      }
      return true;
    }(),
    "every Stage has its row in kStages");

constexpr const StageInfo& stage_info(Stage s) { return kStages[size_t(s)]; }
constexpr const char* stage_name(Stage s) { return stage_info(s).name; }
constexpr bool tracked(Stage s) { return size_t(s) < kTrackedStageCount; }

}  // namespace cuzk::engine
