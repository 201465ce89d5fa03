#include "interop/snarkjs/binary_file.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace cuzk::snarkjs {
namespace {

uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t load_u64(const uint8_t* p) { return uint64_t(load_u32(p)) | uint64_t(load_u32(p + 4)) << 32; }

std::string printable(std::span<const uint8_t> bytes) {
  std::string s;
  for (uint8_t b : bytes) s += (b >= 32 && b < 127) ? char(b) : '?';
  return s;
}

void store_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = uint8_t(v >> (8 * i));
}

}  // namespace

BinaryFileWriter::BinaryFileWriter(std::string_view magic, uint32_t version, uint32_t section_count)
    : expected_sections_(section_count) {
  if (magic.size() != 4) throw std::logic_error("a snarkjs file's magic has 4 bytes");
  out_.assign(magic.begin(), magic.end());
  u32(version);
  u32(section_count);
}

void BinaryFileWriter::u32(uint32_t v) {
  uint8_t b[4];
  store_u32(b, v);
  out_.insert(out_.end(), b, b + 4);
}

void BinaryFileWriter::bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }

std::span<uint8_t> BinaryFileWriter::reserve(size_t n) {
  const size_t at = out_.size();
  out_.resize(at + n);
  return {out_.data() + at, n};
}

void BinaryFileWriter::begin_section(uint32_t type) {
  if (open_at_ != 0) throw std::logic_error("BinaryFileWriter: a section is already open");
  u32(type);
  open_at_ = out_.size();
  out_.resize(out_.size() + 8);
}

void BinaryFileWriter::end_section() {
  if (open_at_ == 0) throw std::logic_error("BinaryFileWriter: no section is open");
  const uint64_t size = out_.size() - open_at_ - 8;
  store_u32(out_.data() + open_at_, uint32_t(size));
  store_u32(out_.data() + open_at_ + 4, uint32_t(size >> 32));
  open_at_ = 0;
  written_sections_++;
}

std::vector<uint8_t> BinaryFileWriter::finish() && {
  if (open_at_ != 0 || written_sections_ != expected_sections_) {
    throw std::logic_error("BinaryFileWriter: " + std::to_string(written_sections_) + " sections closed, " +
                           std::to_string(expected_sections_) + " declared");
  }
  return std::move(out_);
}

void write_binary_file(const std::string& path, std::span<const uint8_t> bytes, std::string_view what) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f.flush()) {
      std::remove(tmp.c_str());
      throw FormatError(path + ": cannot write the " + std::string(what) + " (" + std::to_string(bytes.size()) +
                        " bytes) to " + tmp);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw FormatError(path + ": cannot rename " + tmp + " to it");
  }
}

BinaryFile BinaryFile::read(const std::string& path, std::string_view magic, uint32_t max_version) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw FormatError(path + ": cannot open the file");
  const std::streamoff size = in.tellg();
  if (size < 0) throw FormatError(path + ": cannot tell the file's size");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw FormatError(path + ": read error");
  return parse(std::move(bytes), path, magic, max_version);
}

