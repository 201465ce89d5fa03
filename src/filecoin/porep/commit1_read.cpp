// The Commit1 output's reader: one pass of simdjson On Demand over the document.
#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <simdjson.h>
#include <string>
#include <sys/mman.h>
#include <utility>
#include <vector>

#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/commit1_format.hpp"

namespace cuzk::filecoin {
namespace {

using namespace c1_format;
namespace od = simdjson::ondemand;

// ---------------------------------------------------------------------------------------------
// Reading: one pass of simdjson On Demand over the document (the fields of an object may come in
// any order, as serde accepts), filling the structs; then validate() against the registered proof.

class Reader {
 public:
  Reader(od::parser& parser, simdjson::padded_string_view json)
      : begin_(json.data()), size_(json.size()), parser_(parser) {
    // No document to point into yet (an empty input, say): no path, no location.
    if (auto e = parser_.iterate(json).get(doc_)) fail_document(e);
  }

  SealCommitPhase1Output read() {
    SealCommitPhase1Output c1;
    std::string_view variant;
    const SealProofInfo* info = nullptr;
    od::object top;
    if (auto e = doc_.get_object().get(top)) {
      if (e == simdjson::INCORRECT_TYPE) throw C1FormatError("(top level): expected an object");
      fail_document(e);
    }
    started_ = true;
    static constexpr std::array<std::string_view, 7> kFields = {
        "registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"};
    read_fields(top, kFields, [&](size_t f, od::value v) {
      switch (f) {
        case 0: {
          std::string_view name;
          if (auto e = v.get_string().get(name)) type_error(e, v, "a registered proof name");
          try {
            info = &seal_proof_info(name);
          } catch (const std::invalid_argument& ex) {
            fail(ex.what());
          }
          c1.registered_proof = info->proof;
          break;
        }
        case 1:
          read_vanilla_proofs(v, variant, c1.vanilla_proofs);
          break;
        case 2:
          read_bytes(v, c1.comm_r);
          if (!canonical(c1.comm_r)) fail("not a canonical field element (comm_r is a Poseidon root)");
          break;
        case 3:
          read_bytes(v, c1.comm_d);
          if (!canonical(c1.comm_d)) fail("not a canonical field element (comm_d is a SHA-256 root)");
          break;
        case 4:
          c1.replica_id = read_fr(v);
          break;
        case 5:
          read_bytes(v, c1.seed);
          break;
        default:
          read_bytes(v, c1.ticket);
          break;
      }
    });
    // serde_json rejects anything but whitespace after the value.
    const char* rest = nullptr;
    if (doc_.current_location().get(rest) == simdjson::SUCCESS) {
      throw C1FormatError("trailing characters after the top-level object (byte " + std::to_string(rest - begin_) +
                          ")");
    }
    const std::string want = vanilla_proofs_variant(*info);
    if (variant != want) {
      throw C1FormatError("vanilla_proofs: variant " + std::string(variant) + " holds proofs of another sector size; " +
                          std::string(info->name) + " needs " + want);
    }
    validate_seal_commit_phase1(c1);
    return c1;
  }

 private:
  struct Segment {
    std::string_view key;  // empty for an array element
    size_t index;
  };
  // The JSON path of the value being read, formatted only when an error is thrown.
  class Scope {
   public:
    Scope(Reader& r, std::string_view key) : r_(r) { r_.path_.push_back({key, 0}); }
    explicit Scope(Reader& r) : r_(r) { r_.path_.push_back({{}, 0}); }
    ~Scope() { r_.path_.pop_back(); }
    void set_index(size_t i) { r_.path_.back().index = i; }

   private:
    Reader& r_;
  };

  std::string path() const {
    std::string s;
    for (const Segment& g : path_) {
      if (g.key.empty()) {
        s += idx(g.index);
      } else {
        if (!s.empty()) s += '.';
        s += g.key;
      }
    }
    return s.empty() ? "(top level)" : s;
  }

  std::string location() {
    // simdjson 3.0.1 reads out of bounds for the location of a document with no tokens; inside
    // the top-level object there always is one behind the iterator.
    if (!started_) return "";
    const char* at = nullptr;
    if (doc_.current_location().get(at) != simdjson::SUCCESS) return " (at the end of the input)";
    const ptrdiff_t off = at - begin_;
    if (off < 0 || size_t(off) > size_) return "";
    return " (byte " + std::to_string(off) + ")";
  }

