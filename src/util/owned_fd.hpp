// A file descriptor closed when its owner goes: a member's descriptor is closed also when the
// owner's constructor throws after opening it, and a local's on every return and throw.
#pragma once

#include <unistd.h>

namespace cuzk {

struct OwnedFd {
  int fd = -1;
  OwnedFd() = default;
  OwnedFd(const OwnedFd&) = delete;  // one owner: a copy would close it twice
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace cuzk
