#include "r1cs/compiled_circuit_file.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <openssl/evp.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace cuzk::r1cs {
namespace {

constexpr char kMagic[8] = {'C', 'U', 'Z', 'K', 'R', '1', 'C', 'S'};
// Bounds a file's counts before anything is allocated for them (a corrupted count must not make
// the reader ask for terabytes).
constexpr uint64_t kMaxIdBytes = 4096;

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 (libcrypto)");
  }
  ~Sha256() { EVP_MD_CTX_free(ctx_); }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
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

class Writer {
 public:
  explicit Writer(const std::filesystem::path& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  void bytes(const void* p, size_t n) {
    sha_.update(p, n);
    out_.write(static_cast<const char*>(p), std::streamsize(n));
  }
  template <class T>
  void value(T v) {
    bytes(&v, sizeof(v));
  }
  template <class T>
  void array(const std::vector<T>& v) {
    bytes(v.data(), v.size() * sizeof(T));
  }
  void finish() {
    uint8_t digest[32];
    sha_.finish(digest);
    out_.write(reinterpret_cast<const char*>(digest), 32);
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write " + path_.string() + " (disk full?)");
  }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
  Sha256 sha_;
};

class Reader {
 public:
  Reader(const std::filesystem::path& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) fail("cannot be opened");
    std::error_code ec;
    size_ = std::filesystem::file_size(path, ec);
    if (ec) fail("cannot be sized");
    if (size_ < 32) fail("is truncated (" + std::to_string(size_) + " bytes)");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw CompiledCircuitFileError("compiled circuit " + path_.string() + " " + what);
  }
  void bytes(void* p, size_t n) {
    if (n > size_ - 32 - at_)
      fail("is truncated (it ends before its " + std::to_string(n) + "-byte field at " + std::to_string(at_) + ")");
    in_.read(static_cast<char*>(p), std::streamsize(n));
    if (!in_) fail("could not be read");
    sha_.update(p, n);
    at_ += n;
  }
  template <class T>
  T value() {
    T v;
    bytes(&v, sizeof(v));
    return v;
  }
  // count elements, checked against the bytes left first.
  template <class T>
  std::vector<T> array(uint64_t count, const char* what) {
    if (count > (size_ - 32 - at_) / sizeof(T)) fail(std::string("is truncated (") + what + " runs past its end)");
    std::vector<T> v(count);
    bytes(v.data(), count * sizeof(T));
    return v;
  }
  void finish() {
    if (at_ != size_ - 32) fail("has " + std::to_string(size_ - 32 - at_) + " unexpected bytes before its checksum");
    uint8_t want[32], got[32];
    in_.read(reinterpret_cast<char*>(want), 32);
    if (!in_) fail("could not be read");
    sha_.finish(got);
    if (std::memcmp(want, got, 32) != 0) fail("is corrupted (its SHA-256 does not match its content)");
  }

 private:
  std::filesystem::path path_;
  std::ifstream in_;
  uint64_t size_ = 0, at_ = 0;
  Sha256 sha_;
};

void write_rows(Writer& w, const SparseRows& m) {
  w.value<uint64_t>(m.row_start.size());
  w.value<uint64_t>(m.column.size());
  w.array(m.row_start);
  w.array(m.column);
  w.array(m.coeff);
  if (m.coeff.size() % 2) w.value<uint16_t>(0);
}

// The arrays only: what they hold is checked once the checksum says they are what was written
// (check_rows), so that a flipped bit is reported as corruption.
SparseRows read_rows(Reader& r, const char* name, const CompiledCircuit& cc) {
  SparseRows m;
  const auto starts = r.value<uint64_t>(), entries = r.value<uint64_t>();
  if (starts != cc.constraints + 1) r.fail(std::string("has ") + name + " with another number of rows");
  m.row_start = r.array<uint32_t>(starts, name);
  m.column = r.array<uint32_t>(entries, name);
  m.coeff = r.array<uint16_t>(entries, name);
  if (entries % 2) r.value<uint16_t>();
  return m;
}

void check_rows(const Reader& r, const SparseRows& m, const char* name, const CompiledCircuit& cc) {
  if (m.row_start.front() != 0 || m.row_start.back() != m.column.size()) {
    r.fail(std::string("has ") + name + "'s rows out of range");
  }
  for (size_t i = 1; i < m.row_start.size(); i++) {
    if (m.row_start[i] < m.row_start[i - 1]) r.fail(std::string("has ") + name + "'s rows out of order");
  }
  const uint64_t columns = cc.aux + cc.inputs;
  for (uint32_t c : m.column) {
    if (c >= columns) r.fail(std::string("has a column of ") + name + " past the witness");
  }
  for (uint16_t k : m.coeff) {
    if (k >= cc.coefficients.size()) r.fail(std::string("has a coefficient of ") + name + " past its table");
  }
}

void write_density(Writer& w, const DensityTracker& d) {
  w.value<uint64_t>(d.size());
  w.array(d.words());
}

std::vector<uint64_t> read_density(Reader& r, const char* name, uint64_t expected_bits) {
  const auto bits = r.value<uint64_t>();
  if (bits != expected_bits) r.fail(std::string("has a ") + name + " density of another size");
  return r.array<uint64_t>((bits + 63) / 64, name);
}

DensityTracker checked_density(const Reader& r, std::vector<uint64_t> words, const char* name, uint64_t bits) {
  if (bits % 64 && !words.empty() && (words.back() >> (bits % 64)) != 0) {
    r.fail(std::string("has ") + name + "'s padding set");
  }
  return DensityTracker::from_words(std::move(words), bits);
}

}  // namespace

void write_compiled_circuit(const std::filesystem::path& path, std::string_view circuit_id, const CompiledCircuit& cc) {
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  try {
    Writer w(tmp);
    w.bytes(kMagic, sizeof(kMagic));
    w.value<uint32_t>(kCompiledCircuitFormat);
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
  const auto raw = r.array<uint8_t>(uint64_t(coefficients) * 32, "the coefficients");
  cc.a = read_rows(r, "A", cc);
  cc.b = read_rows(r, "B", cc);
  cc.c = read_rows(r, "C", cc);
  auto a_aux = read_density(r, "A aux", cc.aux);
  auto b_input = read_density(r, "B input", cc.inputs);
  auto b_aux = read_density(r, "B aux", cc.aux);
  r.finish();  // the checksum first: what follows checks content that is as it was written
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