  // simdjson's checks of the whole input (UTF-8, strings, brackets) come before there is a place.
  [[noreturn]] void fail_document(simdjson::error_code e) {
    throw C1FormatError(std::string("malformed JSON: ") + simdjson::error_message(e) + " (input of " +
                        std::to_string(size_) + " bytes)");
  }
  [[noreturn]] void fail(std::string_view what) { throw C1FormatError(path() + ": " + std::string(what) + location()); }
  [[noreturn]] void fail_json(simdjson::error_code e) {
    fail(std::string("malformed JSON: ") + simdjson::error_message(e));
  }

  // What a value is, for "expected X, found Y".
  std::string describe(od::value& v) {
    od::json_type t;
    if (v.type().get(t) != simdjson::SUCCESS) return "an invalid value";
    switch (t) {
      case od::json_type::array:
        return "an array";
      case od::json_type::object:
        return "an object";
      case od::json_type::string:
        return "a string";
      case od::json_type::boolean:
        return "a boolean";
      case od::json_type::null:
        return "null";
      default: {
        std::string_view tok = v.raw_json_token();
        while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t')) {
          tok.remove_suffix(1);
        }
        if (tok.size() > 24) return "the number " + std::string(tok.substr(0, 24)) + "...";
        return "the number " + std::string(tok);
      }
    }
  }

  // A getter failed: a wrong type or number names what was expected, anything else is bad JSON.
  [[noreturn]] void type_error(simdjson::error_code e, od::value& v, std::string_view expected) {
    if (e == simdjson::INCORRECT_TYPE || e == simdjson::NUMBER_OUT_OF_RANGE || e == simdjson::NUMBER_ERROR ||
        e == simdjson::STRING_ERROR) {
      fail("expected " + std::string(expected) + ", found " + describe(v));
    }
    fail_json(e);
  }

  od::object get_object(od::value& v) {
    od::object o;
    if (auto e = v.get_object().get(o)) type_error(e, v, "an object");
    return o;
  }
  od::array get_array(od::value& v) {
    od::array a;
    if (auto e = v.get_array().get(a)) type_error(e, v, "an array");
    return a;
  }

  uint64_t read_uint(od::value& v, uint64_t max) {
    uint64_t x = 0;
    if (auto e = v.get_uint64().get(x)) type_error(e, v, "an integer 0.." + std::to_string(max));
    if (x > max) fail("expected an integer 0.." + std::to_string(max) + ", found " + std::to_string(x));
    return x;
  }

  // The fields of a struct: each of `names` exactly once, nothing else (serde_derive would skip
  // unknown fields; a Commit1 output never has any, so one is taken as corruption).
  template <size_t N, class F>
  void read_fields(od::object& obj, const std::array<std::string_view, N>& names, F&& on_field) {
    static_assert(N <= 32);
    uint32_t seen = 0;
    for (auto fr : obj) {
      od::field field;
      if (auto e = std::move(fr).get(field)) fail_json(e);
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) fail_json(e);
      size_t f = 0;
      while (f < N && names[f] != key) f++;
      if (f == N) {
        std::string known;
        for (std::string_view n : names) known += std::string(known.empty() ? "" : ", ") + std::string(n);
        fail("unknown field \"" + std::string(key.substr(0, 64)) + "\" (expected " + known + ")");
      }
      if (seen & (1u << f)) fail("duplicate field \"" + std::string(key) + "\"");
      seen |= 1u << f;
      Scope s(*this, names[f]);
      od::value v = field.value();
      on_field(f, v);
    }
    for (size_t f = 0; f < N; f++) {
      if (!(seen & (1u << f))) fail("missing field \"" + std::string(names[f]) + "\"");
    }
  }
  template <size_t N, class F>
  void read_fields(od::value& v, const std::array<std::string_view, N>& names, F&& on_field) {
    od::object o = get_object(v);
    read_fields(o, names, on_field);
  }

