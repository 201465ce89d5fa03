#include "r1cs/compiled_circuit_file.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <system_error>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <unistd.h>
#include <vector>

#include "util/owned_fd.hpp"

namespace cuzk::r1cs {
namespace {

constexpr char kMagic[8] = {'C', 'U', 'Z', 'K', 'R', '1', 'C', 'S'};
// Bounds a file's counts before anything is allocated for them (a corrupted count must not make
// the reader ask for terabytes).
constexpr uint64_t kMaxIdBytes = 4096;

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_) throw std::runtime_error("SHA-256 (libcrypto)");
    reset();
  }
  ~Sha256() { EVP_MD_CTX_free(ctx_); }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void reset() {
    if (EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 (libcrypto)");
  }
  void update(const void* p, size_t n) {
    if (n && EVP_DigestUpdate(ctx_, p, n) != 1) throw std::runtime_error("SHA-256 (libcrypto)");
  }
  void finish(uint8_t out[32]) {
    unsigned n = 0;
    if (EVP_DigestFinal_ex(ctx_, out, &n) != 1 || n != 32) throw std::runtime_error("SHA-256 (libcrypto)");
  }

 private:
  EVP_MD_CTX* ctx_;
};

// The body's digest: the SHA-256 of each block of it (the last one shorter), then the SHA-256 of
// those digests. A single SHA-256 of 5.5 GiB (a 32 GiB PoRep's matrices) takes one core ~3 s;
// blocks are hashed on every core. The file names its block size (as a power of two, within these
// bounds).
constexpr unsigned kMinLogBlock = 12, kMaxLogBlock = 30;

class BlockDigests {
 public:
  explicit BlockDigests(size_t block) : block_bytes_(block) {}
  void update(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (n) {
      const size_t take = std::min(n, block_bytes_ - in_block_);
      block_.update(p, take);
      in_block_ += take, p += take, n -= take;
      if (in_block_ == block_bytes_) close_block();
    }
  }
  void finish(uint8_t out[32]) {
    if (in_block_) close_block();
    root(digests_, out);
  }
  static void root(const std::vector<uint8_t>& digests, uint8_t out[32]) {
    Sha256 sha;
    sha.update(digests.data(), digests.size());
    sha.finish(out);
  }

 private:
  void close_block() {
    uint8_t d[32];
    block_.finish(d);
    digests_.insert(digests_.end(), d, d + 32);
    block_.reset();
    in_block_ = 0;
  }
  const size_t block_bytes_;
  Sha256 block_;
  size_t in_block_ = 0;
  std::vector<uint8_t> digests_;
};

