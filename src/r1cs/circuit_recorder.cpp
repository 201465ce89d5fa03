// compile_circuit: a constraint system that records each constraint's rows as it is enforced,
// serially or in parallel sections (each section records its own rows; they are spliced in order
// as they close, so that few wait in memory beside the whole).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs {
namespace {

struct FrHash {
  size_t operator()(const Fr& x) const {
    uint64_t limbs[4];
    std::memcpy(limbs, &x, sizeof(limbs));
    return size_t(limbs[0] ^ (limbs[1] * 0x9e3779b97f4a7c15ull) ^ (limbs[2] >> 7) ^ (limbs[3] << 11));
  }
};

// Input j is recorded as kInputColumn | j and becomes aux + j once the aux count is known.
constexpr uint32_t kInputColumn = 0x80000000u;

enum class Query { kA, kB, kC };

// Rows of A, B and C as constraints are enforced, each entry's coefficient an index into a table
// of its own (1 and -1 first).
class RowRecorder {
 public:
  RowRecorder() {
    coefficients = {Fr::one(), -Fr::one()};
    index_.emplace(Fr::one(), CompiledCircuit::kPlusOne);
    index_.emplace(-Fr::one(), CompiledCircuit::kMinusOne);
    for (SparseRows* m : {&a, &b, &c}) m->row_start.push_back(0);
  }

  // column(var, query) checks the variable and sets its density bit (a term with a nonzero
  // coefficient, before any merging, as the proving assignment's evaluation sets them); it
  // returns the entry's column.
  template <class Column>
  void enforce(const LC& la, const LC& lb, const LC& lc, Column&& column) {
    record(a, la, Query::kA, column);
    record(b, lb, Query::kB, column);
    record(c, lc, Query::kC, column);
  }

  // The index of coeff in this recorder's table (added when new).
  uint16_t coefficient_index(const Fr& coeff) {
    auto [it, added] = index_.try_emplace(coeff, uint16_t(0));
    if (added) {
      if (coefficients.size() > std::numeric_limits<uint16_t>::max()) {
        index_.erase(it);
        throw CircuitTooLarge("compiled circuit: more than 65,536 distinct coefficients");
      }
      it->second = uint16_t(coefficients.size());
      coefficients.push_back(coeff);
    }
    return it->second;
  }

  SparseRows a, b, c;
  std::vector<Fr> coefficients;

 private:
  template <class Column>
  void record(SparseRows& m, const LC& lc, Query q, Column& column) {
    terms_.clear();
    for (const auto& t : lc.terms()) {
      if (!t.coeff.is_zero()) terms_.push_back({column(t.var, q), t.coeff});
    }
    // Most combinations have distinct variables: check pairwise when short, else sort and merge.
    bool distinct = terms_.size() <= 8;
    for (size_t i = 1; i < terms_.size() && distinct; i++) {
      for (size_t j = 0; j < i && distinct; j++) distinct = terms_[i].col != terms_[j].col;
    }
    if (!distinct) {
      std::stable_sort(terms_.begin(), terms_.end(), [](const Term& x, const Term& y) { return x.col < y.col; });
      size_t kept = 0;
      for (size_t i = 0; i < terms_.size();) {
        Term sum = terms_[i++];
        for (; i < terms_.size() && terms_[i].col == sum.col; i++) sum.coeff += terms_[i].coeff;
        if (!sum.coeff.is_zero()) terms_[kept++] = sum;
      }
      terms_.resize(kept);
    }
    if (m.column.size() + terms_.size() > std::numeric_limits<uint32_t>::max()) {
      throw CircuitTooLarge("compiled circuit: a matrix has 2^32 entries or more");
    }
    static const Fr kOne = Fr::one(), kMinusOne = -Fr::one();
    for (const Term& t : terms_) {
      m.column.push_back(t.col);
      m.coeff.push_back(t.coeff == kOne        ? CompiledCircuit::kPlusOne
                        : t.coeff == kMinusOne ? CompiledCircuit::kMinusOne
                                               : coefficient_index(t.coeff));
    }
    m.row_start.push_back(uint32_t(m.column.size()));
  }

