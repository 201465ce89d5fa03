// Linked into every program of the ThreadSanitizer build (CUZK_SANITIZE=thread, CMakeLists.txt).
// Debian's oneTBB is not instrumented: a task handed to a TBB worker, and the join at the end of
// a parallel loop, synchronise through atomics inside libtbb.so that TSan cannot see, so every
// access in a task would be reported as a race with the thread that spawned or waited for it.
// Without workers each parallel loop runs on the thread that called it, which TSan sees whole;
// the races between the program's own threads (engine, daemon, gRPC handlers) stay checked.
#include <tbb/global_control.h>

namespace {

const tbb::global_control no_tbb_workers(tbb::global_control::max_allowed_parallelism, 1);

}  // namespace
