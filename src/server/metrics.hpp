// The Prometheus text exposition (format 0.0.4) of the engine's snapshot and the daemon's own
// counters, written here because prometheus-cpp is not packaged for Debian 12.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "server/rpc_counters.hpp"

namespace cuzk::server {

struct DaemonMetrics {
  std::vector<RpcCounters::Row> rpc;
  bool draining = false;
  size_t jobs_tracked = 0;  // accepted and not yet delivered
};

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string render_prometheus(const engine::EngineSnapshot& s, const DaemonMetrics& d);
// A label value with \, " and newline escaped as the format requires.
std::string escape_label_value(std::string_view v);

}  // namespace cuzk::server