  struct Term {
    uint32_t col;
    Fr coeff;
  };
  std::unordered_map<Fr, uint16_t, FrHash> index_;
  std::vector<Term> terms_;
};

// What a closed section hands to the whole recorder: its rows, and its density bits (of its own
// aux range, offset by its start; of the inputs; and the other ranges' aux variables it used).
struct SectionRecord {
  RowRecorder rows;
  size_t aux_begin = 0;
  DensityTracker a_aux, b_aux, b_input;
  std::vector<uint32_t> foreign_a, foreign_b;
};

class CircuitRecorder final : public ConstraintSystem {
 public:
  explicit CircuitRecorder(bool sections) : sections_(sections) { alloc_input("ONE", Fr::one()); }

  Variable alloc(std::string_view, const Fr&) override {
    splice_sections();
    if (out_.aux >= kInputColumn) throw CircuitTooLarge("compiled circuit: 2^31 aux variables or more");
    out_.a_aux_density.add_element();
    out_.b_aux_density.add_element();
    return Variable::aux(uint32_t(out_.aux++));
  }
  Variable alloc_input(std::string_view, const Fr&) override {
    splice_sections();
    out_.b_input_density.add_element();
    return Variable::input(uint32_t(out_.inputs++));
  }
  void enforce(std::string_view, const LC& a, const LC& b, const LC& c) override {
    splice_sections();
    rows_.enforce(a, b, c, [&](Variable v, Query q) {
      if (v.kind == Variable::Kind::kInput) {
        if (v.index >= out_.inputs) throw std::logic_error("constraint uses an input that does not exist");
        if (q == Query::kB) out_.b_input_density.set(v.index);
        return kInputColumn | v.index;
      }
      if (v.index >= out_.aux) throw std::logic_error("constraint uses an aux variable that does not exist");
      if (q == Query::kA) out_.a_aux_density.set(v.index);
      if (q == Query::kB) out_.b_aux_density.set(v.index);
      return v.index;
    });
    out_.constraints++;
  }
  bool has_values() const override { return false; }
  size_t num_constraints() const override { return out_.constraints; }
  size_t num_inputs() const override { return out_.inputs; }
  size_t num_aux() const override { return out_.aux; }
  std::vector<std::unique_ptr<SectionSystem>> open_sections(std::span<const SectionShape> shapes) override;
  bool takes_sections() const override { return sections_; }

  CompiledCircuit finish() && {
    const size_t n = out_.inputs;
    for (size_t i = 0; i < n; i++) enforce("input", Variable::input(uint32_t(i)), LC::zero(), LC::zero());
    const uint32_t aux = uint32_t(out_.aux);
    out_.a = std::move(rows_.a);
    out_.b = std::move(rows_.b);
    out_.c = std::move(rows_.c);
    out_.coefficients = std::move(rows_.coefficients);
    for (SparseRows* m : {&out_.a, &out_.b, &out_.c}) {
      for (uint32_t& col : m->column) {
        if (col & kInputColumn) col = aux + (col & ~kInputColumn);
      }
    }
    return std::move(out_);
  }

 private:
  class Section;
  // Throws std::logic_error when a section is open or failed (the whole may not be used then).
  void splice_sections();
  // Section k's record: it and the closed ones after it, up to the first still open, are spliced.
  void hand_over(size_t k, SectionRecord&& record);
  // Appends a section's rows (its coefficients re-indexed into this table), sets its density bits.
  void splice(SectionRecord& s);
  void append(SparseRows& to, const SparseRows& from, const std::vector<uint16_t>& coeff_map);

