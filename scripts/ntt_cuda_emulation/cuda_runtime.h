// Host emulation of the CUDA runtime subset that src/ntt/cuda/ntt.cu uses, for running its
// kernels on a machine without a GPU (scripts/ntt_cuda_emulation/run.py). Kernels run block
// after block; each block's threads are std::threads meeting at a std::barrier for
// __syncthreads, and __shared__ arrays are statics (one block at a time). Only
// emu_threads (EMU_THREADS, default 4) threads per block run: the kernels stride by
// blockDim, so this checks the index and twiddle logic, not races, PTX or launch limits.
// Warp votes are not emulated: expand_zero_one's kernel aborts (filter its test out).
#pragma once
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
typedef int cudaError_t;
enum { cudaSuccess = 0 };
typedef void* cudaStream_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize };
inline cudaError_t cudaGetLastError() { return 0; }
inline const char* cudaGetErrorName(cudaError_t) { return "emu"; }
inline const char* cudaGetErrorString(cudaError_t) { return "emu"; }
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return 0;
}
inline cudaError_t cudaMalloc(void** p, size_t b) {
  *p = std::aligned_alloc(256, (b + 255) / 256 * 256);
  return 0;
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return 0;
}
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t b, cudaMemcpyKind) {
  std::memcpy(d, s, b);
  return 0;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t b, cudaMemcpyKind, cudaStream_t) {
  std::memcpy(d, s, b);
  return 0;
}
inline cudaError_t cudaMemset(void* d, int v, size_t b) {
  std::memset(d, v, b);
  return 0;
}
inline cudaError_t cudaMemsetAsync(void* d, int v, size_t b, cudaStream_t) { return cudaMemset(d, v, b); }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
inline cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return 0;
}
inline cudaError_t cudaSetDevice(int) { return 0; }
template <class F>
cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) {
  return 0;
}
struct uint4 {
  unsigned x, y, z, w;
};
struct EmuDim {
  unsigned x = 0, y = 1, z = 1;
};
inline thread_local EmuDim threadIdx;
inline EmuDim blockIdx, blockDim, gridDim;
inline std::barrier<>* emu_barrier;
inline void __syncthreads() { emu_barrier->arrive_and_wait(); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline unsigned __ballot_sync(unsigned, bool) {
  std::fprintf(stderr, "ntt_cuda_emulation: warp votes are not emulated\n");
  std::abort();
}
inline unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; i++) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
inline std::vector<uint4> emu_smem(1 << 13);
inline unsigned emu_threads = std::getenv("EMU_THREADS") ? unsigned(std::atoi(std::getenv("EMU_THREADS"))) : 4u;
template <class... P, class Cfg, class... A>
void emu_launch(void (*k)(P...), Cfg cfg, A... a) {
  const unsigned grid = unsigned(std::get<0>(cfg));
  gridDim.x = grid;
  blockDim.x = std::min<unsigned>(unsigned(std::get<1>(cfg)), emu_threads);
  for (unsigned b = 0; b < grid; b++) {
    blockIdx.x = b;
    std::barrier<> bar(blockDim.x);
    emu_barrier = &bar;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < blockDim.x; t++)
      ts.emplace_back([&, t] {
        threadIdx.x = t;
        k(a...);
        bar.arrive_and_drop();
      });
    for (auto& t : ts) t.join();
  }
}