class Writer {
 public:
  Writer(const std::filesystem::path& path, size_t digest_block)
      : path_(path), out_(path, std::ios::binary | std::ios::trunc), digests_(digest_block) {
    if (!out_) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  void bytes(const void* p, size_t n) {
    digests_.update(p, n);
    out_.write(static_cast<const char*>(p), std::streamsize(n));
  }
  template <class T>
  void value(T v) {
    bytes(&v, sizeof(v));
  }
  template <class V>
  void array(const V& v) {
    bytes(v.data(), v.size() * sizeof(v[0]));
  }
  void finish() {
    uint8_t digest[32];
    digests_.finish(digest);
    out_.write(reinterpret_cast<const char*>(digest), 32);
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write " + path_.string() + " (disk full?)");
  }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
  BlockDigests digests_;
};

// Reads a file in two steps: its fields are parsed from the front (bytes(), value()), its arrays
// only located (array(): sized, and filled later), then fill() reads the whole body on every core,
// hashing each block and copying its bytes into the arrays, and checks the digest. Read with
// pread, not mapped: a file cut short under a mapping would kill the process.
class Reader {
 public:
  explicit Reader(const std::filesystem::path& path) : path_(path) {
    fd_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_.fd < 0) fail("cannot be opened");
    struct stat st {};
    if (fstat(fd_.fd, &st) != 0) fail("cannot be sized");
    size_ = uint64_t(st.st_size);
    if (size_ < 32) fail("is truncated (" + std::to_string(size_) + " bytes)");
    body_ = size_ - 32;
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw CompiledCircuitFileError("compiled circuit " + path_.string() + " " + what);
  }
  // The next n bytes, read now (header fields).
  void bytes(void* p, size_t n) {
    take(n);
    read_at(at_ - n, p, n);
  }
  template <class T>
  T value() {
    T v;
    bytes(&v, sizeof(v));
    return v;
  }
  // count elements into v, checked against the bytes left first; filled by fill().
  template <class V>
  void array(V& v, uint64_t count, const char* what) {
    using T = typename V::value_type;
    if (count > (body_ - at_) / sizeof(T)) fail(std::string("is truncated (") + what + " runs past its end)");
    v.resize(count);
    const size_t n = count * sizeof(T);
    if (n) pieces_.push_back({at_, n, reinterpret_cast<uint8_t*>(v.data())});
    at_ += n;
  }
  // The digest's block size, from the header.
  void set_digest_block(unsigned log_block) {
    if (log_block < kMinLogBlock || log_block > kMaxLogBlock) {
      fail("has digest blocks of 2^" + std::to_string(log_block) + " bytes");
    }
    block_ = size_t(1) << log_block;
  }
  // Reads the body on every core into the arrays and checks its digest.
  void fill() {
    if (at_ != body_) fail("has " + std::to_string(body_ - at_) + " unexpected bytes before its checksum");
    const size_t blocks = size_t((body_ + block_ - 1) / block_);
    std::vector<uint8_t> digests(32 * blocks);
    tbb::parallel_for(size_t(0), blocks, [&](size_t block) { fill_block(block, digests.data() + 32 * block); });
    uint8_t want[32], got[32];
    read_at(body_, want, 32);
    BlockDigests::root(digests, got);
    if (std::memcmp(want, got, 32) != 0) fail("is corrupted (its SHA-256 digests do not match its content)");
  }

 private:
  struct Piece {
    uint64_t offset, bytes;
    uint8_t* to;
  };
  void take(size_t n) {
    if (n > body_ - at_)
      fail("is truncated (it ends before its " + std::to_string(n) + "-byte field at " + std::to_string(at_) + ")");
    at_ += n;
  }
  void read_at(uint64_t offset, void* p, size_t n) const {
    auto* out = static_cast<uint8_t*>(p);
    while (n) {
      const ssize_t got = ::pread(fd_.fd, out, n, off_t(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0)
        fail(got < 0 ? std::string("could not be read: ") + std::strerror(errno) : "changed while it was read");
      out += got, offset += uint64_t(got), n -= size_t(got);
    }
  }
  // One block: read a slice at a time (it stays in the core's cache), hashed and copied into the
  // arrays it overlaps.
  void fill_block(size_t block, uint8_t digest[32]) const {
    constexpr size_t kSlice = size_t(1) << 20;
    std::vector<uint8_t> slice(kSlice);
    Sha256 sha;
    const uint64_t begin = uint64_t(block) * block_, end = std::min<uint64_t>(body_, begin + block_);
    for (uint64_t at = begin; at < end; at += kSlice) {
      const size_t n = size_t(std::min<uint64_t>(kSlice, end - at));
      read_at(at, slice.data(), n);
      sha.update(slice.data(), n);
      for (const Piece& p : pieces_) {
        const uint64_t from = std::max(at, p.offset), to = std::min(at + n, p.offset + p.bytes);
        if (from < to) std::memcpy(p.to + (from - p.offset), slice.data() + (from - at), size_t(to - from));
      }
    }
    sha.finish(digest);
  }

  std::filesystem::path path_;
  OwnedFd fd_;  // a member: closed also when the constructor refuses the file
  uint64_t size_ = 0, body_ = 0, at_ = 0;
  size_t block_ = 0;
  std::vector<Piece> pieces_;
};

void write_rows(Writer& w, const SparseRows& m) {
  w.value<uint64_t>(m.row_start.size());
  w.value<uint64_t>(m.column.size());
  w.array(m.row_start);
  w.array(m.column);
  w.array(m.coeff);
  if (m.coeff.size() % 2) w.value<uint16_t>(0);
}

// The arrays only, located in the file (Reader::fill reads them): what they hold is checked once
// the digest says they are what was written (check_rows), so that a flipped bit is reported as
// corruption.
void read_rows(Reader& r, const char* name, const CompiledCircuit& cc, SparseRows& m) {
  const auto starts = r.value<uint64_t>(), entries = r.value<uint64_t>();
  if (starts != cc.constraints + 1) r.fail(std::string("has ") + name + " with another number of rows");
  r.array(m.row_start, starts, name);
  r.array(m.column, entries, name);
  r.array(m.coeff, entries, name);
  if (entries % 2) r.value<uint16_t>();
}

// Whether every element of v satisfies ok, on every core.
template <class V, class Ok>
bool all_of_parallel(const V& v, Ok ok) {
  return tbb::parallel_reduce(
      tbb::blocked_range<size_t>(0, v.size(), size_t(1) << 20), true,
      [&](const tbb::blocked_range<size_t>& range, bool so_far) {
        for (size_t i = range.begin(); so_far && i != range.end(); i++) so_far = ok(i);
        return so_far;
      },
      [](bool x, bool y) { return x && y; });
}

void check_rows(const Reader& r, const SparseRows& m, const char* name, const CompiledCircuit& cc) {
  if (m.row_start.front() != 0 || m.row_start.back() != m.column.size()) {
    r.fail(std::string("has ") + name + "'s rows out of range");
  }
  if (!all_of_parallel(m.row_start, [&](size_t i) { return i == 0 || m.row_start[i] >= m.row_start[i - 1]; })) {
    r.fail(std::string("has ") + name + "'s rows out of order");
  }
  const uint64_t columns = cc.aux + cc.inputs;
  if (!all_of_parallel(m.column, [&](size_t i) { return m.column[i] < columns; })) {
    r.fail(std::string("has a column of ") + name + " past the witness");
  }
  const size_t table = cc.coefficients.size();
  if (!all_of_parallel(m.coeff, [&](size_t i) { return m.coeff[i] < table; })) {
    r.fail(std::string("has a coefficient of ") + name + " past its table");
  }
}

void write_density(Writer& w, const DensityTracker& d) {
  w.value<uint64_t>(d.size());
  w.array(d.words());
}

void read_density(Reader& r, const char* name, uint64_t expected_bits, std::vector<uint64_t>& words) {
  const auto bits = r.value<uint64_t>();
  if (bits != expected_bits) r.fail(std::string("has a ") + name + " density of another size");
  r.array(words, (bits + 63) / 64, name);
}

DensityTracker checked_density(const Reader& r, std::vector<uint64_t> words, const char* name, uint64_t bits) {
  if (bits % 64 && !words.empty() && (words.back() >> (bits % 64)) != 0) {
    r.fail(std::string("has ") + name + "'s padding set");
  }
  return DensityTracker::from_words(std::move(words), bits);
}

}  // namespace