  CompiledCircuit out_;  // counts and densities; the rows are rows_' until finish
  RowRecorder rows_;
  bool sections_;
  std::mutex splice_mutex_;                           // over rows_, the densities and closed_ while sections close
  std::vector<std::optional<SectionRecord>> closed_;  // a slot per section opened last, until spliced
  size_t next_splice_ = 0;                            // the first of them not yet spliced
  std::atomic<size_t> open_{0};                       // sections not yet closed or destroyed
  std::atomic<bool> failed_{false};
};

// Section k records constraints of its own into a RowRecorder; variables keep their indices in
// the whole circuit. It accepts any variable allocated before the sections opened, its own, and
// any of another section's range (the proving assignment checks that such a section was closed).
class CircuitRecorder::Section final : public SectionSystem {
 public:
  Section(CircuitRecorder& whole, size_t k, size_t aux_begin, size_t in_begin, const SectionShape& shape)
      : whole_(whole),
        k_(k),
        c_left_(shape.constraints),
        aux_next_(aux_begin),
        aux_end_(aux_begin + shape.aux),
        in_next_(in_begin),
        in_end_(in_begin + shape.inputs) {
    record_.aux_begin = aux_begin;
    record_.a_aux.grow(shape.aux);
    record_.b_aux.grow(shape.aux);
    record_.b_input.grow(whole.out_.inputs);
    whole_.open_++;
  }
  ~Section() override {
    if (closed_) return;
    whole_.failed_ = true;  // abandoned (an exception on its way): the circuit is incomplete
    whole_.open_--;
  }

  Variable alloc(std::string_view, const Fr&) override {
    if (aux_next_ == aux_end_) throw std::logic_error("a section allocates more aux variables than reserved");
    return Variable::aux(uint32_t(aux_next_++));
  }
  Variable alloc_input(std::string_view, const Fr&) override {
    if (in_next_ == in_end_) throw std::logic_error("a section allocates more public inputs than reserved");
    return Variable::input(uint32_t(in_next_++));
  }
  void enforce(std::string_view, const LC& a, const LC& b, const LC& c) override {
    if (c_left_ == 0) throw std::logic_error("a section enforces more constraints than reserved");
    const size_t begin = record_.aux_begin;
    record_.rows.enforce(a, b, c, [&](Variable v, Query q) {
      if (v.kind == Variable::Kind::kInput) {
        if (v.index >= whole_.out_.inputs || (v.index >= in_next_ && v.index < in_end_)) {
          throw std::logic_error("a section's constraint uses an input that does not exist");
        }
        if (q == Query::kB) record_.b_input.set(v.index);
        return kInputColumn | v.index;
      }
      if (v.index >= whole_.out_.aux || (v.index >= aux_next_ && v.index < aux_end_)) {
        throw std::logic_error("a section's constraint uses an aux variable that does not exist");
      }
      const bool own = v.index >= begin && v.index < aux_end_;
      if (q == Query::kA) own ? record_.a_aux.set(v.index - begin) : record_.foreign_a.push_back(v.index);
      if (q == Query::kB) own ? record_.b_aux.set(v.index - begin) : record_.foreign_b.push_back(v.index);
      return v.index;
    });
    c_left_--;
    constraints_++;
  }
  bool has_values() const override { return false; }
  size_t num_constraints() const override { return constraints_; }
  size_t num_inputs() const override { return whole_.out_.inputs; }
  size_t num_aux() const override { return aux_next_ - record_.aux_begin; }

  void close() override {
    if (closed_) return;
    if (c_left_ || aux_next_ != aux_end_ || in_next_ != in_end_) {
      whole_.failed_ = true;
      throw std::logic_error("a section closed with " + std::to_string(c_left_) + " constraints, " +
                             std::to_string(aux_end_ - aux_next_) + " aux variables and " +
                             std::to_string(in_end_ - in_next_) + " inputs of its range left");
    }
    try {
      whole_.hand_over(k_, std::move(record_));
    } catch (...) {
      whole_.failed_ = true;
      throw;
    }
    closed_ = true;
    whole_.open_--;
  }

