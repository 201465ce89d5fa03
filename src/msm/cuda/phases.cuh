// Per-phase device times of GPU MSMs, printed to stderr when asked for by set_phase_report
// (msm.hpp; cuzk-bench gpu-msm --phases): a tuning aid, off in the daemon (part of the one
// translation unit msm.cu).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;

// 0: nothing; 1: each phase of every MSM; 2: also each kernel of the partial levels and of the
// window reduction (detail marks).
std::atomic<unsigned> phase_report_level{0};

// Device events recorded on the MSM's stream at each mark, when the report is on.
class Phases {
 public:
  explicit Phases(cudaStream_t stream)
      : stream_(stream), on_(phase_report_level.load() >= 1), detail_(phase_report_level.load() >= 2) {}
  ~Phases() {
    for (auto& [name, event] : marks_) cudaEventDestroy(event);
  }
  void mark(const char* name) {
    if (!on_) return;
    cudaEvent_t event;
    check(cudaEventCreate(&event), "cudaEventCreate");
    check(cudaEventRecord(event, stream_), "cudaEventRecord");
    marks_.emplace_back(name, event);
  }
  void detail(const char* name) {
    if (detail_) mark(name);
  }
  void print(size_t count, unsigned c) const {
    if (!on_ || marks_.size() < 2) return;
    std::fprintf(stderr, "gpu msm n=%zu c=%u:", count, c);
    for (size_t i = 1; i < marks_.size(); i++) {
      float ms = 0;
      cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second);
      std::fprintf(stderr, " %s %.2f", marks_[i].first, ms);
    }
    std::fprintf(stderr, " ms\n");
  }

 private:
  cudaStream_t stream_;
  bool on_;
  bool detail_;
  std::vector<std::pair<const char*, cudaEvent_t>> marks_;
};

}  // namespace
}  // namespace cuzk::msm::cuda
