#include "server/config_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <toml++/toml.h>

#include "server/settings.hpp"
#include "server/toml_guard.hpp"

namespace cuzk::server {

namespace {

// A TOML node as a value of the setting's kind; throws std::invalid_argument saying what the
// kind expects. Bounds are checked by the caller (apply_setting).
SettingValue from_node(const Setting& s, const toml::node& n) {
  switch (s.kind) {
    case SettingKind::kSize:
      if (auto v = n.value_exact<int64_t>()) {
        if (*v < 0) throw std::invalid_argument("a size cannot be negative");
        return uint64_t(*v);
      }
      if (auto t = n.value_exact<std::string>()) return parse_setting_text(s, *t);
      throw std::invalid_argument(std::string("expected a size: bytes as an integer, or a string such as \"64GiB\"") +
                                  (s.auto_is_zero ? " or \"auto\"" : ""));
    case SettingKind::kCount:
      if (auto v = n.value_exact<int64_t>()) {
        if (*v < 0) {
          throw std::invalid_argument("expected an integer in " + std::to_string(s.min) + ".." + std::to_string(s.max) +
                                      "; got " + std::to_string(*v));
        }
        return uint64_t(*v);
      }
      throw std::invalid_argument("expected a non-negative integer");
    case SettingKind::kSeconds:
      if (auto v = n.value_exact<int64_t>()) return double(*v);
      if (auto v = n.value_exact<double>()) return *v;
      throw std::invalid_argument("expected a non-negative number of seconds");
    case SettingKind::kSwitch:
      if (auto v = n.value_exact<bool>()) return *v;
      throw std::invalid_argument("expected true or false");
    case SettingKind::kString:
    case SettingKind::kChoice:
      if (auto v = n.value_exact<std::string>()) return *v;
      throw std::invalid_argument("expected a string");
    case SettingKind::kDevices: {
      const toml::array* a = n.as_array();
      std::vector<int> out;
      bool ok = a != nullptr;
      if (ok) {
        for (const toml::node& e : *a) {
          auto d = e.value_exact<int64_t>();
          ok = ok && d && *d >= 0 && *d <= INT32_MAX;
          if (ok) out.push_back(int(*d));
        }
      }
      if (!ok) throw std::invalid_argument("expected an array of device numbers, e.g. [0, 1]");
      return out;
    }
    case SettingKind::kSocketMode:
      if (auto v = n.value_exact<std::string>()) return uint64_t(parse_socket_mode(*v));
      if (auto v = n.value_exact<int64_t>(); v && *v >= 0) return uint64_t(*v);  // 0o660
      throw std::invalid_argument("expected an octal mode as a string, such as \"0660\"");
  }
  throw std::invalid_argument("unreadable value");
}

// Any TOML value, loosely, for the notes about ignored keys.
SettingValue loose_value(const toml::node& n) {
  if (auto v = n.value_exact<bool>()) return *v;
  if (auto v = n.value_exact<int64_t>(); v && *v >= 0) return uint64_t(*v);
  if (auto v = n.value_exact<double>()) return *v;
  if (auto v = n.value_exact<std::string>()) return *v;
  return std::string();
}

std::string where(const std::string& source, const toml::node& n) {
  return source + ":" + std::to_string(n.source().begin.line);
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); j++) row[j] = j;
  for (size_t i = 1; i <= a.size(); i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); j++) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The keys a section takes: ours and Curio's.
std::vector<std::string> keys_of(std::string_view section) {
  std::vector<std::string> keys;
  for (const Setting& s : settings()) {
    if (s.in_file() && s.section == section) keys.emplace_back(s.key);
  }
  for (const ForeignKey& f : foreign_keys()) {
    if (f.section == section) keys.emplace_back(f.key);
  }
  return keys;
}

bool known_section(std::string_view section) { return !keys_of(section).empty(); }

std::string unknown_key_message(const std::string& section, const std::string& key) {
  std::vector<std::string> keys = keys_of(section);
  std::string list, best;
  size_t best_distance = 3;  // suggest only close misspellings
  for (const std::string& k : keys) {
    list += (list.empty() ? "" : ", ") + k;
    size_t d = edit_distance(key, k);
    if (d < best_distance) best_distance = d, best = k;
  }
  std::string msg = "unknown setting " + section + "." + key;
  if (!best.empty()) msg += " (did you mean " + best + "?)";
  return msg + " (valid in [" + section + "]: " + list + ")";
}

std::string section_list() {
  std::set<std::string_view> curio;
  for (const ForeignKey& f : foreign_keys()) curio.insert(f.section);
  std::string s;
  for (std::string_view c : curio) s += std::string(s.empty() ? "" : ", ") + "[" + std::string(c) + "]";
  return "settings go in the [daemon] and [engine] tables, and [srs] for Filecoin's parameter files; Curio's " + s +
         " are read too";
}

}  // namespace

