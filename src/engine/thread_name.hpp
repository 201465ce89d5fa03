// Names the calling thread after its worker (stages.hpp), so that top, gdb and perf show the
// same names as the logs and the timeline. Linux keeps the first 15 characters.
#pragma once

#include <pthread.h>
#include <string>

namespace cuzk::engine {

inline void name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace cuzk::engine
