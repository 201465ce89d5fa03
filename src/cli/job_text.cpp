#include "cli/job_text.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;

const char* state_name(v1::JobState s) {
  switch (s) {
    case v1::JOB_STATE_QUEUED:
      return "queued";
    case v1::JOB_STATE_RUNNING:
      return "running";
    case v1::JOB_STATE_SUCCEEDED:
      return "succeeded";
    case v1::JOB_STATE_FAILED:
      return "failed";
    case v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

nlohmann::json timings_json(const v1::Timings& t) {
  return {
      {"queue_wait", t.queue_wait()}, {"param_load", t.param_load()}, {"synthesis", t.synthesis()}, {"gpu", t.gpu()},
      {"finalize", t.finalize()},     {"verify", t.verify()},         {"total", t.total()}};
}

}  // namespace cuzk::cli
