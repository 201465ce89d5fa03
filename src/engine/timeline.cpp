#include "engine/timeline.hpp"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace cuzk::engine {

Timeline::Timeline(const std::string& path) : start_(Clock::now()) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw std::runtime_error("timeline: cannot create " + path + ": " + std::strerror(errno));
  std::fputs("[\n", file_);
}

Timeline::~Timeline() {
  std::lock_guard lock(mutex_);
  std::fputs("\n]\n", file_);
  std::fclose(file_);
}

double Timeline::micros(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - start_).count();
}

void Timeline::write_event_locked(const std::string& json) {
  if (!first_) std::fputs(",\n", file_);
  first_ = false;
  std::fputs(json.c_str(), file_);
}

int Timeline::track_id_locked(const std::string& track) {
  auto [it, inserted] = tracks_.try_emplace(track, int(tracks_.size()) + 1);
  if (inserted) {
    nlohmann::json meta = {
        {"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", it->second}, {"args", {{"name", track}}}};
    write_event_locked(meta.dump());
    nlohmann::json order = {{"name", "thread_sort_index"},
                            {"ph", "M"},
                            {"pid", 1},
                            {"tid", it->second},
                            {"args", {{"sort_index", it->second}}}};
    write_event_locked(order.dump());
  }
  return it->second;
}

void Timeline::span(const std::string& track, const std::string& name, Clock::time_point start, Clock::time_point end,
                    const std::vector<std::pair<std::string, double>>& args) {
  std::lock_guard lock(mutex_);
  nlohmann::json e = {{"name", name},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", track_id_locked(track)},
                      {"ts", micros(start)},
                      {"dur", micros(end) - micros(start)}};
  for (const auto& [k, v] : args) e["args"][k] = v;
  write_event_locked(e.dump());
  std::fflush(file_);
}

void Timeline::counter(const std::string& name, const std::vector<std::pair<std::string, double>>& values) {
  std::lock_guard lock(mutex_);
  nlohmann::json args = nlohmann::json::object();
  for (const auto& [k, v] : values) args[k] = v;
  nlohmann::json e = {{"name", name}, {"ph", "C"}, {"pid", 1}, {"ts", micros(Clock::now())}, {"args", args}};
  write_event_locked(e.dump());
}

}  // namespace cuzk::engine
