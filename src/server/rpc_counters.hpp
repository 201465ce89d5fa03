// Calls served per method and status code, for the cuzk_rpc_requests_total metric.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuzk::server {

class RpcCounters {
 public:
  struct Row {
    std::string method, code;
    uint64_t count;
  };
  void record(std::string_view method, std::string_view code) {
    std::lock_guard lock(mutex_);
    ++counts_[{std::string(method), std::string(code)}];
  }
  std::vector<Row> rows() const {
    std::lock_guard lock(mutex_);
    std::vector<Row> out;
    for (const auto& [key, n] : counts_) out.push_back({key.first, key.second, n});
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, uint64_t> counts_;
};

}  // namespace cuzk::server
