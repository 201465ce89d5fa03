// The client's input and output files.
#pragma once

#include <string>

namespace cuzk::cli {

// The whole file; throws std::runtime_error naming it and the reason.
std::string read_file(const std::string& path, const char* what);
// Writes through a temporary file and a rename, so a reader never sees half a proof.
bool write_file(const std::string& path, const std::string& bytes, std::string& error);

}  // namespace cuzk::cli