void load_config_text(const std::string& text, const std::string& source_name, DaemonConfig& cfg,
                      std::vector<ConfigNote>* notes) {
  check_toml_input(text, source_name);
  toml::table doc;
  try {
    doc = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    throw ConfigError(source_name + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  // Notes in the file's order (toml++ iterates keys sorted).
  std::vector<std::pair<uint32_t, ConfigNote>> found;
  auto note = [&](const toml::node& at, ConfigNote::Level level, std::string line) {
    found.push_back({at.source().begin.line, {level, std::move(line)}});
  };
  // Which key set each setting, so that a setting given twice (ours and Curio's name) is refused.
  std::map<const Setting*, std::string> set_by;
  for (const auto& [section_key, section_node] : doc) {
    std::string section(section_key.str());
    const toml::table* table = section_node.as_table();
    if (!table || !known_section(section)) {
      throw ConfigError(where(source_name, section_node) + ": unexpected top-level '" + section + "' (" +
                        section_list() + ")");
    }
    for (const auto& [key_node, node] : *table) {
      std::string key(key_node.str());
      std::string at = where(source_name, node), written = section + "." + key;
      const Setting* s = find_setting(section, key);
      const ForeignKey* f = s ? nullptr : find_foreign_key(section, key);
      if (!s && !f) throw ConfigError(at + ": " + unknown_key_message(section, key));
      if (f && f->target.empty()) {
        SettingValue v = loose_value(node);
        bool harmless = f->harmless && f->harmless(v);
        note(node, harmless ? ConfigNote::Level::kInfo : ConfigNote::Level::kWarn,
             at + ": " + written + " (Curio's cuzk.toml) " + std::string(f->note));
        continue;
      }
      if (f) {
        size_t dot = f->target.find('.');
        s = find_setting(f->target.substr(0, dot), f->target.substr(dot + 1));
        note(node, f->note.empty() ? ConfigNote::Level::kDebug : ConfigNote::Level::kInfo,
             at + ": " + written + " (Curio's cuzk.toml) sets " + s->name() +
                 (f->note.empty() ? "" : ": " + std::string(f->note)));
      }
      std::string label = f ? written + " (" + s->name() + ")" : written;
      if (auto [it, fresh] = set_by.emplace(s, at + " (" + written + ")"); !fresh) {
        throw ConfigError(at + ": " + label + " is set twice: " + it->second +
                          " sets the same setting; keep one of them");
      }
      try {
        apply_setting(*s, from_node(*s, node), cfg);
      } catch (const std::invalid_argument& e) {
        throw ConfigError(at + ": " + label + ": " + e.what());
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (notes) {
    for (auto& [line, n] : found) notes->push_back(std::move(n));
  }
}

void load_config_file(const std::string& path, DaemonConfig& cfg, std::vector<ConfigNote>* notes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read configuration file " + path + ": " + std::strerror(errno));
  // At most one byte past the limit: the guard then refuses the file without it all in memory.
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (in.bad()) throw ConfigError("cannot read configuration file " + path + ": " + std::strerror(errno));
  if (text.size() > kMaxConfigBytes) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    throw ConfigError(path + ": " + (ec ? "more than " + std::to_string(kMaxConfigBytes) : std::to_string(size)) +
                      " bytes; a configuration file may have at most " + std::to_string(kMaxConfigBytes) + " (1 MiB)");
  }
  load_config_text(text, path, cfg, notes);
}

void validate_config(const DaemonConfig& c) {
  for (const Setting& s : settings()) {
    try {
      check_setting_value(s, s.get(c));
    } catch (const std::invalid_argument& e) {
      throw ConfigError(s.label() + ": " + e.what());
    }
  }
  if (c.engine.max_queued_partitions < c.engine.max_partitions_per_job) {
    throw ConfigError("engine.max_queued_partitions (" + std::to_string(c.engine.max_queued_partitions) +
                      ") is less than engine.max_partitions_per_job (" +
                      std::to_string(c.engine.max_partitions_per_job) + "): the largest job could never be queued");
  }
  if (c.engine.policy != engine::Policy::kBudget && !c.allow_comparison_policies) {
    throw ConfigError("engine.policy (--policy) '" + std::string(engine::policy_name(c.engine.policy)) +
                      "' is a comparison policy: it does not bound host memory (it reproduces how earlier designs ran "
                      "out of it) and is meant for cuzk-bench pipeline; use policy 'budget', or set "
                      "engine.allow_comparison_policies = true (--allow-comparison-policies) to run it anyway");
  }
}

}  // namespace cuzk::server
