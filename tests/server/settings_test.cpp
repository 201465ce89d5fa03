// The settings table (server/settings.hpp) and what is made from it: the TOML reader and writer,
// the flags' parsing and bounds, Curio's cuzk.toml, the README's list, the JSON log format.
#include "server/settings.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <spdlog/spdlog.h>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "server/address.hpp"
#include "server/config_file.hpp"
#include "server/logging.hpp"
#include "server/size.hpp"

namespace {

using namespace cuzk::server;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string load_error(const std::string& text) {
  DaemonConfig c;
  try {
    load_config_text(text, "t.toml", c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string flag_error(std::string_view section, std::string_view key, const std::string& text) {
  const Setting* s = find_setting(section, key);
  if (!s) return "no such setting";
  try {
    parse_setting_text(*s, text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

bool has_note(const std::vector<ConfigNote>& notes, ConfigNote::Level level, const std::string& part) {
  for (const ConfigNote& n : notes) {
    if (n.level == level && n.text.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(SettingsTest, TableIsWellFormed) {
  std::set<std::string> names, flags;
  const DaemonConfig defaults;
  for (const Setting& s : settings()) {
    EXPECT_TRUE(names.insert(s.name()).second) << s.name();
    EXPECT_TRUE(flags.insert(std::string(s.flag)).second) << s.flag;
    EXPECT_TRUE(s.flag.starts_with("--")) << s.name();
    EXPECT_FALSE(s.help.empty()) << s.name();
    EXPECT_TRUE(s.get && s.set) << s.name();
    // Every default is within its own bounds.
    EXPECT_NO_THROW(check_setting_value(s, s.get(defaults))) << s.name();
  }
  for (const ForeignKey& f : foreign_keys()) {
    if (f.target.empty()) {
      EXPECT_FALSE(f.note.empty()) << f.section << "." << f.key << ": an ignored key needs its reason";
      continue;
    }
    size_t dot = f.target.find('.');
    EXPECT_NE(find_setting(f.target.substr(0, dot), f.target.substr(dot + 1)), nullptr) << f.target;
    // A Curio key that is also ours would be read twice.
    EXPECT_EQ(find_setting(f.section, f.key), nullptr) << f.section << "." << f.key;
  }
}

TEST(SettingsTest, EveryValueRoundTripsThroughTextAndToml) {
  DaemonConfig c;
  c.listen = "unix:/tmp/x.sock";
  c.status_listen = "127.0.0.1:0";
  c.socket_mode = 0600;
  c.max_request_bytes = 100000;
  c.shutdown_mode = ShutdownMode::kCancel;
  c.shutdown_timeout_seconds = 12.5;
  c.log_format = "json";
  c.engine.budget_bytes = (uint64_t(3) << 30) + 1;
  c.engine.devices = {1, 3};
  c.engine.backend = cuzk::engine::BackendKind::kCpu;
  c.engine.policy = cuzk::engine::Policy::kChannelCapacityWorkers;
  c.engine.verify_before_return = false;
  c.srs.param_cache = "/data/zk/params";
  c.srs.allow_test_parameters = true;
  c.srs.verify_digest = false;
  for (const Setting& s : settings()) {
    SettingValue v = s.get(c);
    EXPECT_EQ(parse_setting_text(s, setting_text(s, v)), v) << s.name() << " = " << setting_text(s, v);
    if (!s.in_file()) continue;
    DaemonConfig back;
    std::ostringstream one;
    one << "[" << s.section << "]\n" << s.key << " = " << setting_toml(s, v) << "\n";
    load_config_text(one.str(), "one.toml", back);
    EXPECT_EQ(s.get(back), v) << s.name() << " = " << setting_toml(s, v);
  }
  DaemonConfig back;
  load_config_text(config_to_toml(c), "printed", back);
  EXPECT_EQ(config_to_toml(back), config_to_toml(c));
  EXPECT_EQ(back.srs.param_cache, "/data/zk/params");
  EXPECT_TRUE(back.srs.allow_test_parameters);
  EXPECT_EQ(back.log_format, "json");
  // Each setting printed with its help.
  EXPECT_NE(config_to_toml(c).find("# Host-memory budget"), std::string::npos);
}

// Strings print as TOML basic strings that read back byte for byte: a leading newline (which a
// '''...''' string drops), quotes, backslashes, control characters, DEL and non-ASCII text. Text
// that is not UTF-8 cannot be in a TOML file: printing it is refused, naming the setting.
TEST(SettingsTest, PrintedStringsLoadBackEqualAndNonUtf8IsRefused) {
  for (const std::string& path : {std::string("\nX"), std::string("\n\nX\n"), std::string("a\"b'c'''d\\e\\"),
                                  std::string("tab\there\r\x01\x1f\x7f"), std::string("caf\xc3\xa9 \xe2\x82\xac"),
                                  std::string("'''"), std::string("\"\"\"")}) {
    DaemonConfig c;
    c.srs.param_cache = path;
    c.log_file = path;
    DaemonConfig back;
    load_config_text(config_to_toml(c), "printed", back);
    EXPECT_EQ(back.srs.param_cache, path);
    EXPECT_EQ(back.log_file, path);
  }
  DaemonConfig c;
  c.srs.param_cache = "/data/\xff/params";
  try {
    config_to_toml(c);
    ADD_FAILURE() << "a path that is not UTF-8 printed";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("srs.param_cache"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not UTF-8"), std::string::npos) << e.what();
  }
}

// toml++ recurses once per dotted key part and nesting level: 35,000 parts overflowed its stack
// (SIGSEGV). Keys of more than 64 parts, nesting over 64 and files over 1 MiB are refused first.
TEST(SettingsTest, HugeKeysNestingAndFilesAreRefusedBeforeTheParser) {
  std::string parts = "a";
  for (int i = 1; i < 35000; i++) parts += ".a";
  EXPECT_NE(load_error("[" + parts + "]\n").find("more than 64 dotted parts"), std::string::npos);
  EXPECT_NE(load_error(parts + " = 1\n").find("more than 64 dotted parts"), std::string::npos);
  EXPECT_NE(load_error("[daemon]\nx = {" + parts + " = 1}\n").find("more than 64 dotted parts"), std::string::npos);
  EXPECT_NE(load_error("x = " + std::string(35000, '[') + std::string(35000, ']') + "\n").find("nested more than 64"),
            std::string::npos);
  EXPECT_NE(load_error("x = " + std::string(35000, '{')).find("nested more than 64"), std::string::npos);
  // Far below the bounds: parsed (and refused for what the keys are).
  EXPECT_NE(load_error("a.b.c.d = 1\n").find("unexpected top-level 'a'"), std::string::npos)
      << load_error("a.b.c.d = 1\n");
  EXPECT_EQ(load_error("[daemon]\nlog_file = \"a.b.c\" # x.y.z\n[engine]\ndevices = [0, 1]\n"), "no error");
  const std::string big = testing::TempDir() + "/cuzk-big-config.toml";
  {
    std::ofstream out(big);
    out << "[daemon]\n" << std::string((size_t(1) << 20) + 10, '#') << "\n";
  }
  DaemonConfig c;
  try {
    load_config_file(big, c);
    ADD_FAILURE() << "a file over 1 MiB loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 1048576 (1 MiB)"), std::string::npos) << e.what();
  }
  std::filesystem::remove(big);
}

TEST(SettingsTest, FlagsAndFileRefuseTheSameValues) {
  // Once accepted by the flags and refused by the file.
  EXPECT_NE(flag_error("engine", "gpu_workers_per_device", "100000").find("1..64"), std::string::npos);
  EXPECT_NE(load_error("[engine]\ngpu_workers_per_device = 100000\n").find("1..64"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "shutdown_timeout_seconds", "inf").find("non-negative"), std::string::npos);
  EXPECT_NE(load_error("[daemon]\nshutdown_timeout_seconds = inf\n").find("non-negative"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "result_ttl_seconds", "nan").find("non-negative"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "result_ttl_seconds", "-1").find("non-negative"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "max_queued_jobs", "0").find("at least 1"), std::string::npos);
  EXPECT_NE(load_error("[daemon]\nmax_queued_jobs = 0\n").find("at least 1"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "max_request_bytes", "1K").find("4096"), std::string::npos);
  EXPECT_NE(load_error("[daemon]\nmax_request_bytes = \"2GiB\"\n").find("2147483647"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "socket_mode", "0044").find("read and write"), std::string::npos);
  EXPECT_NE(load_error("[daemon]\nsocket_mode = \"0044\"\n").find("read and write"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "status_listen", "unix:/tmp/s").find("host:port"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "log_format", "xml").find("text, json"), std::string::npos);
  EXPECT_NE(flag_error("daemon", "log_level", "loud").find("trace, debug"), std::string::npos);
  EXPECT_NE(flag_error("engine", "devices", "0,x").find("device numbers"), std::string::npos);
  EXPECT_NE(flag_error("engine", "devices", "2000").find("0..1023"), std::string::npos);
  EXPECT_NE(load_error("[engine]\ndevices = [2000]\n").find("0..1023"), std::string::npos);
  EXPECT_EQ(flag_error("engine", "devices", ""), "no error");  // all visible
  EXPECT_NE(flag_error("engine", "budget", "lots").find("bad size"), std::string::npos);
  EXPECT_EQ(flag_error("engine", "budget", "auto"), "no error");
  EXPECT_NE(flag_error("engine", "safety_margin", "auto").find("bad size"), std::string::npos);
  // Errors name the file, the line and the key.
  EXPECT_NE(load_error("\n[engine]\ncpu_threads = 5000\n").find("t.toml:3: engine.cpu_threads: expected an integer"),
            std::string::npos);
}

TEST(SettingsTest, ValidateNamesTheSettingAndItsFlag) {
  DaemonConfig c;
  c.engine.gpu_workers_per_device = 100000;
  try {
    validate_config(c);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("engine.gpu_workers_per_device (--gpu-workers-per-device)"), std::string::npos)
        << e.what();
  }
}

TEST(SettingsTest, ComparisonPoliciesAreRefusedUnlessAllowed) {
  DaemonConfig c;
  c.engine.policy = cuzk::engine::Policy::kSemaphoreReleaseAfterSynth;
  try {
    validate_config(c);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'semaphore-release-after-synth'"), std::string::npos) << m;
    EXPECT_NE(m.find("--allow-comparison-policies"), std::string::npos) << m;
  }
  c.allow_comparison_policies = true;
  EXPECT_NO_THROW(validate_config(c));
}

TEST(SettingsTest, UnknownKeysSuggestTheClosest) {
  EXPECT_NE(load_error("[engine]\nbudjet = 5\n").find("did you mean budget?"), std::string::npos);
  EXPECT_NE(load_error("[memory]\ntotal_budgit = \"1GiB\"\n").find("did you mean total_budget?"), std::string::npos);
  EXPECT_NE(load_error("[gpus]\nfoo = 1\n").find("valid in [gpus]: devices"), std::string::npos);
  EXPECT_NE(load_error("[memroy]\n").find("unexpected top-level 'memroy'"), std::string::npos);
}

TEST(SettingsTest, SizesBinaryAndDecimal) {
  EXPECT_EQ(parse_size("8GiB"), uint64_t(8) << 30);
  EXPECT_EQ(parse_size("8G"), uint64_t(8) << 30);
  EXPECT_EQ(parse_size("8GB"), uint64_t(8'000'000'000));  // as Curio reads it
  EXPECT_EQ(parse_size("626MiB"), uint64_t(626) << 20);
  EXPECT_EQ(parse_size("1.5 TB"), uint64_t(1'500'000'000'000));
  EXPECT_THROW(parse_size("8Gx"), std::invalid_argument);
}

// Sizes travel as signed 64-bit integers (TOML, status JSON, metrics): 2^63 bytes or more used to
// be accepted, then printed negative and refused on reload.
TEST(SettingsTest, SizesOfTwoToTheSixtyThreeOrMoreAreRefusedNamingTheLimit) {
  EXPECT_EQ(parse_size("9223372036854775807"), uint64_t(INT64_MAX));
  EXPECT_THROW(parse_size("9223372036854775808"), std::invalid_argument);
  EXPECT_THROW(parse_size("8388608T"), std::invalid_argument);  // 2^63
  EXPECT_THROW(parse_size("9000000T"), std::invalid_argument);
  EXPECT_THROW(parse_size("8388608.0T"), std::invalid_argument);  // 2^63 as a fraction
  EXPECT_EQ(parse_size("8388607T"), uint64_t(8388607) << 40);
  for (const char* key : {"budget", "safety_margin", "urgent_reserve"}) {
    std::string flag = flag_error("engine", key, "9000000T");
    EXPECT_NE(flag.find("9223372036854775807"), std::string::npos) << key << ": " << flag;
    std::string file = load_error(std::string("[engine]\n") + key + " = \"9000000T\"\n");
    EXPECT_NE(file.find(std::string("engine.") + key), std::string::npos) << file;
    EXPECT_NE(file.find("9223372036854775807"), std::string::npos) << file;
    // A TOML string of bytes beyond int64 (what --print-config wrote for such values) too.
    file = load_error(std::string("[engine]\n") + key + " = \"9895604649984000000\"\n");
    EXPECT_NE(file.find("9223372036854775807"), std::string::npos) << file;
  }
  // The largest accepted value prints as a TOML integer and reads back.
  DaemonConfig c;
  c.engine.budget_bytes = uint64_t(INT64_MAX);
  DaemonConfig back;
  load_config_text(config_to_toml(c), "printed", back);
  EXPECT_EQ(back.engine.budget_bytes, uint64_t(INT64_MAX));
}

// toml++ 3.3.0 (Debian's) reaches undefined behaviour on some inputs (upstream issues #190, #294,
// #295, fixed by PRs #301 and #305): a table header whose key starts with another character than
// a key's ('[$', '[[[', '[[='), and a non-ASCII character where it checks for whitespace (a bare
// key 'Ʃ', '§' after a multi-line string's line-ending backslash). The guard refuses these before
// toml++ sees them, naming the line and column.
TEST(SettingsTest, TomlInputsThatReachToml3UndefinedBehaviourAreRefused) {
  struct Case {
    std::string text, where, what;
  };
  const std::vector<Case> cases = {
      {"[$", "t.toml:1:2", "table header"},
      {"[daemon]\n[$]\n", "t.toml:2:2", "table header"},
      {"[&", "t.toml:1:2", "table header"},
      {"[[[1]]]", "t.toml:1:3", "table header"},
      {"[[=", "t.toml:1:3", "table header"},
      {"  [[ \t$a]]\n", "t.toml:1:7", "table header"},
      {"\xc6\xa9 = 1\n", "t.toml:1:1", "non-ASCII"},                              // Ʃ, a bare key
      {"[engine]\nbudget\xc6\xa9 = 1\n", "t.toml:2:7", "non-ASCII"},              // in a key
      {"[a.\xc6\xa9]\n", "t.toml:1:4", "non-ASCII"},                              // in a header
      {"a = 1\xc2\xa7\n", "t.toml:1:6", "non-ASCII"},                             // after a value
      {"s = \"\"\"\\\n\xc2\xa7\"\"\"\n", "t.toml:2:1", "line-ending backslash"},  // issue #190
      {"s = \"\"\"\\\n   \n  \xe3\x80\x80x\"\"\"\n", "t.toml:3:3", "line-ending backslash"},
      {"s = \"\"\"a\\\xc2\xa7\"\"\"\n", "t.toml:1:10", "backslash"},
      {"a = \"\xff\"\n", "t.toml:1:6", "UTF-8"},
      {"a = \"\xc0\xaf\"\n", "t.toml:1:6", "UTF-8"},      // overlong
      {"a = \"\xed\xa0\x80\"\n", "t.toml:1:6", "UTF-8"},  // a surrogate
      {"# \xf4\x90\x80\x80\n", "t.toml:1:3", "UTF-8"},    // beyond U+10FFFF, in a comment
  };
  for (const Case& c : cases) {
    std::string e = load_error(c.text);
    EXPECT_NE(e.find(c.where + ": "), std::string::npos) << c.text << " -> " << e;
    EXPECT_NE(e.find(c.what), std::string::npos) << c.text << " -> " << e;
  }
  // Non-ASCII text where TOML allows it still loads: strings, comments, quoted keys; arrays over
  // several lines, and quoted table names.
  DaemonConfig c;
  EXPECT_NO_THROW(load_config_text("# Größe: §\n[srs] # ünits\nparam_cache = \"/data/Ʃ/p\"\n", "ok.toml", c));
  EXPECT_EQ(c.srs.param_cache, "/data/Ʃ/p");
  EXPECT_NO_THROW(load_config_text("[srs]\nparam_cache = '''\n/data/§'''\n", "ok.toml", c));
  EXPECT_EQ(c.srs.param_cache, "/data/§");
  EXPECT_NO_THROW(load_config_text("[srs]\nparam_cache = \"\"\"\\\n  /x/\\u00a7\"\"\"\n", "ok.toml", c));
  EXPECT_EQ(c.srs.param_cache, "/x/§");
  EXPECT_EQ(load_error("[engine]\ndevices = [\n  0,\n  1,\n]\n[\"daemon\"]\nlog_level = 'info' # é\n"), "no error");
  EXPECT_EQ(load_error("[ engine ]\nbudget = \"1GiB\"\n[ 'srs' ]\n"), "no error");
}

TEST(SettingsTest, CurioExampleFileLoads) {
  DaemonConfig c;
  std::vector<ConfigNote> notes;
  load_config_file(std::string(CUZK_SOURCE_DIR) + "/tests/data/curio/cuzk.example.toml", c, &notes);
  EXPECT_NO_THROW(validate_config(c));
  EXPECT_EQ(c.listen, "0.0.0.0:9820");
  EXPECT_EQ(c.srs.param_cache, "/data/zk/params");
  EXPECT_EQ(c.engine.budget_bytes, 0u);  // "auto"
  EXPECT_EQ(c.engine.safety_margin_bytes, uint64_t(5) << 30);
  EXPECT_TRUE(c.engine.devices.empty());
  EXPECT_EQ(c.engine.gpu_workers_per_device, 2u);
  EXPECT_EQ(c.engine.cpu_threads, 0u);
  EXPECT_EQ(c.log_level, "info");
  // Every key that is not ours is named, with the reason; values that change nothing here are
  // not warnings.
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kWarn, "gpus.gpu_threads (Curio's cuzk.toml) is ignored"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kInfo, "memory.eviction_min_idle"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kInfo, "scheduler.max_batch_size"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kInfo, "pipeline.enabled"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kInfo, "pipeline.synthesis_lookahead"));
  std::vector<ConfigNote> tuned;
  load_config_text("[pipeline]\nsynthesis_lookahead = 4\n", "tuned.toml", c, &tuned);
  EXPECT_TRUE(has_note(tuned, ConfigNote::Level::kWarn, "tuned.toml:2: pipeline.synthesis_lookahead"));
  EXPECT_TRUE(
      has_note(notes, ConfigNote::Level::kInfo, "synthesis.threads (Curio's cuzk.toml) sets engine.cpu_threads"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kDebug, "memory.total_budget (Curio's cuzk.toml) sets engine.budget"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kDebug, "cuzk.example.toml:"));
}

TEST(SettingsTest, CurioDeprecatedKeysAreNamed) {
  DaemonConfig c;
  std::vector<ConfigNote> notes;
  load_config_file(std::string(CUZK_SOURCE_DIR) + "/tests/data/curio/cuzk-doc-minimal.toml", c, &notes);
  EXPECT_EQ(c.srs.param_cache, "/var/tmp/filecoin-proof-parameters");
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kWarn, "srs.preload (Curio's cuzk.toml) is ignored"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kWarn, "synthesis.partition_workers"));
  EXPECT_TRUE(has_note(notes, ConfigNote::Level::kWarn, "engine.synthesis_workers"));
  // Curio's names and ours for one setting in one file: refused, naming both.
  std::string twice = load_error("[engine]\nbudget = \"8GiB\"\n[memory]\ntotal_budget = \"auto\"\n");
  EXPECT_NE(twice.find("memory.total_budget (engine.budget) is set twice"), std::string::npos) << twice;
  EXPECT_NE(twice.find("t.toml:2 (engine.budget)"), std::string::npos) << twice;
  // Curio's values go through our checks.
  EXPECT_NE(load_error("[gpus]\ngpu_workers_per_device = 0\n")
                .find("gpus.gpu_workers_per_device "
                      "(engine.gpu_workers_per_device): expected"),
            std::string::npos);
  EXPECT_NE(load_error("[logging]\nformat = \"pretty\"\n").find("text, json"), std::string::npos);
  DaemonConfig j;
  load_config_text("[logging]\nformat = \"json\"\nlevel = \"debug\"\n[pipeline]\nmax_parallel_synthesis = 6\n", "j", j);
  EXPECT_EQ(j.log_format, "json");
  EXPECT_EQ(j.log_level, "debug");
  EXPECT_EQ(j.engine.synthesis_workers, 6u);
}

TEST(SettingsTest, CurioUnixAddressesAreTheSameSocket) {
  ListenAddress a = parse_address("unix:///run/curio/cuzk.sock");
  EXPECT_TRUE(a.is_unix);
  EXPECT_EQ(a.path, "/run/curio/cuzk.sock");
  EXPECT_EQ(a.grpc_target(), "unix:/run/curio/cuzk.sock");
  EXPECT_EQ(parse_address("unix:/run/curio/cuzk.sock").path, a.path);
  EXPECT_THROW(parse_address("unix://run/cuzk.sock"), std::invalid_argument);  // gRPC reads "run" as a host
  ListenAddress t = parse_address("0.0.0.0:9820");
  EXPECT_FALSE(t.is_unix);
  EXPECT_EQ(t.port, 9820);
}

bool operator==(const ListenAddress& a, const ListenAddress& b) {
  return a.is_unix == b.is_unix && a.path == b.path && a.host == b.host && a.port == b.port;
}

std::string address_error(std::string_view text) {
  try {
    parse_address(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

// What the daemon listens on, writes to its ready file and the client dials is grpc_target():
// every accepted spelling must come back as the same address, in one canonical form.
TEST(SettingsTest, AcceptedAddressesRoundTripInOneCanonicalForm) {
  for (std::string_view text : {"unix:/run/cuzk/cuzk.sock", "unix:///run/cuzk/cuzk.sock", "unix:////run/cuzk/cuzk.sock",
                                "unix:/run//cuzk///cuzk.sock", "unix:rel/cuzk.sock", "unix:rel//cuzk.sock",
                                "127.0.0.1:9820", "localhost:0", "[::1]:9820", "0.0.0.0:65535"}) {
    ListenAddress a = parse_address(text);
    ListenAddress back = parse_address(a.grpc_target());
    EXPECT_TRUE(back == a) << text << " -> " << a.grpc_target();
    EXPECT_EQ(back.grpc_target(), a.grpc_target()) << text;
  }
  EXPECT_EQ(parse_address("unix:////run/cuzk/cuzk.sock").grpc_target(), "unix:/run/cuzk/cuzk.sock");
  EXPECT_EQ(parse_address("unix:rel//cuzk.sock").grpc_target(), "unix:rel/cuzk.sock");
}

TEST(SettingsTest, ImpossibleSocketPathsAreRefused) {
  using namespace std::string_literals;
  // A NUL (possible in a TOML string) used to cut the path: a stray file and a cut message.
  std::string nul = address_error("unix:/tmp/a\0b.sock"s);
  EXPECT_NE(nul.find("NUL"), std::string::npos) << nul;
  EXPECT_NE(nul.find("/tmp/a\\x00b.sock"), std::string::npos) << nul;
  EXPECT_NE(load_error("[daemon]\nlisten = \"unix:/tmp/a\\u0000b.sock\"\n").find("NUL"), std::string::npos);
  EXPECT_NE(address_error("127.0.0.1\0:1"s).find("NUL"), std::string::npos);
  // gRPC's client decodes %xx and cuts at ? and #: it would dial another path.
  EXPECT_NE(address_error("unix:/tmp/a%41.sock").find("%"), std::string::npos);
  EXPECT_NE(address_error("unix:/tmp/a?b").find("?"), std::string::npos);
  EXPECT_NE(address_error("unix:/tmp/dir/").find("end with /"), std::string::npos);
  EXPECT_NE(address_error("unix:/" + std::string(107, 'a')).find("longer than 107"), std::string::npos);
  // 107 bytes after collapsing the slashes fit.
  EXPECT_EQ(address_error("unix:///" + std::string(106, 'a')), "no error");
}

TEST(SettingsTest, ReadmeListsTheTable) {
  std::string readme = read_file(std::string(CUZK_SOURCE_DIR) + "/README.md");
  EXPECT_NE(readme.find(settings_markdown()), std::string::npos)
      << "README.md's settings list is not what `cuzk-daemon --print-settings` prints; run "
         "scripts/update-readme-settings.sh";
}

TEST(SettingsTest, JsonLogLinesAreJsonObjects) {
  std::string path = std::filesystem::temp_directory_path() / ("cuzk-json-log-" + std::to_string(getpid()) + ".log");
  setup_logging("debug", path, "json");
  spdlog::info("a \"quoted\" word, a backslash \\ and a\nnewline; {} and \x01", 42);
  spdlog::debug("second line");
  spdlog::default_logger()->flush();
  setup_logging("info", "");  // back to stderr, closing the file
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  std::filesystem::remove(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["level"], "info");
  EXPECT_EQ(lines[0]["message"], "a \"quoted\" word, a backslash \\ and a\nnewline; 42 and \x01");
  EXPECT_TRUE(lines[0]["timestamp"].get<std::string>().ends_with("Z"));
  EXPECT_TRUE(lines[0]["thread"].is_number());
  EXPECT_EQ(lines[1]["level"], "debug");
  EXPECT_THROW(setup_logging("info", "", "xml"), std::invalid_argument);
}

}  // namespace
