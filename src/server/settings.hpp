// Every setting of cuzk-daemon, declared once (the table: settings_daemon.cpp, settings_engine.cpp,
// settings_srs.cpp, written with setting_builders.hpp): its TOML table and key, its flag,
// type, bounds and help; its default is DaemonConfig's. The TOML reader and writer
// (config_file.cpp), the command line (cli/daemon_main.cpp), validation and the README's list
// (cuzk-daemon --print-settings) are all made from this table, so they cannot disagree.
//
// Curio's cuzk.toml (extern/cuzk/cuzk-core/src/config.rs) is read too: each of its keys is in
// foreign_keys(), either as another name of one of ours or as ignored with a note saying why.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "server/daemon_config.hpp"

namespace cuzk::server {

// What a setting's values are. Each kind has one text form (flags, TOML strings), one TOML form
// and one bounds check, shared by every setting of the kind.
enum class SettingKind {
  kSize,        // bytes: an integer, or text with K/M/G/T (powers of 1024) ...: "64GiB"
  kCount,       // a non-negative integer within [min, max]
  kSeconds,     // a finite, non-negative number of seconds, at most max
  kSwitch,      // true/false; the flag is a --name / --no-name pair
  kString,      // free text, checked by `validate` when it has one
  kChoice,      // one of `choices`
  kDevices,     // a list of device numbers: [0, 1] in the file, 0,1 on the command line
  kSocketMode,  // an octal permission mode: "0660"
};

// A value of any kind, as it moves between text, TOML and DaemonConfig.
using SettingValue = std::variant<uint64_t, double, bool, std::string, std::vector<int>>;

struct Setting {
  std::string_view section;  // TOML table: "daemon", "engine" or "srs"; empty: command line only
  std::string_view key;      // TOML key (for a flag-only setting, its name in messages)
  std::string_view flag;     // "--budget"; a switch's "--verify" also makes "--no-verify"
  SettingKind kind = SettingKind::kString;
  std::string_view help;                  // one sentence, for --help, --print-config and the README
  uint64_t min = 0, max = UINT64_MAX;     // inclusive bounds of sizes and counts (max: seconds too)
  std::vector<std::string_view> choices;  // kChoice
  bool auto_is_zero = false;              // kSize: "auto" means 0
  // Extra checks of a string (addresses); throws std::invalid_argument.
  std::function<void(const std::string&)> validate;
  std::function<SettingValue(const DaemonConfig&)> get;
  std::function<void(DaemonConfig&, const SettingValue&)> set;

  // "engine.budget" (or the flag, for a flag-only setting).
  std::string name() const;
  // "engine.budget (--budget)": how messages name it.
  std::string label() const;
  bool in_file() const { return !section.empty(); }
};

// Every setting, in the order of --print-config and the README.
const std::vector<Setting>& settings();
// The setting at section.key (ours, not a foreign alias); nullptr when there is none.
const Setting* find_setting(std::string_view section, std::string_view key);
// The sections of our own file, in order.
const std::vector<std::string_view>& setting_sections();

// Text (a flag's argument; a size or mode given as a TOML string) -> a value of the setting's
// kind, bounds checked. Throws std::invalid_argument saying what was expected.
SettingValue parse_setting_text(const Setting& s, std::string_view text);
// Throws std::invalid_argument when v is outside the setting's bounds or choices.
void check_setting_value(const Setting& s, const SettingValue& v);
// Checks and stores v; throws std::invalid_argument.
void apply_setting(const Setting& s, const SettingValue& v, DaemonConfig& cfg);
// The value as text ("64MiB", "0660", "0,1", "true") and as a TOML value that reads back equal
// ("cancel", 600.0, [0, 1]); setting_toml throws std::invalid_argument for text that is not UTF-8.
std::string setting_text(const Setting& s, const SettingValue& v);
std::string setting_toml(const Setting& s, const SettingValue& v);
// What values look like, for help: "size, 4096..2147483647 bytes", "finish | cancel", ...
std::string setting_type_text(const Setting& s);

// A key of another program's configuration file that cuzk accepts: Curio's cuzk.toml.
struct ForeignKey {
  std::string_view section, key;
  // Our setting it sets (section.key); empty: accepted and ignored, with `note` logged.
  std::string_view target;
  // Why it is ignored, or how its meaning differs from ours (logged when it differs).
  std::string_view note;
  // For ignored keys: whether the value given is what cuzk does anyway, or Curio's default (then
  // the note is logged at info, else as a warning: a tuned value that has no effect here). Unset: always a warning. The
  // value is the TOML value as it comes (integers as uint64_t, arrays and tables as an empty string).
  std::function<bool(const SettingValue&)> harmless;
};

// Curio's keys ([daemon] [srs] [memory] [gpus] [scheduler] [synthesis] [pipeline] [logging]).
const std::vector<ForeignKey>& foreign_keys();
const ForeignKey* find_foreign_key(std::string_view section, std::string_view key);

// The README's list: every setting (key, flag, type, default, help) and every Curio key with
// what it maps to, as Markdown. What `cuzk-daemon --print-settings` prints.
std::string settings_markdown();

}  // namespace cuzk::server
