#include "cli/client_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cuzk::cli {

std::string read_file(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(std::string("cannot read the ") + what + " " + path + ": " + std::strerror(errno));
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad())
    throw std::runtime_error(std::string("cannot read the ") + what + " " + path + ": " + std::strerror(errno));
  return std::move(s).str();
}

bool write_file(const std::string& path, const std::string& bytes, std::string& error) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      error = "cannot open " + tmp + ": " + std::strerror(errno);
      return false;
    }
    f.write(bytes.data(), std::streamsize(bytes.size()));
    if (!f.flush()) {
      error = "cannot write " + tmp + ": " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace cuzk::cli
