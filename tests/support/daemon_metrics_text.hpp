// Reading samples from Prometheus text the way a scraper does: a sample is its name and its set
// of labels, whatever their order (prometheus-cpp writes labels sorted by name).
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace cuzk::test {

// "name{a=\"x\",b=\"y\"}" -> (name, {a: x, b: y}); values keep their escapes.
inline std::pair<std::string, std::map<std::string, std::string>> parse_series(const std::string& series) {
  const size_t brace = series.find('{');
  std::pair<std::string, std::map<std::string, std::string>> out{series.substr(0, brace), {}};
  if (brace == std::string::npos) return out;
  size_t i = brace + 1;
  while (i < series.size() && series[i] != '}') {
    const size_t eq = series.find("=\"", i);
    if (eq == std::string::npos) break;
    std::string key = series.substr(i, eq - i), value;
    size_t j = eq + 2;
    for (; j < series.size() && series[j] != '"'; j++) {
      value += series[j];
      if (series[j] == '\\' && j + 1 < series.size()) value += series[++j];
    }
    out.second[key] = value;
    i = j + 1;
    if (i < series.size() && series[i] == ',') i++;
  }
  return out;
}

// The value of the sample `series` ("name{labels}", labels in any order); -1 when absent.
inline double metric_sample(const std::string& text, const std::string& series) {
  const auto want = parse_series(series);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t close = line.find('}');
    const size_t space = line.find(' ', close == std::string::npos ? 0 : close);
    if (space == std::string::npos) continue;
    if (parse_series(line.substr(0, space)) == want) return std::stod(line.substr(space + 1));
  }
  return -1;
}

// Whether the text has the sample line "name{labels} value" (labels in any order).
inline bool has_sample(const std::string& text, const std::string& line) {
  const size_t close = line.find('}');
  const size_t space = line.find(' ', close == std::string::npos ? 0 : close);
  if (space == std::string::npos) return false;
  const std::string value =
      line.substr(space + 1, line.find('\n') == std::string::npos ? std::string::npos : line.find('\n') - space - 1);
  const double got = metric_sample(text, line.substr(0, space));
  return got != -1 && got == std::stod(value);
}

}  // namespace cuzk::test
