// Fuzz target: a SubmitProofRequest as it arrives on the wire (protobuf bytes) through the
// request conversion (server/convert: kind, ids, priority, and each kind's parsing and checks of
// its Commit1 output, PoSt or SnapDeals vanilla proofs). Oracle: a request is accepted or refused
// with one of the errors the service maps to INVALID_ARGUMENT or UNIMPLEMENTED; any other
// exception would reach the client as INTERNAL, a daemon bug. An accepted job has a valid id and
// a describable input with at least one partition.
#include <cstddef>
#include <cstdint>
#include <google/protobuf/stubs/logging.h>

#include "cuzk/v1/proving.pb.h"
#include "engine/engine.hpp"
#include "fuzz_check.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "server/convert.hpp"
#include "server/status_codes.hpp"

using namespace cuzk;

namespace {
constexpr size_t kMaxPartitions = 64;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // protobuf logs every string field that is not UTF-8 (a refusal, as the daemon gives it).
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  v1::SubmitProofRequest req;
  if (!req.ParseFromArray(data, int(size))) return 0;
  engine::JobRequest job;
  try {
    job = server::to_job_request(req, kMaxPartitions);
  } catch (const server::InvalidRequest&) {
    return 0;
  } catch (const server::Unimplemented&) {
    return 0;
  } catch (const kinds::InvalidProofRequest&) {
    return 0;
  } catch (const kinds::UnsupportedProof&) {
    return 0;
  }
  server::check_request_id(job.request_id, true);  // throws (a finding) when the id is not one the engine takes
  if (job.input) {
    CUZK_FUZZ_CHECK(job.input->partitions() >= 1);
    CUZK_FUZZ_CHECK(!job.input->param_id().empty());
    CUZK_FUZZ_CHECK(!job.input->describe().empty());
  } else {
    CUZK_FUZZ_CHECK(!job.partitions.empty() && job.partitions.size() <= kMaxPartitions);
  }
  return 0;
}
