// Host memory: the large buffers (a/b/c, aux, densities, parameters) are allocated so that
// freeing them returns the memory to the operating system at once, and the process RSS
// follows the buffer tracker instead of lingering in allocator arenas.
#pragma once

#include <cstddef>

namespace cuzk::engine {

// Every allocation of at least threshold_bytes is its own mmap (munmap on free). Process-wide;
// the engine sets it at construction.
void use_mmap_for_large_buffers(size_t threshold_bytes = size_t(1) << 20);

}  // namespace cuzk::engine