BinaryFile BinaryFile::parse(std::vector<uint8_t> bytes, std::string name, std::string_view magic,
                             uint32_t max_version) {
  BinaryFile f;
  f.bytes_ = std::move(bytes);
  f.name_ = std::move(name);
  const size_t size = f.bytes_.size();
  const uint8_t* p = f.bytes_.data();
  if (size < 12) {
    throw FormatError(f.name_ + ": file header at offset 0: expected 12 bytes (magic \"" + std::string(magic) +
                      "\", version, section count), the file has " + std::to_string(size));
  }
  if (std::string_view(reinterpret_cast<const char*>(p), 4) != magic) {
    throw FormatError(f.name_ + ": file header at offset 0: expected magic \"" + std::string(magic) + "\", found \"" +
                      printable({p, 4}) + "\" (not a snarkjs " + std::string(magic) + " file)");
  }
  f.version_ = load_u32(p + 4);
  if (f.version_ == 0 || f.version_ > max_version) {
    throw FormatError(f.name_ + ": file header at offset 4: version " + std::to_string(f.version_) +
                      " is not supported (expected 1 to " + std::to_string(max_version) + ")");
  }
  const uint32_t count = load_u32(p + 8);
  uint64_t at = 12;
  for (uint32_t i = 0; i < count; i++) {
    if (size - at < 12) {
      throw FormatError(f.name_ + ": section table entry " + std::to_string(i) + " at offset " + std::to_string(at) +
                        ": expected a 12-byte section header, " + std::to_string(size - at) +
                        " bytes left (truncated file)");
    }
    SectionEntry s{load_u32(p + at), at + 12, load_u64(p + at + 4)};
    if (s.size > size - s.offset) {
      throw FormatError(f.name_ + ": section " + std::to_string(s.type) + " at offset " + std::to_string(at) +
                        ": declares " + std::to_string(s.size) + " bytes, only " + std::to_string(size - s.offset) +
                        " left in the file (truncated file)");
    }
    f.sections_.push_back(s);
    at = s.offset + s.size;
  }
  if (at != size) {
    throw FormatError(f.name_ + ": offset " + std::to_string(at) + ": " + std::to_string(size - at) +
                      " bytes after the last of " + std::to_string(count) + " sections (corrupted section table)");
  }
  return f;
}

const SectionEntry* BinaryFile::find(uint32_t type, std::string_view what) const {
  const SectionEntry* found = nullptr;
  for (const SectionEntry& s : sections_) {
    if (s.type != type) continue;
    if (found) {
      throw FormatError(name_ + ": section " + std::to_string(type) + " (" + std::string(what) + ") at offset " +
                        std::to_string(s.offset - 12) + ": appears twice (expected once)");
    }
    found = &s;
  }
  return found;
}

SectionReader BinaryFile::reader(uint32_t type, std::string_view what) const {
  const SectionEntry* s = find(type, what);
  if (!s) {
    throw FormatError(name_ + ": section " + std::to_string(type) + " (" + std::string(what) +
                      ") is missing (truncated or not a complete file)");
  }
  return reader(*s, what);
}

SectionReader BinaryFile::reader(const SectionEntry& section, std::string_view what) const {
  return SectionReader(bytes_, name_, section, what);
}

SectionReader::SectionReader(std::span<const uint8_t> file, const std::string& file_name, const SectionEntry& section,
                             std::string_view what)
    : file_(file), file_name_(file_name), section_(section), what_(what) {}

std::span<const uint8_t> SectionReader::bytes(size_t n, std::string_view field) {
  if (n > remaining()) {
    fail(field, "expected " + std::to_string(n) + " bytes, " + std::to_string(remaining()) +
                    " left in the section of " + std::to_string(section_.size));
  }
  std::span<const uint8_t> out = file_.subspan(section_.offset + position_, n);
  position_ += n;
  return out;
}

uint32_t SectionReader::u32(std::string_view field) { return load_u32(bytes(4, field).data()); }
uint64_t SectionReader::u64(std::string_view field) { return load_u64(bytes(8, field).data()); }

void SectionReader::expect_remaining(uint64_t n, std::string_view what) const {
  if (remaining() != n) {
    fail(what, "expected " + std::to_string(n) + " more bytes, the section has " + std::to_string(remaining()));
  }
}

void SectionReader::expect_end() const {
  if (remaining() != 0) fail("end of section", std::to_string(remaining()) + " unexpected trailing bytes");
}

void SectionReader::fail(std::string_view field, const std::string& detail) const { fail_at(offset(), field, detail); }

void SectionReader::fail_at(uint64_t absolute_offset, std::string_view field, const std::string& detail) const {
  throw FormatError(file_name_ + ": section " + std::to_string(section_.type) + " (" + what_ + ") at offset " +
                    std::to_string(absolute_offset) + ": " + std::string(field) + ": " + detail);
}

}  // namespace cuzk::snarkjs
