#include <sstream>

#include "server/settings.hpp"

namespace cuzk::server {

std::string settings_markdown() {
  const DaemonConfig defaults;
  auto cell = [](std::string s) {
    std::string out;
    for (char c : s) {
      if (c == '|') {
        out += "\\|";
      } else {
        out += c;
      }
    }
    return out;
  };
  std::ostringstream o;
  o << "| setting | flag | values | default | meaning |\n|---|---|---|---|---|\n";
  for (const Setting& s : settings()) {
    std::string flag(s.flag);
    if (s.kind == SettingKind::kSwitch) flag.append(", --no-").append(s.flag.substr(2));
    std::string def = setting_text(s, s.get(defaults));
    o << "| ";
    if (s.in_file()) {
      o << "`" << s.name() << "`";
    } else {
      o << "(flag only)";
    }
    o << " | `" << flag << "` | " << cell(setting_type_text(s)) << " | ";
    if (def.empty()) {
      o << "\"\"";
    } else {
      o << "`" << cell(def) << "`";
    }
    o << " | " << cell(std::string(s.help)) << " |\n";
  }
  o << "\nCurio's `cuzk.toml` keys (its `daemon.listen`, `daemon.status_listen` and `srs.param_cache` are "
       "ours too):\n\n"
    << "| Curio key | here |\n|---|---|\n";
  for (const ForeignKey& f : foreign_keys()) {
    o << "| `" << f.section << "." << f.key << "` | ";
    if (!f.target.empty()) {
      o << "`" << f.target << "`" << (f.note.empty() ? "" : "; " + cell(std::string(f.note)));
    } else {
      std::string note(f.note);
      o << cell(note.starts_with("is ") ? note.substr(3) : note);
    }
    o << " |\n";
  }
  return o.str();
}

}  // namespace cuzk::server
