// The iden3 binary container that snarkjs' .r1cs, .wtns and .zkey files share: a 4-byte magic
// ("r1cs", "wtns", "zkey"), a u32 version, a u32 section count, then sections, each a u32 type,
// a u64 size and that many bytes (little-endian throughout). Reads are bounds-checked, and every
// error names the file, the section and the absolute offset, with what was expected and found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "interop/snarkjs/format_error.hpp"

namespace cuzk::snarkjs {

struct SectionEntry {
  uint32_t type = 0;
  uint64_t offset = 0;  // of the section's first byte in the file
  uint64_t size = 0;
};

class SectionReader;

class BinaryFile {
 public:
  // Reads the whole file. Throws FormatError when it cannot be read, the magic differs, the
  // version is above max_version or a section runs past the end of the file.
  static BinaryFile read(const std::string& path, std::string_view magic, uint32_t max_version);
  // The same over bytes already in memory; name is used in messages.
  static BinaryFile parse(std::vector<uint8_t> bytes, std::string name, std::string_view magic, uint32_t max_version);

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::vector<SectionEntry>& sections() const { return sections_; }
  // The one section of this type, or nullptr when there is none; throws when there are several.
  const SectionEntry* find(uint32_t type, std::string_view what) const;
  // A reader over the one section of this type; throws when it is missing or repeated.
  SectionReader reader(uint32_t type, std::string_view what) const;
  SectionReader reader(const SectionEntry& section, std::string_view what) const;

 private:
  std::vector<uint8_t> bytes_;
  std::string name_;
  uint32_t version_ = 0;
  std::vector<SectionEntry> sections_;
};

// Builds a file of this container in memory: sections are written one after the other, each
// closed before the next begins (its size is filled in by end_section).
class BinaryFileWriter {
 public:
  BinaryFileWriter(std::string_view magic, uint32_t version, uint32_t section_count);
  void begin_section(uint32_t type);
  void u32(uint32_t v);
  void bytes(std::span<const uint8_t> b);
  // Room for n bytes in the open section, to be filled in place (bulk points).
  std::span<uint8_t> reserve(size_t n);
  void end_section();
  // Throws std::logic_error when a section is open or the count differs from the constructor's.
  std::vector<uint8_t> finish() &&;

 private:
  std::vector<uint8_t> out_;
  uint32_t expected_sections_, written_sections_ = 0;
  size_t open_at_ = 0;  // offset of the open section's size field, 0 when none is open
};

// Writes bytes to path through a temporary file beside it and a rename; throws FormatError
// naming the path and what it is when that fails.
void write_binary_file(const std::string& path, std::span<const uint8_t> bytes, std::string_view what);

// Sequential little-endian reads inside one section.
class SectionReader {
 public:
  SectionReader(std::span<const uint8_t> file, const std::string& file_name, const SectionEntry& section,
                std::string_view what);

  uint32_t u32(std::string_view field);
  uint64_t u64(std::string_view field);
  // The next n bytes (a view into the file).
  std::span<const uint8_t> bytes(size_t n, std::string_view field);
  // Checks that exactly n more bytes are left (a section's size against its header's counts).
  void expect_remaining(uint64_t n, std::string_view what) const;
  void expect_end() const;
  uint64_t offset() const { return section_.offset + position_; }  // absolute, of the next read
  uint64_t remaining() const { return section_.size - position_; }
  // Throws FormatError "<file>: section <type> (<what>) at offset <offset>: <field>: <detail>".
  [[noreturn]] void fail(std::string_view field, const std::string& detail) const;
  [[noreturn]] void fail_at(uint64_t absolute_offset, std::string_view field, const std::string& detail) const;

 private:
  std::span<const uint8_t> file_;
  std::string file_name_;
  SectionEntry section_;
  std::string what_;
  uint64_t position_ = 0;
};

}  // namespace cuzk::snarkjs