 private:
  CircuitRecorder& whole_;
  size_t k_;
  size_t c_left_, aux_next_, aux_end_, in_next_, in_end_;
  size_t constraints_ = 0;
  SectionRecord record_;
  bool closed_ = false;
};

std::vector<std::unique_ptr<SectionSystem>> CircuitRecorder::open_sections(std::span<const SectionShape> shapes) {
  splice_sections();
  if (!sections_) return {};
  size_t aux = 0, inputs = 0, constraints = 0;
  for (const auto& s : shapes) constraints += s.constraints, aux += s.aux, inputs += s.inputs;
  if (out_.aux + aux >= kInputColumn) throw CircuitTooLarge("compiled circuit: 2^31 aux variables or more");
  closed_.assign(shapes.size(), std::nullopt);
  next_splice_ = 0;
  std::vector<std::unique_ptr<SectionSystem>> out;
  out.reserve(shapes.size());
  size_t aux_at = out_.aux, in_at = out_.inputs;
  // The ranges are the whole circuit's from now on: the sections' rows follow in order.
  out_.aux += aux;
  out_.inputs += inputs;
  out_.constraints += constraints;
  out_.a_aux_density.grow(aux);
  out_.b_aux_density.grow(aux);
  out_.b_input_density.grow(inputs);
  for (size_t k = 0; k < shapes.size(); k++) {
    out.push_back(std::make_unique<Section>(*this, k, aux_at, in_at, shapes[k]));
    aux_at += shapes[k].aux;
    in_at += shapes[k].inputs;
  }
  return out;
}

void CircuitRecorder::splice_sections() {
  if (open_ || failed_) {
    throw std::logic_error(open_ ? "the circuit recorder was used while sections were open"
                                 : "a section of the circuit recorder failed: the circuit is incomplete");
  }
  closed_.clear();  // every one spliced as it closed
}

void CircuitRecorder::hand_over(size_t k, SectionRecord&& record) {
  std::lock_guard lock(splice_mutex_);
  closed_[k].emplace(std::move(record));
  for (; next_splice_ < closed_.size() && closed_[next_splice_]; next_splice_++) {
    splice(*closed_[next_splice_]);
    closed_[next_splice_].reset();  // its memory goes as it is spliced
  }
}

void CircuitRecorder::splice(SectionRecord& s) {
  std::vector<uint16_t> coeff_map(s.rows.coefficients.size());
  for (size_t i = 0; i < coeff_map.size(); i++) coeff_map[i] = rows_.coefficient_index(s.rows.coefficients[i]);
  append(rows_.a, s.rows.a, coeff_map);
  append(rows_.b, s.rows.b, coeff_map);
  append(rows_.c, s.rows.c, coeff_map);
  out_.a_aux_density.set_from(s.aux_begin, s.a_aux);
  out_.b_aux_density.set_from(s.aux_begin, s.b_aux);
  out_.b_input_density.set_from(0, s.b_input);
  for (uint32_t i : s.foreign_a) out_.a_aux_density.set(i);
  for (uint32_t i : s.foreign_b) out_.b_aux_density.set(i);
}

void CircuitRecorder::append(SparseRows& to, const SparseRows& from, const std::vector<uint16_t>& coeff_map) {
  const size_t base = to.column.size();
  if (base + from.column.size() > std::numeric_limits<uint32_t>::max()) {
    throw CircuitTooLarge("compiled circuit: a matrix has 2^32 entries or more");
  }
  // Grown geometrically (insert, resize): a reserve of the exact size here copied the whole
  // matrix at every splice, quadratic in the sections (112 s against 35 s serially at 32 GiB).
  to.column.insert(to.column.end(), from.column.begin(), from.column.end());
  const size_t at = to.coeff.size();
  to.coeff.resize(at + from.coeff.size());
  for (size_t i = 0; i < from.coeff.size(); i++) to.coeff[at + i] = coeff_map[from.coeff[i]];
  const size_t rows = to.row_start.size();
  to.row_start.resize(rows + from.row_start.size() - 1);
  for (size_t r = 1; r < from.row_start.size(); r++) to.row_start[rows + r - 1] = uint32_t(base + from.row_start[r]);
}

}  // namespace

CompiledCircuit compile_circuit(const Circuit& circuit, bool parallel_sections) {
  CircuitRecorder recorder(parallel_sections);
  circuit.synthesize(recorder);
  return std::move(recorder).finish();
}

}  // namespace cuzk::r1cs
