#include "cli/status_watch.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace cuzk::cli {

using nlohmann::json;

namespace {

// A partition's stages in the order it passes them (the engine's names, src/engine/stages.hpp,
// as the proto's PartitionStage lists them), each with its bar character: '#' proved (its buffers
// being freed), '=' on a GPU or being finalized, '+' synthesized and waiting for a GPU, '-'
// loading parameters or synthesizing, '.' waiting.
struct StageMark {
  const char* name;
  char mark;
};
constexpr StageMark kPipeline[] = {
    {"queued", '.'},          {"waiting_budget", '.'},
    {"waiting_permit", '.'},  {"loading_parameters", '-'},
    {"synth_running", '-'},   {"synth_done_waiting_gpu", '+'},
    {"on_gpu", '='},          {"abc_freed", '='},
    {"finalizing_b_g2", '='}, {"verifying", '='},
    {"dealloc_pending", '#'},
};
// The bar's segments from the most advanced to the least: a bar fills from the left.
constexpr char kMarkOrder[] = {'#', '=', '+', '-', '.', '?'};
// Ended jobs drawn at most (every job not ended is).
constexpr size_t kEndedShown = 5;
constexpr const char* kLegend =
    "bars: # proved  = on a GPU or finalizing  + waiting for a GPU  - synthesizing  . queued";

char stage_mark(const std::string& stage) {
  for (const StageMark& s : kPipeline)
    if (stage == s.name) return s.mark;
  return '?';  // a stage a newer daemon added
}

size_t stage_rank(const std::string& stage) {
  for (size_t i = 0; i < std::size(kPipeline); i++)
    if (stage == kPipeline[i].name) return i;
  return std::size(kPipeline);
}

// The document's values, read leniently: a missing or mistyped field is 0 or "" (a daemon of
// another version may lack one; the picture must still be drawn).
double num(const json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}
int64_t integer(const json& j, const char* key) { return int64_t(std::llround(num(j, key))); }
std::string str(const json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
const json& member(const json& j, const char* key) {
  static const json null;
  if (!j.is_object()) return null;
  auto it = j.find(key);
  return it != j.end() ? *it : null;
}
const json& array(const json& j, const char* key) {
  static const json empty = json::array();
  const json& a = member(j, key);
  return a.is_array() ? a : empty;
}
bool flag(const json& j, const char* key) {
  const json& b = member(j, key);
  return b.is_boolean() && b.get<bool>();
}

// Columns of UTF-8 text: one per character (continuation bytes take none).
size_t columns(const std::string& s) {
  return size_t(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Left-aligned in a column of `w`: cut to it when the lines have a width, else (a plain snapshot)
// kept whole, a long value pushing the rest of its line right.
std::string pad(const std::string& s, size_t w, size_t width) {
  std::string t = fit(s, width ? w : 0);
  return t + std::string(w - std::min(w, columns(t)), ' ');
}

std::string plural(int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// One job as the lines show it.
struct JobRow {
  std::string id, kind, state, error;
  bool has_priority = false, has_elapsed = false;
  int64_t priority = 0;
  uint64_t partitions = 0, ended = 0;
  double elapsed = 0;
  std::map<std::pair<size_t, std::string>, uint64_t> stages;  // partitions by (pipeline rank, stage)
};

bool job_ended(const std::string& state) { return state == "succeeded" || state == "failed" || state == "cancelled"; }

std::vector<JobRow> job_rows(const json& doc) {
  std::vector<JobRow> rows;
  if (member(doc, "job_list").is_array()) {
    for (const json& j : array(doc, "job_list")) {
      JobRow r;
      r.id = str(j, "request_id");
      r.kind = str(j, "kind");
      r.state = str(j, "state");
      r.error = str(j, "error");
      r.has_priority = r.has_elapsed = true;
      r.priority = integer(j, "priority");
      r.partitions = uint64_t(std::max<int64_t>(0, integer(j, "partitions")));
      r.ended = uint64_t(std::max<int64_t>(0, integer(j, "partitions_ended")));
      r.elapsed = num(j, "elapsed_seconds");
      const json& stages = member(j, "stages");  // its partitions not yet ended, by stage
      if (stages.is_object()) {
        for (const auto& [stage, count] : stages.items()) {
          if (count.is_number() && count.get<double>() > 0)
            r.stages[{stage_rank(stage), stage}] = uint64_t(count.get<double>());
        }
      }
      rows.push_back(std::move(r));
    }
    return rows;
  }
  // No job list (an older daemon): the jobs its partitions name, in the order they come.
  std::map<std::string, size_t> by_id;
  for (const json& p : array(doc, "partitions")) {
    const std::string id = str(p, "request_id");
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      JobRow r;
      r.id = id;
      r.kind = str(p, "kind");
      r.state = "active";
      it = by_id.emplace(id, rows.size()).first;
      rows.push_back(std::move(r));
    }
    JobRow& r = rows[it->second];
    r.partitions++;
    const std::string stage = str(p, "stage");
    r.stages[{stage_rank(stage), stage}]++;
  }
  return rows;
}

std::string job_bar(const JobRow& r, size_t cells) {
  std::map<char, uint64_t> by_mark;
  by_mark['#'] = r.ended;
  for (const auto& [stage, count] : r.stages) by_mark[stage_mark(stage.second)] += count;
  std::vector<std::pair<char, uint64_t>> segments;
  for (char m : kMarkOrder) segments.emplace_back(m, by_mark[m]);
  return progress_bar(segments, r.partitions, cells);
}

// A line, fitted, without the blanks a padded last column leaves.
void add(std::vector<std::string>& out, const std::string& line, size_t width) {
  std::string l = fit(line, width);
  l.erase(l.find_last_not_of(' ') + 1);
  out.push_back(std::move(l));
}

void summary_lines(const json& doc, size_t width, size_t bar_cells, std::vector<std::string>& out) {
  const json& daemon = member(doc, "daemon");
  const json& jobs = member(doc, "jobs");
  const json& workers = member(doc, "workers");
  add(out,
      fmt::format("daemon   {}, backend {}, policy {}, up {}; workers: {} synthesis, {} gpu, {} finalizer",
                  flag(daemon, "draining") ? "SHUTTING DOWN" : "serving", str(doc, "backend"), str(doc, "policy"),
                  human_duration(num(doc, "uptime_seconds")), integer(workers, "synthesis"), integer(workers, "gpu"),
                  integer(workers, "finalizer")),
      width);
  add(out,
      fmt::format("jobs     {} active; {} completed, {} failed, {} cancelled; {} proved", integer(jobs, "active"),
                  integer(jobs, "completed"), integer(jobs, "failed"), integer(jobs, "cancelled"),
                  plural(integer(jobs, "partitions_proved"), "partition", "partitions")),
      width);
  const json& queue = member(doc, "queue");
  add(out,
      fmt::format("queue    {} waiting for admission, {} waiting for a GPU",
                  plural(integer(queue, "queued_partitions"), "partition", "partitions"),
                  integer(queue, "gpu_queue_depth")),
      width);
  const json& budget = member(doc, "budget");
  const double total = num(budget, "total_bytes"), used = num(budget, "used_bytes");
  add(out,
      fmt::format("budget   {} {} of {} used ({:.0f}%), peak {}",
                  progress_bar({{'#', uint64_t(std::max(0.0, used))}}, uint64_t(std::max(0.0, total)), bar_cells),
                  human_bytes(used), human_bytes(total), total > 0 ? 100 * used / total : 0.0,
                  human_bytes(num(budget, "peak_used_bytes"))),
      width);
}

void device_lines(const json& doc, size_t width, size_t bar_cells, std::vector<std::string>& out) {
  const json& devices = array(doc, "devices");
  out.push_back(fit(fmt::format("DEVICES ({})", devices.size()), width));
  for (const json& d : devices) {
    const std::string job = str(d, "current_job");
    std::string line =
        fmt::format("  {:<2} {} {}", integer(d, "ordinal") < 0 ? "" : std::to_string(integer(d, "ordinal")),
                    pad(str(d, "name"), 20, width),
                    pad(job.empty() ? "idle" : "busy: " + job + " (" + str(d, "current_kind") + ")", 40, width));
    const double total = num(d, "memory_total_bytes"), free = num(d, "memory_free_bytes");
    if (total > 0) {  // the CPU backend has no device memory
      const double used = std::max(0.0, total - free);
      line += fmt::format(" memory {} {} of {} used", progress_bar({{'#', uint64_t(used)}}, uint64_t(total), bar_cells),
                          human_bytes(used), human_bytes(total));
    }
    add(out, line, width);
  }
}

void param_lines(const json& doc, size_t width, std::vector<std::string>& out) {
  const json& params = array(doc, "params");
  out.push_back(fit(fmt::format("PARAMETERS ({} resident)", params.size()), width));
  // The id's column gives way to the sizes on a narrow terminal (46 columns are the rest).
  const size_t id_w = width ? std::clamp<size_t>(width > 46 ? width - 46 : 0, 16, 40) : 40;
  for (const json& p : params) {
    // No device bytes (null): several sets are resident, and the backends count per device.
    const json& device = member(p, "device_bytes");
    add(out,
        fmt::format("  {} host {:>10}  device {:>10}  {}", pad(str(p, "param_id"), id_w, width),
                    human_bytes(num(p, "host_bytes")), device.is_number() ? human_bytes(device.get<double>()) : "-",
                    flag(p, "in_use") ? "in use" : "idle"),
        width);
  }
}

void buffer_lines(const json& doc, size_t width, std::vector<std::string>& out) {
  const json& b = member(doc, "buffers");
  add(out,
      fmt::format("BUFFERS  tracked {} (peak {}); inputs {} in {}", human_bytes(num(b, "tracked_bytes")),
                  human_bytes(num(b, "peak_tracked_bytes")), human_bytes(num(b, "input_bytes")),
                  plural(integer(b, "input_jobs"), "job", "jobs")),
      width);
  add(out,
      fmt::format("  parameters {} host, {} device; process RSS {} (peak {})",
                  human_bytes(num(b, "parameters_host_bytes")), human_bytes(num(b, "parameters_device_bytes")),
                  human_bytes(num(b, "rss_bytes")), human_bytes(num(b, "peak_rss_bytes"))),
      width);
  // Bytes by class over every stage, then each stage holding something, with its classes.
  std::vector<std::pair<std::string, double>> by_class;
  std::vector<std::string> stage_rows;
  const json& stages = member(b, "stages");
  if (stages.is_object()) {
    std::vector<std::pair<size_t, std::string>> ordered;
    for (const auto& [name, s] : stages.items()) ordered.emplace_back(stage_rank(name), name);
    std::sort(ordered.begin(), ordered.end());
    for (const auto& [rank, name] : ordered) {
      const json& s = stages[name];
      std::string classes;
      const json& bytes = member(s, "bytes");
      if (bytes.is_object()) {
        for (const auto& item : bytes.items()) {
          const std::string& cls = item.key();  // not a structured binding: clang 14 cannot capture one
          const json& v = item.value();
          const double n = v.is_number() ? v.get<double>() : 0;
          auto it = std::find_if(by_class.begin(), by_class.end(), [&](const auto& c) { return c.first == cls; });
          if (it == by_class.end()) it = by_class.insert(by_class.end(), {cls, 0.0});
          it->second += n;
          if (n != 0) classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", cls, human_bytes(n));
        }
      }
      const int64_t parts = integer(s, "partitions");
      if (parts == 0 && classes.empty()) continue;
      stage_rows.push_back(fmt::format("  {:<24}{:>14}  {:>10}  {}", name, plural(parts, "partition", "partitions"),
                                       human_bytes(num(s, "total_bytes")), classes));
    }
  }
  std::string classes;
  for (const auto& [cls, n] : by_class)
    if (n != 0) classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", cls, human_bytes(n));
  add(out, "  by class: " + (classes.empty() ? std::string("-") : classes), width);
  if (stage_rows.empty()) add(out, "  no partition holds buffers", width);
  for (const std::string& row : stage_rows) add(out, row, width);
}

void job_lines(const json& doc, size_t width, std::vector<std::string>& out) {
  std::vector<JobRow> rows = job_rows(doc);
  out.push_back(fit(fmt::format("JOBS ({})", rows.size()), width));
  if (rows.empty()) {
    add(out, "  none", width);
    return;
  }
  // Every job not ended, and the first kEndedShown ended ones (the document lists the latest
  // ended first): the daemon keeps 32 ended jobs, which would push the rest off a terminal.
  size_t ended_seen = 0;
  std::erase_if(rows, [&](const JobRow& r) { return job_ended(r.state) && ended_seen++ >= kEndedShown; });
  const size_t left_out = ended_seen > kEndedShown ? ended_seen - kEndedShown : 0;
  const size_t layout = width ? width : 100;
  size_t id_w = 7, kind_w = 4, count_w = 3;
  for (const JobRow& r : rows) {
    id_w = std::max(id_w, columns(r.id));
    kind_w = std::max(kind_w, columns(r.kind));
    count_w = std::max(count_w, fmt::format("{}/{}", r.ended, r.partitions).size());
  }
  id_w = std::min(id_w, std::max<size_t>(12, layout / 4));
  kind_w = std::min<size_t>(kind_w, 14);
  // request kind priority state [bar] n/m elapsed, with two spaces between.
  const size_t fixed = 2 + id_w + 2 + kind_w + 2 + 10 + 2 + 9 + 2 + 2 + 1 + count_w + 2 + 8;
  const size_t cells = std::clamp<size_t>(layout > fixed ? layout - fixed : 0, 10, 50);
  add(out,
      fmt::format("  {}  {}  {:<10}  {:<9}  {}  {}", pad("REQUEST", id_w, width), pad("KIND", kind_w, width),
                  "PRIORITY", "STATE", pad("PARTITIONS", cells + 3 + count_w, width), "ELAPSED"),
      width);
  for (const JobRow& r : rows) {
    add(out,
        fmt::format("  {}  {}  {:<10}  {:<9}  {} {:>{}}  {:>8}", pad(r.id, id_w, width), pad(r.kind, kind_w, width),
                    r.has_priority ? priority_text(r.priority) : "?", pad(r.state, 9, width), job_bar(r, cells),
                    fmt::format("{}/{}", r.ended, r.partitions), count_w,
                    r.has_elapsed ? human_duration(r.elapsed) : "?"),
        width);
    std::string stages;
    for (const auto& [stage, count] : r.stages)
      stages += fmt::format("{}{} {}", stages.empty() ? "" : ", ", stage.second, count);
    if (!stages.empty()) add(out, "      " + stages, width);
    if (!r.error.empty()) add(out, "      error: " + r.error, width);
  }
  if (left_out)
    add(out,
        fmt::format("  ... {} earlier ended {} (cuzk status --json lists them)", left_out,
                    left_out == 1 ? "job" : "jobs"),
        width);
  add(out, std::string("  ") + kLegend, width);
}

}  // namespace

std::string fit(const std::string& text, size_t width) {
  std::string s = text;
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = (c == '\n' || c == '\t' || c == '\r') ? ' ' : '?';
  }
  if (width == 0 || columns(s) <= width) return s;
  const size_t keep = width > 3 ? width - 3 : width;
  size_t cols = 0, i = 0;
  for (; i < s.size(); i++) {
    const bool starts = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    if (starts && cols++ == keep) break;
  }
  s.resize(i);
  if (width > 3) s += "...";
  return s;
}

std::string progress_bar(const std::vector<std::pair<char, uint64_t>>& segments, uint64_t total, size_t cells) {
  std::string bar(cells, ' ');
  if (total > 0) {
    // Each segment ends at the cell its cumulative count rounds to: segments never overlap and a
    // full count fills the bar exactly.
    uint64_t cum = 0;
    size_t at = 0;
    for (const auto& [mark, count] : segments) {
      cum = std::min(total, cum + count);
      const auto end = size_t((long double)cum * cells / total + 0.5L);
      for (; at < end && at < cells; at++) bar[at] = mark;
    }
  }
  return "[" + bar + "]";
}

std::string human_bytes(double bytes) {
  const double b = std::fabs(bytes);
  const char* sign = bytes < 0 ? "-" : "";
  if (b < 1024) return fmt::format("{}{:.0f} B", sign, b);
  if (b < 1024.0 * 1024) return fmt::format("{}{:.1f} KiB", sign, b / 1024);
  if (b < 1024.0 * 1024 * 1024) return fmt::format("{}{:.1f} MiB", sign, b / (1024.0 * 1024));
  return fmt::format("{}{:.2f} GiB", sign, b / (1024.0 * 1024 * 1024));
}

std::string human_duration(double secs) {
  if (!(secs >= 0)) secs = 0;
  if (secs < 60) return fmt::format("{:.1f}s", secs);
  const auto s = uint64_t(secs);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  if (s < 86400) return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
  return fmt::format("{}d{:02}h", s / 86400, s % 86400 / 3600);
}

std::string priority_text(int64_t value) {
  static constexpr const char* kLevels[] = {"low", "normal", "high", "critical"};
  // The daemon's priority is the proto's level (LOW 1 .. CRITICAL 4) * 1000 plus an offset of at
  // most 999 either way, shown as the nearest level and the rest; anything else (an engine driven
  // directly) is shown as the number.
  if (value < 500 || value > 4999) return std::to_string(value);
  const int64_t level = std::min<int64_t>(4, (value + 500) / 1000);
  const int64_t offset = value - level * 1000;
  return std::string(kLevels[level - 1]) + (offset == 0 ? "" : fmt::format("{:+}", offset));
}

std::vector<std::string> render_status(const json& doc, size_t width) {
  std::vector<std::string> out;
  const size_t layout = width ? width : 100;
  const size_t bar_cells = std::clamp<size_t>(layout / 4, 10, 40);
  // The jobs first after the summary: a terminal too short for everything cuts the rest.
  summary_lines(doc, width, bar_cells, out);
  out.emplace_back();
  job_lines(doc, width, out);
  out.emplace_back();
  buffer_lines(doc, width, out);
  out.emplace_back();
  device_lines(doc, width, std::clamp<size_t>(layout / 6, 10, 20), out);
  out.emplace_back();
  param_lines(doc, width, out);
  return out;
}

std::vector<std::string> render_unreachable(const std::string& addr, const std::string& error, const std::string& since,
                                            size_t width) {
  return {fit("DAEMON UNREACHABLE at " + addr + " since " + since + "; retrying", width), fit("  " + error, width)};
}

std::string terminal_frame(const std::vector<std::string>& lines, size_t rows) {
  std::vector<std::string> shown = lines;
  if (rows > 0 && shown.size() > rows) {
    const size_t left_out = shown.size() - (rows - 1);
    shown.resize(rows - 1);
    shown.push_back(fmt::format("... {} more line(s): a taller terminal shows them", left_out));
  }
  std::string frame = "\x1b[H";  // cursor home; then each line over the old one, its rest erased
  for (size_t i = 0; i < shown.size(); i++) frame += shown[i] + "\x1b[K" + (i + 1 < shown.size() ? "\n" : "");
  frame += "\x1b[J";  // and everything below the last line
  return frame;
}

std::string plain_frame(const std::string& header, const std::vector<std::string>& lines) {
  std::string frame = fit(header, 0) + "\n";
  for (const std::string& line : lines) frame += fit(line, 0) + "\n";
  return frame + "\n";
}

}  // namespace cuzk::cli