  // An externally tagged serde enum: an object with exactly one field, the variant.
  template <size_t N, class F>
  void read_variant(od::value& v, const std::array<std::string_view, N>& names, F&& on_variant) {
    od::object obj = get_object(v);
    size_t count = 0;
    for (auto fr : obj) {
      od::field field;
      if (auto e = std::move(fr).get(field)) fail_json(e);
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) fail_json(e);
      if (count++) fail("more than one variant (a second one, \"" + std::string(key.substr(0, 64)) + "\")");
      size_t f = 0;
      while (f < N && names[f] != key) f++;
      if (f == N) {
        std::string known;
        for (std::string_view n : names) known += std::string(known.empty() ? "" : ", ") + std::string(n);
        fail("unknown variant \"" + std::string(key.substr(0, 64)) + "\" (expected one of " + known + ")");
      }
      Scope s(*this, names[f]);
      od::value val = field.value();
      on_variant(f, val);
    }
    if (!count) fail("expected one variant, found an empty object");
  }

  // Each element of an array, with its index in the path.
  template <class F>
  void read_array(od::value& v, F&& each) {
    od::array arr = get_array(v);
    Scope s(*this);
    size_t i = 0;
    for (auto er : arr) {
      s.set_index(i);
      od::value e;
      if (auto err = er.get(e)) fail_json(err);
      each(i, e);
      i++;
    }
  }

  // The byte arrays, nearly all of a Commit1 output, are taken whole from simdjson (raw_json: the
  // array's text, delimited by the structural index) and parsed here with a strict loop, several
  // times faster than a getter per number.
  struct Text {
    const char* p;
    const char* end;
    char peek() const { return p < end ? *p : '\0'; }
    void skip_ws() {
      while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    }
  };

  std::string_view raw_array(od::value& v) {
    od::array arr = get_array(v);
    std::string_view raw;
    if (auto e = arr.raw_json().get(raw)) fail_json(e);
    return raw;
  }

  [[noreturn]] void fail_at(const char* at, std::string_view what) {
    throw C1FormatError(path() + ": " + std::string(what) + " (byte " + std::to_string(at - begin_) + ")");
  }

  // What the text at `s` holds, for "expected X, found Y".
  static std::string describe_text(const char* s, const char* end) {
    if (s >= end) return "the end of the array";
    switch (*s) {
      case '"':
        return "a string";
      case '[':
        return "an array";
      case '{':
        return "an object";
      case 't':
      case 'f':
        return "a boolean";
      case 'n':
        return "null";
      case ',':
      case ']':
        return "no value";
      default: {
        const char* e = s;
        while (e < end && e - s < 24 && *e != ',' && *e != ']' && *e != ' ' && *e != '\n' && *e != '\r' && *e != '\t') {
          e++;
        }
        return "the number " + std::string(s, e) + (e - s == 24 ? "..." : "");
      }
    }
  }

  // serde's [u8; 32] at t.p: exactly 32 integers 0..255 (no sign, fraction or exponent, as serde
  // reads a u8); leaves t.p after the ']'.
  void parse_bytes(Text& t, Bytes32& out) {
    t.skip_ws();
    if (t.peek() != '[') fail_at(t.p, "expected an array of 32 bytes, found " + describe_text(t.p, t.end));
    t.p++;
    t.skip_ws();
    size_t n = 0;
    if (t.peek() == ']') {
      t.p++;
    } else {
      for (;;) {
        const char* s = t.p;
        unsigned x = 0;
        if (t.peek() == '0') {
          t.p++;
        } else {
          while (t.p < t.end && *t.p >= '0' && *t.p <= '9' && t.p - s < 3) x = x * 10 + unsigned(*t.p++ - '0');
        }
        const char d = t.peek();
        const bool delimited = d == ',' || d == ']' || d == ' ' || d == '\n' || d == '\r' || d == '\t';
        if (t.p == s || !delimited || x > 255) {
          Scope sc(*this);
          sc.set_index(n);
          fail_at(s, "expected a byte 0..255, found " + describe_text(s, t.end));
        }
        if (n == 32) fail_at(s, "more than 32 elements, expected 32 bytes");
        out[n++] = uint8_t(x);
        t.skip_ws();
        if (t.peek() == ',') {
          t.p++;
          t.skip_ws();
          continue;
        }
        if (t.peek() == ']') {
          t.p++;
          break;
        }
        fail_at(t.p, "malformed JSON: expected ',' or ']' after an array element");
      }
    }
    if (n != 32) fail_at(t.p - 1, std::to_string(n) + " elements, expected 32 bytes");
  }

  // Anything but whitespace after the array's ']' within its raw text.
  void expect_consumed(Text& t) {
    t.skip_ws();
    if (t.p != t.end) fail_at(t.p, "malformed JSON: unexpected characters after an array");
  }

  Fr to_fr(const Bytes32& b, const char* at) {
    Fr x;
    if (!Fr::from_bytes_le(b.data(), x)) {
      fail_at(at, "not a canonical field element (not below the BLS12-381 scalar modulus)");
    }
    return x;
  }

  void read_bytes(od::value& v, Bytes32& out) {
    const std::string_view raw = raw_array(v);
    Text t{raw.data(), raw.data() + raw.size()};
    parse_bytes(t, out);
    expect_consumed(t);
  }

  Fr read_fr(od::value& v) {
    const std::string_view raw = raw_array(v);
    Text t{raw.data(), raw.data() + raw.size()};
    Bytes32 b;
    parse_bytes(t, b);
    expect_consumed(t);
    return to_fr(b, raw.data());
  }

  // An array of field elements (hashes, rows, parents).
  void read_fr_array(od::value& v, std::vector<Fr>& out, size_t expect) {
    out.reserve(expect);
    const std::string_view raw = raw_array(v);
    Text t{raw.data(), raw.data() + raw.size()};
    t.p++;  // '[', checked by get_array
    t.skip_ws();
    Scope sc(*this);
    if (t.peek() == ']') {
      t.p++;
    } else {
      for (size_t i = 0;; i++) {
        sc.set_index(i);
        t.skip_ws();
        const char* at = t.p;
        Bytes32 b;
        parse_bytes(t, b);
        out.push_back(to_fr(b, at));
        t.skip_ws();
        if (t.peek() == ',') {
          t.p++;
          continue;
        }
        if (t.peek() == ']') {
          t.p++;
          break;
        }
        fail_at(t.p, "malformed JSON: expected ',' or ']' after an array element");
      }
    }
    expect_consumed(t);
  }

  // merkle/proof.rs InclusionPath {path: [PathElement {hashes, index}]}.
  void read_inclusion_path(od::value& v, std::vector<PathElement>& out) {
    static constexpr std::array<std::string_view, 1> kPath = {"path"};
    static constexpr std::array<std::string_view, 2> kElement = {"hashes", "index"};
    read_fields(v, kPath, [&](size_t, od::value& pv) {
      read_array(pv, [&](size_t, od::value& ev) {
        PathElement& pe = out.emplace_back();
        read_fields(ev, kElement, [&](size_t f, od::value& fv) {
          if (f == 0) {
            read_fr_array(fv, pe.hashes, 7);
          } else {
            pe.index = uint32_t(read_uint(fv, UINT32_MAX));
          }
        });
      });
    });
  }

  // merkle/proof.rs MerkleProof {data: ProofData::Single | Sub | Top}.
  void read_merkle_proof(od::value& v, MerkleProof& p) {
    static constexpr std::array<std::string_view, 1> kData = {"data"};
    static constexpr std::array<std::string_view, 3> kKinds = {"Single", "Sub", "Top"};
    static constexpr std::array<std::string_view, 3> kSingle = {"root", "leaf", "path"};
    static constexpr std::array<std::string_view, 4> kSub = {"base_proof", "sub_proof", "root", "leaf"};
    static constexpr std::array<std::string_view, 5> kTop = {"base_proof", "sub_proof", "top_proof", "root", "leaf"};
    read_fields(v, kData, [&](size_t, od::value& dv) {
      read_variant(dv, kKinds, [&](size_t kind, od::value& kv) {
        p.kind = MerkleProof::Kind(kind);
        auto common = [&](std::string_view name, od::value& fv) {
          if (name == "root") {
            p.root = read_fr(fv);
          } else if (name == "leaf") {
            p.leaf = read_fr(fv);
          } else if (name == "base_proof" || name == "path") {
            read_inclusion_path(fv, p.base);
          } else if (name == "sub_proof") {
            read_inclusion_path(fv, p.sub);
          } else {
            read_inclusion_path(fv, p.top);
          }
        };
        if (kind == 0) {
          read_fields(kv, kSingle, [&](size_t f, od::value& fv) { common(kSingle[f], fv); });
        } else if (kind == 1) {
          read_fields(kv, kSub, [&](size_t f, od::value& fv) { common(kSub[f], fv); });
        } else {
          read_fields(kv, kTop, [&](size_t f, od::value& fv) { common(kTop[f], fv); });
        }
      });
    });
  }

  // column_proof.rs ColumnProof {column: Column {index, rows, _h}, inclusion_proof}.
  void read_column_proof(od::value& v, ColumnProof& cp) {
    static constexpr std::array<std::string_view, 2> kFields = {"column", "inclusion_proof"};
    static constexpr std::array<std::string_view, 3> kColumn = {"index", "rows", "_h"};
    read_fields(v, kFields, [&](size_t f, od::value& fv) {
      if (f == 1) return read_merkle_proof(fv, cp.inclusion_proof);
      read_fields(fv, kColumn, [&](size_t g, od::value& gv) {
        if (g == 0) {
          cp.column.index = uint32_t(read_uint(gv, UINT32_MAX));
        } else if (g == 1) {
          read_fr_array(gv, cp.column.rows, 11);
        } else {
          // column.rs serializes its PhantomData<H> (not skipped): serde writes unit, null.
          bool null = false;
          if (auto e = gv.is_null().get(null)) fail_json(e);
          if (!null) fail("expected null, found " + describe(gv));
        }
      });
    });
  }

  // labeling_proof.rs / encoding_proof.rs {parents, layer_index, node}.
  void read_labeling_proof(od::value& v, LabelingProof& lp) {
    static constexpr std::array<std::string_view, 3> kFields = {"parents", "layer_index", "node"};
    read_fields(v, kFields, [&](size_t f, od::value& fv) {
      if (f == 0) {
        read_fr_array(fv, lp.parents, kTotalParents);
      } else if (f == 1) {
        lp.layer_index = uint32_t(read_uint(fv, UINT32_MAX));
      } else {
        lp.node = read_uint(fv, UINT64_MAX);
      }
    });
  }

  // stacked/vanilla/params.rs Proof.
  void read_proof(od::value& v, VanillaSealProof& p) {
    static constexpr std::array<std::string_view, 5> kFields = {
        "comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"};
    static constexpr std::array<std::string_view, 3> kColumns = {"c_x", "drg_parents", "exp_parents"};
    read_fields(v, kFields, [&](size_t f, od::value& fv) {
      switch (f) {
        case 0:
          return read_merkle_proof(fv, p.comm_d_proofs);
        case 1:
          return read_merkle_proof(fv, p.comm_r_last_proof);
        case 2:
          return read_fields(fv, kColumns, [&](size_t g, od::value& gv) {
            if (g == 0) return read_column_proof(gv, p.replica_column_proofs.c_x);
            auto& list = g == 1 ? p.replica_column_proofs.drg_parents : p.replica_column_proofs.exp_parents;
            list.reserve(g == 1 ? kBaseDegree : kExpDegree);
            read_array(gv, [&](size_t, od::value& e) { read_column_proof(e, list.emplace_back()); });
          });
        case 3:
          return read_array(fv,
                            [&](size_t, od::value& e) { read_labeling_proof(e, p.labeling_proofs.emplace_back()); });
        default:
          return read_labeling_proof(fv, p.encoding_proof);
      }
    });
  }

  // seal.rs VanillaSealProof::StackedDrg<size>V1(Vec<Vec<Proof>>).
  void read_vanilla_proofs(od::value& v, std::string_view& variant, std::vector<std::vector<VanillaSealProof>>& out) {
    static constexpr std::array<std::string_view, 5> kNames = {kVariants[0], kVariants[1], kVariants[2], kVariants[3],
                                                               kVariants[4]};
    read_variant(v, kNames, [&](size_t which, od::value& pv) {
      variant = kNames[which];
      read_array(pv, [&](size_t, od::value& partition) {
        auto& proofs = out.emplace_back();
        read_array(partition, [&](size_t, od::value& e) { read_proof(e, proofs.emplace_back()); });
      });
    });
  }

  const char* begin_;
  size_t size_;
  bool started_ = false;
  od::parser& parser_;
  od::document doc_;
  std::vector<Segment> path_;
};

}  // namespace

