// The error every snarkjs reader throws: a malformed, truncated or unsupported file or JSON
// document. Messages name the file and where in it (section and offset, or JSON path).
#pragma once

#include <stdexcept>

namespace cuzk::snarkjs {

class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cuzk::snarkjs
