// The daemon's resident parameter sets: `cuzk preload` and `cuzk evict`.
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <iostream>

#include "cli/client.hpp"
#include "cli/exit_codes.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;

int Client::preload(const std::string& param_id, const ProofArgs& c, bool from_circuit) {
  v1::PreloadParamsRequest req;
  req.set_param_id(param_id);
  if (from_circuit) {
    req.mutable_synthetic()->set_constraints(c.constraints);
    req.mutable_synthetic()->set_public_inputs(c.public_inputs);
    req.mutable_synthetic()->set_seed(c.seed);
  }
  v1::PreloadParamsResponse resp;
  grpc::ClientContext ctx;  // no deadline: generating large synthetic parameters takes long
  grpc::Status s = stub_->PreloadParams(&ctx, req, &resp);
  if (!s.ok()) return fail("preload", s);
  std::cout << fmt::format("{}: resident ({:.1f} MiB in host memory)\n", resp.param_id(),
                           double(resp.host_bytes()) / (1 << 20));
  return kOk;
}

int Client::evict(const std::string& param_id) {
  v1::EvictParamsRequest req;
  req.set_param_id(param_id);
  v1::EvictParamsResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->EvictParams(ctx.get(), req, &resp);
  if (!s.ok()) return fail("evict " + param_id, s);
  std::cout << param_id << ": " << (resp.evicted() ? "evicted" : "was not resident") << "\n";
  return kOk;
}

}  // namespace cuzk::cli
