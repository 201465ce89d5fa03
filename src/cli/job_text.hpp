// How the client writes a job's state and timings.
#pragma once

#include <nlohmann/json.hpp>

#include "cuzk/v1/proving.pb.h"

namespace cuzk::cli {

const char* state_name(cuzk::v1::JobState s);
nlohmann::json timings_json(const cuzk::v1::Timings& t);

}  // namespace cuzk::cli
