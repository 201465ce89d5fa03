// The /status JSON document: the engine's snapshot (engine::snapshot_to_json) with a "daemon"
// object added (draining, jobs awaiting delivery, RPC counts).
#pragma once

#include <string>

#include "engine/engine.hpp"
#include "server/metrics.hpp"

namespace cuzk::server {

std::string status_document(const engine::EngineSnapshot& s, const DaemonMetrics& d);

}  // namespace cuzk::server
