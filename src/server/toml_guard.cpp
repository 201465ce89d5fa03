#include "server/toml_guard.hpp"

#include <cctype>
#include <cstddef>
#include <string>

#include "server/config_file.hpp"
#include "server/utf8.hpp"

namespace cuzk::server {

namespace {

// toml++ 3.3.0 (Debian's) has undefined behaviour on some malformed inputs (upstream issues #190,
// #294, #295; fixed by PRs #301 and #305): it calls parse_key() on a table header whose key
// starts with another character, and its non-ASCII whitespace test reaches "unreachable" for most
// non-ASCII characters, which it runs wherever whitespace may come outside strings and after a
// backslash in a multi-line string. This scan refuses those inputs first, so that no file can
// reach those paths: text must be UTF-8, non-ASCII only in strings and comments (as TOML 1.0
// says), and a table header's key must start like a key. toml++ also recurses once per dotted key
// part and per nested array or inline table, so that a key of 35,000 parts overflows the stack:
// the file's size, a key's parts and the nesting are bounded far above any real configuration.
class TomlGuard {
 public:
  static constexpr size_t kMaxBytes = kMaxConfigBytes, kMaxKeyParts = 64, kMaxNesting = 64;

  TomlGuard(const std::string& text, const std::string& source) : s_(text), source_(source) {}

  void check() {
    if (s_.size() > kMaxBytes) {
      throw ConfigError(source_ + ": " + std::to_string(s_.size()) + " bytes; a configuration file may have at most " +
                        std::to_string(kMaxBytes) + " (1 MiB)");
    }
    check_utf8();
    line_ = 1, line_begin_ = 0;
    size_t i = 0;
    std::string open;  // the [ and { open in a value, innermost last
    bool in_value = false, line_start = true;
    bool inline_key = false;  // in an inline table, between '{' or ',' and '='
    size_t key_parts = 1;
    auto in_key = [&] { return open.empty() ? !in_value : open.back() == '{' && inline_key; };
    while (i < s_.size()) {
      unsigned char c = byte(i);
      if (c == '\n') {
        new_line(i);
        if (open.empty()) in_value = false, key_parts = 1;
        line_start = true;
        i++;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        i++;
        continue;
      }
      bool first = line_start;
      line_start = false;
      if (c == '#') {
        while (i < s_.size() && s_[i] != '\n') i++;
        continue;
      }
      if (c >= 0x80) {
        fail(i,
             "a non-ASCII character outside a quoted string or a comment (TOML allows it only there; quote a key "
             "that has one: \"...\")");
      }
      if (c == '"' || c == '\'') {
        i = skip_string(i);
        continue;
      }
      if (first && open.empty() && !in_value && c == '[') {
        key_parts = 1;
        size_t j = i + 1;
        if (j < s_.size() && s_[j] == '[') j++;
        while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) j++;
        if (j < s_.size()) {
          unsigned char k = byte(j);
          bool key_start = std::isalnum(k) || k == '_' || k == '-' || k == '"' || k == '\'' || k == ']';
          if (!key_start) {
            fail(j, std::string("a table header must start with a key (letters, digits, _ and -, or a quoted key), "
                                "not '") +
                        (k >= 0x20 && k < 0x7f ? std::string(1, char(k)) : "a control character") + "'");
          }
        }
        i = j;
        continue;
      }
      if (c == '.' && in_key() && ++key_parts > kMaxKeyParts) {
        fail(i, "a key of more than " + std::to_string(kMaxKeyParts) + " dotted parts");
      }
      if (c == '=') {
        if (open.empty()) in_value = true;
        if (!open.empty() && open.back() == '{') inline_key = false;
      }
      if (in_value && (c == '[' || c == '{')) {
        if (open.size() == kMaxNesting) {
          fail(i, "arrays and inline tables nested more than " + std::to_string(kMaxNesting) + " deep");
        }
        open.push_back(char(c));
        inline_key = c == '{', key_parts = 1;
      }
      if (in_value && (c == ']' || c == '}') && !open.empty()) open.pop_back();
      if (c == ',' && !open.empty() && open.back() == '{') inline_key = true, key_parts = 1;
      i++;
    }
  }

 private:
  unsigned char byte(size_t i) const { return static_cast<unsigned char>(s_[i]); }

  void new_line(size_t newline_at) {
    line_++;
    line_begin_ = newline_at + 1;
  }

  [[noreturn]] void fail(size_t at, const std::string& why) const {
    size_t column = 1;
    for (size_t k = line_begin_; k < at; k++) column += (byte(k) & 0xC0) != 0x80;  // characters, not bytes
    throw ConfigError(source_ + ":" + std::to_string(line_) + ":" + std::to_string(column) + ": " + why);
  }

  void check_utf8() {
    const size_t bad = utf8_error_at(s_);
    if (bad == std::string_view::npos) return;
    line_ = 1, line_begin_ = 0;
    for (size_t i = 0; i < bad; i++) {
      if (s_[i] == '\n') new_line(i);
    }
    fail(bad, "not valid UTF-8 (a configuration file must be UTF-8 text)");
  }

  // From an opening quote to just past the closing one (or to the end of the line for an
  // unterminated one-line string: toml++ reports it).
  size_t skip_string(size_t i) {
    const char q = s_[i];
    const bool basic = q == '"';
    const std::string triple(3, q);
    const bool multi = s_.compare(i, 3, triple) == 0;
    size_t j = i + (multi ? 3 : 1);
    while (j < s_.size()) {
      char c = s_[j];
      if (c == '\n') {
        if (!multi) return j;
        new_line(j);
        j++;
        continue;
      }
      if (multi && s_.compare(j, 3, triple) == 0) {
        j += 3;
        for (int extra = 0; extra < 2 && j < s_.size() && s_[j] == q; extra++) j++;  // """a"""" ends in a quote
        return j;
      }
      if (!multi && c == q) return j + 1;
      if (basic && c == '\\' && j + 1 < s_.size()) {
        size_t k = j + 1;
        if (!multi) {
          j = k + 1;
          continue;
        }
        // toml++ tests what follows a backslash, and after a line-ending backslash each character
        // up to the next non-whitespace one, for non-ASCII whitespace.
        size_t m = k;
        while (m < s_.size() && (s_[m] == ' ' || s_[m] == '\t' || s_[m] == '\r')) m++;
        bool line_ending = m < s_.size() && s_[m] == '\n';
        while (line_ending && m < s_.size() && (s_[m] == ' ' || s_[m] == '\t' || s_[m] == '\r' || s_[m] == '\n')) {
          if (s_[m] == '\n') new_line(m);
          m++;
        }
        if (m < s_.size() && byte(m) >= 0x80) {
          fail(m, line_ending ? "a non-ASCII character first after a line-ending backslash in a multi-line string "
                                "(the TOML library mishandles it); write it as an escape, e.g. \\u00A7"
                              : "a non-ASCII character after a backslash in a multi-line string (the TOML library "
                                "mishandles it); write it as an escape, e.g. \\u00A7");
        }
        j = m > k ? m : k + 1;
        continue;
      }
      j++;
    }
    return j;
  }

  const std::string& s_;
  const std::string& source_;
  size_t line_ = 1, line_begin_ = 0;
};

}  // namespace

void check_toml_input(const std::string& text, const std::string& source) { TomlGuard(text, source).check(); }

}  // namespace cuzk::server
