// Host memory facts and the allocator setting that makes freed buffers leave the process.
#include "engine/host_memory.hpp"

#include <cstdio>
#include <cstring>
#include <malloc.h>

#include "engine/config.hpp"

namespace cuzk::engine {

uint64_t host_memory_total() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "MemTotal: %lu kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib * 1024;
}

void use_mmap_for_large_buffers(size_t threshold_bytes) {
  // A fixed threshold also turns off glibc's dynamic one, which would otherwise rise after
  // the first large free and keep later buffers in the heap, where freeing them does not
  // lower the RSS.
  mallopt(M_MMAP_THRESHOLD, int(threshold_bytes));
  mallopt(M_TRIM_THRESHOLD, int(2 * threshold_bytes));
}

}  // namespace cuzk::engine