// Named, not anonymous: the reader's State (declared in the header) holds one.
namespace c1_reader {

// simdjson's input: the JSON and SIMDJSON_PADDING readable bytes after it. A large input goes into
// an anonymous mapping advised for transparent huge pages: on a VM whose 4 KiB page faults cost
// microseconds each, filling 50 MB of fresh small pages took longer than parsing them.
class InputBuffer {
 public:
  explicit InputBuffer(size_t size) {
    const size_t need = size + simdjson::SIMDJSON_PADDING;
    if (need >= kHuge) {
      map_size_ = (need + 2 * kHuge - 1) / kHuge * kHuge;
      void* m = mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m != MAP_FAILED) {
        map_ = m;
        data_ = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(m) + kHuge - 1) / kHuge * kHuge);
        capacity_ = map_size_ - size_t(data_ - static_cast<char*>(m));
        madvise(data_, capacity_ / kHuge * kHuge, MADV_HUGEPAGE);  // a hint; fine if refused
        return;
      }
      map_size_ = 0;
    }
    small_.assign(need, '\0');
    data_ = small_.data();
    capacity_ = need;
  }
  ~InputBuffer() {
    if (map_) munmap(map_, map_size_);
  }
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;

  char* data() { return data_; }
  bool fits(size_t size) const { return size + simdjson::SIMDJSON_PADDING <= capacity_; }
  // The first `size` bytes, with zeros as padding (a longer earlier input leaves its bytes).
  simdjson::padded_string_view view(size_t size) {
    std::memset(data_ + size, 0, simdjson::SIMDJSON_PADDING);
    return simdjson::padded_string_view(data_, size, capacity_);
  }

 private:
  static constexpr size_t kHuge = size_t(2) << 20;
  size_t capacity_ = 0, map_size_ = 0;
  void* map_ = nullptr;
  char* data_ = nullptr;
  std::vector<char> small_;
};

}  // namespace c1_reader

