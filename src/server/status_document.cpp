#include "server/status_document.hpp"

#include <nlohmann/json.hpp>

namespace cuzk::server {

std::string status_document(const engine::EngineSnapshot& s, const DaemonMetrics& d) {
  nlohmann::json doc = nlohmann::json::parse(engine::snapshot_to_json(s));
  nlohmann::json rpc = nlohmann::json::object();
  for (const RpcCounters::Row& r : d.rpc) rpc[r.method][r.code] = r.count;
  doc["daemon"] = {{"draining", d.draining},
                   {"jobs_tracked", d.jobs_tracked},
                   {"rpc_requests", rpc},
                   {"listener",
                    {{"address", d.listener.address},
                     {"tls", d.listener.tls},
                     {"client_certificates", d.listener.client_certificates},
                     {"insecure", d.listener.insecure}}}};
  return doc.dump(2) + "\n";
}

}  // namespace cuzk::server