void write_compiled_circuit(const std::filesystem::path& path, std::string_view circuit_id, const CompiledCircuit& cc,
                            unsigned log_digest_block) {
  if (log_digest_block < kMinLogBlock || log_digest_block > kMaxLogBlock) {
    throw std::invalid_argument("compiled circuit: digest blocks of 2^" + std::to_string(log_digest_block) +
                                " bytes are outside 2^12..2^30");
  }
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  try {
    Writer w(tmp, size_t(1) << log_digest_block);
    w.bytes(kMagic, sizeof(kMagic));
    w.value<uint32_t>(kCompiledCircuitFormat);
    w.value<uint32_t>(log_digest_block);
    w.value<uint32_t>(uint32_t(circuit_id.size()));
    w.bytes(circuit_id.data(), circuit_id.size());
    w.value<uint64_t>(cc.constraints);
    w.value<uint64_t>(cc.inputs);
    w.value<uint64_t>(cc.aux);
    w.value<uint32_t>(uint32_t(cc.coefficients.size()));
    for (const Fr& k : cc.coefficients) {
      uint8_t b[32];
      k.to_bytes_le(b);
      w.bytes(b, 32);
    }
    for (const SparseRows* m : {&cc.a, &cc.b, &cc.c}) write_rows(w, *m);
    for (const DensityTracker* d : {&cc.a_aux_density, &cc.b_input_density, &cc.b_aux_density}) write_density(w, *d);
    w.finish();
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  std::filesystem::rename(tmp, path);
}

CompiledCircuit read_compiled_circuit(const std::filesystem::path& path, std::string_view circuit_id) {
  Reader r(path);
  char magic[8];
  r.bytes(magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0) r.fail("is not a compiled circuit (no CUZKR1CS header)");
  const auto format = r.value<uint32_t>();
  if (format != kCompiledCircuitFormat) {
    r.fail("has format " + std::to_string(format) + ", this build reads " + std::to_string(kCompiledCircuitFormat));
  }
  r.set_digest_block(r.value<uint32_t>());
  const auto id_bytes = r.value<uint32_t>();
  if (id_bytes > kMaxIdBytes) r.fail("has an id of " + std::to_string(id_bytes) + " bytes");
  std::string id(id_bytes, '\0');
  r.bytes(id.data(), id_bytes);
  if (id != circuit_id) r.fail("is of " + id + ", not " + std::string(circuit_id));
  CompiledCircuit cc;
  cc.constraints = r.value<uint64_t>();
  cc.inputs = r.value<uint64_t>();
  cc.aux = r.value<uint64_t>();
  if (cc.inputs == 0 || cc.aux + cc.inputs > 0xffffffffull || cc.constraints >= 0xffffffffull) {
    r.fail("has impossible counts");
  }
  const auto coefficients = r.value<uint32_t>();
  if (coefficients < 2 || coefficients > 65536) r.fail("has " + std::to_string(coefficients) + " coefficients");
  std::vector<uint8_t> raw;
  r.array(raw, uint64_t(coefficients) * 32, "the coefficients");
  read_rows(r, "A", cc, cc.a);
  read_rows(r, "B", cc, cc.b);
  read_rows(r, "C", cc, cc.c);
  std::vector<uint64_t> a_aux, b_input, b_aux;
  read_density(r, "A aux", cc.aux, a_aux);
  read_density(r, "B input", cc.inputs, b_input);
  read_density(r, "B aux", cc.aux, b_aux);
  r.fill();  // the digest first: what follows checks content that is as it was written
  cc.coefficients.resize(coefficients);
  for (uint32_t i = 0; i < coefficients; i++) {
    if (!Fr::from_bytes_le(raw.data() + 32 * i, cc.coefficients[i])) r.fail("has a coefficient outside the field");
  }
  if (cc.coefficients[CompiledCircuit::kPlusOne] != Fr::one() ||
      cc.coefficients[CompiledCircuit::kMinusOne] != -Fr::one()) {
    r.fail("does not start its coefficients with 1 and -1");
  }
  check_rows(r, cc.a, "A", cc);
  check_rows(r, cc.b, "B", cc);
  check_rows(r, cc.c, "C", cc);
  cc.a_aux_density = checked_density(r, std::move(a_aux), "A aux", cc.aux);
  cc.b_input_density = checked_density(r, std::move(b_input), "B input", cc.inputs);
  cc.b_aux_density = checked_density(r, std::move(b_aux), "B aux", cc.aux);
  return cc;
}

std::shared_ptr<const CompiledCircuit> load_or_compile(const std::filesystem::path& path, std::string_view circuit_id,
                                                       const std::function<CompiledCircuit()>& compile,
                                                       const std::function<void(const std::string&)>& log) {
  using Clock = std::chrono::steady_clock;
  auto say = [&](const std::string& line) {
    if (log) log(line);
  };
  auto t0 = Clock::now();
  std::string why = "no file yet";
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    try {
      auto cc = std::make_shared<const CompiledCircuit>(read_compiled_circuit(path, circuit_id));
      say("compiled circuit " + std::string(circuit_id) + " read from " + path.string() + " in " +
          std::to_string(std::chrono::duration<double>(Clock::now() - t0).count()) + " s (" +
          std::to_string(cc->bytes() >> 20) + " MiB)");
      return cc;
    } catch (const CompiledCircuitFileError& e) {
      why = e.what();
    }
  }
  t0 = Clock::now();
  auto cc = std::make_shared<const CompiledCircuit>(compile());
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  try {
    write_compiled_circuit(path, circuit_id, *cc);
  } catch (const std::exception& e) {
    say("compiled circuit " + std::string(circuit_id) + " not saved: " + e.what());
  }
  say("compiled circuit " + std::string(circuit_id) + " recorded in " + std::to_string(took) + " s (" +
      std::to_string(cc->bytes() >> 20) + " MiB; " + why + ")");
  return cc;
}

}  // namespace cuzk::r1cs