struct SealCommitPhase1Reader::State {
  od::parser parser;
  std::unique_ptr<c1_reader::InputBuffer> buffer;

  // A buffer for `size` bytes, the previous one if it is large enough. Inputs simdjson cannot
  // read are refused before their buffer is allocated.
  c1_reader::InputBuffer& buffer_for(size_t size) {
    if (size > simdjson::SIMDJSON_MAXSIZE_BYTES) {
      throw C1FormatError("an input of " + std::to_string(size) + " bytes; at most " +
                          std::to_string(simdjson::SIMDJSON_MAXSIZE_BYTES) + " are read (4 GiB)");
    }
    if (!buffer || !buffer->fits(size)) {
      buffer.reset();
      buffer = std::make_unique<c1_reader::InputBuffer>(size);
    }
    return *buffer;
  }

  SealCommitPhase1Output parse(size_t size) {
    try {
      Reader r(parser, buffer->view(size));
      return r.read();
    } catch (const simdjson::simdjson_error& e) {
      // Every getter above is used through its error code; this is a safety net.
      throw C1FormatError(std::string("malformed JSON: ") + e.what());
    }
  }
};

SealCommitPhase1Reader::SealCommitPhase1Reader() : state_(std::make_unique<State>()) {}
SealCommitPhase1Reader::~SealCommitPhase1Reader() = default;

SealCommitPhase1Output SealCommitPhase1Reader::read(std::string_view json) {
  std::memcpy(state_->buffer_for(json.size()).data(), json.data(), json.size());
  return state_->parse(json.size());
}

SealCommitPhase1Output SealCommitPhase1Reader::read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!in || ec) {
    throw std::runtime_error("cannot read the Commit1 output " + path.string() + ": " +
                             (ec ? ec.message() : std::string("cannot open")));
  }
  try {
    c1_reader::InputBuffer& buf = state_->buffer_for(size_t(size));
    if (!in.read(buf.data(), std::streamsize(size)) || in.gcount() != std::streamsize(size)) {
      throw std::runtime_error("cannot read the Commit1 output " + path.string() + ": short read");
    }
    return state_->parse(size_t(size));
  } catch (const C1FormatError& e) {
    throw C1FormatError(path.string() + ": " + e.what());
  }
}

SealCommitPhase1Output read_seal_commit_phase1(std::string_view json) { return SealCommitPhase1Reader().read(json); }

SealCommitPhase1Output read_seal_commit_phase1_file(const std::filesystem::path& path) {
  return SealCommitPhase1Reader().read_file(path);
}

}  // namespace cuzk::filecoin
