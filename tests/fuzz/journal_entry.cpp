// Fuzz target: the spool's entry decoder (server/journal.hpp), which reads every <id>.job file a
// restarted daemon finds. Each input is decoded twice: as a whole file, and as the payload of a
// frame with a valid header and checksum (so that mutations reach the payload's fields instead of
// stopping at the checksum). Oracle: anything refused is refused as JournalCorrupt; an accepted
// entry encodes to a file that decodes to an entry encoding to the same bytes (the encoder is
// canonical: a flag byte of 2 reads as true and is written back as 1).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "server/journal.hpp"

using namespace cuzk::server;

namespace {

// The header's first 16 bytes (magic, version, reserved) as the encoder writes them.
const std::string& header_start() {
  static const std::string start = encode_journal_entry(JournalEntry{}).substr(0, 16);
  return start;
}

// A file of this payload with a header that announces its length and checksum.
std::string framed(std::string_view payload) {
  std::string file = header_start();
  const uint64_t length = payload.size();
  for (int i = 0; i < 8; i++) file.push_back(char(length >> (8 * i)));
  const RequestDigest sum = request_digest(payload);
  file.append(reinterpret_cast<const char*>(sum.data()), sum.size());
  file.append(payload);
  return file;
}

void check_one(std::string_view bytes) {
  JournalEntry e;
  try {
    e = decode_journal_entry(bytes);
  } catch (const JournalCorrupt&) {
    return;
  }
  const std::string written = encode_journal_entry(e);
  std::string again;
  try {
    again = encode_journal_entry(decode_journal_entry(written));
  } catch (const std::exception&) {
    CUZK_FUZZ_CHECK(!"the encoding of an accepted entry does not decode");
  }
  CUZK_FUZZ_CHECK(again == written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_one(bytes);
  check_one(framed(bytes));
  return 0;
}
