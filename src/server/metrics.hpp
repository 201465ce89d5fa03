// The Prometheus text exposition (format 0.0.4) of the engine's snapshot and the daemon's own
// counters, made with prometheus-cpp (its registry checks names and labels, its text serializer
// writes the format); served by the HTTP status port and GetMetrics.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "server/rpc_counters.hpp"

namespace cuzk::server {

// The gRPC listener as the daemon serves it: its address and protection. insecure: plain TCP on an
// address other machines may reach (allowed when configured, since Curio's client cannot speak
// TLS; logged, shown and exported so that it is never unnoticed).
struct ListenerInfo {
  std::string address;
  bool tls = false, client_certificates = false, insecure = false;
};

struct DaemonMetrics {
  std::vector<RpcCounters::Row> rpc;
  bool draining = false;
  size_t jobs_tracked = 0;  // accepted and not yet delivered
  ListenerInfo listener;
};

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string render_prometheus(const engine::EngineSnapshot& s, const DaemonMetrics& d);

}  // namespace cuzk::server
