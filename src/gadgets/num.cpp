#include "gadgets/num.hpp"

#include <optional>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

AllocatedNum AllocatedNum::alloc(ConstraintSystem& cs, const Fr& value) { return {cs.alloc("num", value), value}; }

AllocatedNum AllocatedNum::alloc_input(ConstraintSystem& cs, const Fr& value) {
  return {cs.alloc_input("input num", value), value};
}

void AllocatedNum::inputize(ConstraintSystem& cs) const {
  Variable input = cs.alloc_input("input variable", value);
  cs.enforce("enforce input is correct", LC(input), LC(Variable::one()), LC(var));
}

std::vector<Boolean> AllocatedNum::to_bits_le(ConstraintSystem& cs) const {
  auto bits = field_into_allocated_bits_le(cs, value);
  LC lc;
  Fr coeff = Fr::one();
  for (const auto& b : bits) {
    lc.add(b.var, coeff);
    coeff = coeff.dbl();
  }
  lc.sub(var);
  cs.enforce("unpacking constraint", LC{}, LC{}, lc);
  return std::vector<Boolean>(bits.begin(), bits.end());
}

std::vector<Boolean> AllocatedNum::to_bits_le_strict(ConstraintSystem& cs) const {
  // Bits of r - 1, most significant first, from its top set bit (bit 254).
  const auto m = Fr::modulus();
  auto r_minus_1 = m;
  r_minus_1.limb[0] -= 1;  // r is odd
  const auto a = value.to_canonical();
  auto bit_of = [](const auto& x, int i) { return bool((x.limb[i / 64] >> (i % 64)) & 1); };
  std::vector<AllocatedBit> result;  // big-endian
  std::vector<AllocatedBit> current_run;
  std::optional<AllocatedBit> last_run;
  size_t i = 0;
  for (int k = 254; k >= 0; k--, i++) {
    const bool a_bit = bit_of(a, k);
    if (bit_of(r_minus_1, k)) {
      r1cs::Namespace ns(cs, "bit " + std::to_string(i));
      AllocatedBit b = AllocatedBit::alloc(cs, a_bit);
      current_run.push_back(b);
      result.push_back(b);
    } else {
      if (!current_run.empty()) {
        if (last_run) current_run.push_back(*last_run);
        r1cs::Namespace ns(cs, "run ending at " + std::to_string(i));
        AllocatedBit cur = current_run[0];
        for (size_t j = 1; j < current_run.size(); j++) {
          r1cs::Namespace n2(cs, "and " + std::to_string(j));
          cur = AllocatedBit::and_(cs, cur, current_run[j]);
        }
        last_run = cur;
        current_run.clear();
      }
      r1cs::Namespace ns(cs, "bit " + std::to_string(i));
      result.push_back(AllocatedBit::alloc_conditionally(cs, a_bit, *last_run));
    }
  }
  LC lc;
  Fr coeff = Fr::one();
  for (auto it = result.rbegin(); it != result.rend(); ++it) {
    lc.add(it->var, coeff);
    coeff = coeff.dbl();
  }
  lc.sub(var);
  cs.enforce("unpacking constraint", LC{}, LC{}, lc);
  return std::vector<Boolean>(result.rbegin(), result.rend());
}

AllocatedNum AllocatedNum::mul(ConstraintSystem& cs, const AllocatedNum& other) const {
  const Fr v = value * other.value;
  Variable p = cs.alloc("product num", v);
  cs.enforce("multiplication constraint", LC(var), LC(other.var), LC(p));
  return {p, v};
}

AllocatedNum AllocatedNum::square(ConstraintSystem& cs) const {
  const Fr v = value.sqr();
  Variable p = cs.alloc("squared num", v);
  cs.enforce("squaring constraint", LC(var), LC(var), LC(p));
  return {p, v};
}

std::pair<AllocatedNum, AllocatedNum> AllocatedNum::conditionally_reverse(ConstraintSystem& cs, const AllocatedNum& a,
                                                                          const AllocatedNum& b,
                                                                          const Boolean& condition) {
  const bool swap = condition.value();
  AllocatedNum c;
  {
    r1cs::Namespace ns(cs, "conditional reversal result 1");
    c = alloc(cs, swap ? b.value : a.value);
  }
  cs.enforce("first conditional reversal", LC{{a.var, kOne}, {b.var, kMinusOne}}, condition.lc(),
             LC{{a.var, kOne}, {c.var, kMinusOne}});
  AllocatedNum d;
  {
    r1cs::Namespace ns(cs, "conditional reversal result 2");
    d = alloc(cs, swap ? a.value : b.value);
  }
  cs.enforce("second conditional reversal", LC{{b.var, kOne}, {a.var, kMinusOne}}, condition.lc(),
             LC{{b.var, kOne}, {d.var, kMinusOne}});
  return {c, d};
}

AllocatedNum pick(ConstraintSystem& cs, const Boolean& condition, const AllocatedNum& a, const AllocatedNum& b) {
  AllocatedNum c;
  {
    r1cs::Namespace ns(cs, "pick result");
    c = AllocatedNum::alloc(cs, condition.value() ? a.value : b.value);
  }
  cs.enforce("pick", LC{{b.var, kOne}, {a.var, kMinusOne}}, condition.lc(), LC{{b.var, kOne}, {c.var, kMinusOne}});
  return c;
}

AllocatedNum select(ConstraintSystem& cs, std::span<const AllocatedNum> from, std::span<const Boolean> bits) {
  if (from.size() != (size_t(1) << bits.size())) throw std::invalid_argument("select: from.size() != 2^bits");
  std::vector<AllocatedNum> state(from.begin(), from.end());
  size_t half = from.size() / 2;
  for (size_t i = 0; i < bits.size(); i++) {
    const Boolean& bit = bits[bits.size() - 1 - i];  // most significant first
    std::vector<AllocatedNum> next;
    for (size_t j = 0; j < half; j++) {
      r1cs::Namespace ns(cs, "pick " + std::to_string(i) + ", " + std::to_string(j));
      next.push_back(pick(cs, bit, state[half + j], state[j]));
    }
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

namespace {
AllocatedNum pick_ns(ConstraintSystem& cs, const char* name, const Boolean& cond, const AllocatedNum& a,
                     const AllocatedNum& b) {
  r1cs::Namespace ns(cs, name);
  return pick(cs, cond, a, b);
}

const AllocatedBit& unnegated(const Boolean& b) {
  if (b.kind() != Boolean::Kind::kIs) throw std::invalid_argument("insert: bits must be allocated and unnegated");
  return b.bit();
}
}  // namespace

std::vector<AllocatedNum> insert(ConstraintSystem& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                 std::span<const AllocatedNum> elements) {
  const size_t size = elements.size() + 1;
  if (size != (size_t(1) << bits.size())) throw std::invalid_argument("insert: elements.size() + 1 != 2^bits");
  const AllocatedNum& a = element;
  if (size == 2) {
    return {pick_ns(cs, "binary insert 0", bits[0], elements[0], a),
            pick_ns(cs, "binary insert 1", bits[0], a, elements[0])};
  }
  if (size == 4) {
    const Boolean &b0 = bits[0], &b1 = bits[1];
    const AllocatedNum &b = elements[0], &c = elements[1], &d = elements[2];
    auto p0_x0 = pick_ns(cs, "p0_x0", b0, b, a);
    auto p0 = pick_ns(cs, "p0", b1, b, p0_x0);
    auto p1_x0 = pick_ns(cs, "p1_x0", b0, a, b);
    auto p1 = pick_ns(cs, "p1", b1, c, p1_x0);
    auto p2_x1 = pick_ns(cs, "p2_x1", b0, d, a);
    auto p2 = pick_ns(cs, "p2", b1, p2_x1, c);
    auto p3_x1 = pick_ns(cs, "p3_x1", b0, a, d);
    auto p3 = pick_ns(cs, "p3", b1, p3_x1, d);
    return {p0, p1, p2, p3};
  }
  if (size == 8) {
    const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    const AllocatedNum &b = elements[0], &c = elements[1], &d = elements[2], &e = elements[3], &f = elements[4],
                       &g = elements[5], &h = elements[6];
    Boolean b0_nor_b1, b0_and_b1;
    {
      r1cs::Namespace ns(cs, "b0 nor b1");
      b0_nor_b1 = AllocatedBit::nor(cs, unnegated(b0), unnegated(b1));
    }
    {
      r1cs::Namespace ns(cs, "b0 and b1");
      b0_and_b1 = AllocatedBit::and_(cs, unnegated(b0), unnegated(b1));
    }
    auto p0_xx0 = pick_ns(cs, "p0_xx0", b0_nor_b1, a, b);
    auto p0 = pick_ns(cs, "p0", b2, b, p0_xx0);
    auto p1_x00 = pick_ns(cs, "p1_x00", b0, a, b);
    auto p1_xx0 = pick_ns(cs, "p1_xx0", b1, c, p1_x00);
    auto p1 = pick_ns(cs, "p1", b2, c, p1_xx0);
    auto p2_x10 = pick_ns(cs, "p2_x10", b0, d, a);
    auto p2_xx0 = pick_ns(cs, "p2_xx0", b1, p2_x10, c);
    auto p2 = pick_ns(cs, "p2", b2, d, p2_xx0);
    auto p3_xx0 = pick_ns(cs, "p3_xx0", b0_and_b1, a, d);
    auto p3 = pick_ns(cs, "p3", b2, e, p3_xx0);
    auto p4_xx1 = pick_ns(cs, "p4_xx1", b0_nor_b1, a, f);
    auto p4 = pick_ns(cs, "p4", b2, p4_xx1, e);
    auto p5_x01 = pick_ns(cs, "p5_x01", b0, a, f);
    auto p5_xx1 = pick_ns(cs, "p5_xx1", b1, g, p5_x01);
    auto p5 = pick_ns(cs, "p5", b2, p5_xx1, f);
    auto p6_x11 = pick_ns(cs, "p6_x11", b0, h, a);
    auto p6_xx1 = pick_ns(cs, "p6_xx1", b1, p6_x11, g);
    auto p6 = pick_ns(cs, "p6", b2, p6_xx1, g);
    auto p7_xx1 = pick_ns(cs, "p7_xx1", b0_and_b1, a, h);
    auto p7 = pick_ns(cs, "p7", b2, p7_xx1, h);
    return {p0, p1, p2, p3, p4, p5, p6, p7};
  }
  // General case: for each position, select among the candidates at that position.
  std::vector<AllocatedNum> result;
  for (size_t pos = 0; pos < size; pos++) {
    std::vector<AllocatedNum> choices;
    for (size_t index = 0; index < size; index++) {
      if (pos < index) {
        choices.push_back(elements[pos]);
      } else if (pos == index) {
        choices.push_back(element);
      } else {
        choices.push_back(elements[pos - 1]);
      }
    }
    r1cs::Namespace ns(cs, "choice at " + std::to_string(pos));
    result.push_back(select(cs, choices, bits));
  }
  return result;
}

void enforce_equal(ConstraintSystem& cs, std::string_view name, const AllocatedNum& a, const AllocatedNum& b) {
  cs.enforce(name, LC(a.var), LC(Variable::one()), LC(b.var));
}

AllocatedNum add(ConstraintSystem& cs, const AllocatedNum& a, const AllocatedNum& b) {
  AllocatedNum res;
  {
    r1cs::Namespace ns(cs, "add_num");
    res = AllocatedNum::alloc(cs, a.value + b.value);
  }
  cs.enforce("sum constraint", LC{{a.var, Fr::one()}, {b.var, Fr::one()}}, LC(Variable::one()), LC(res.var));
  return res;
}

AllocatedNum sub(ConstraintSystem& cs, const AllocatedNum& a, const AllocatedNum& b) {
  AllocatedNum res;
  {
    r1cs::Namespace ns(cs, "sub_num");
    res = AllocatedNum::alloc(cs, a.value - b.value);
  }
  cs.enforce("subtraction constraint", LC{{res.var, Fr::one()}, {b.var, Fr::one()}}, LC(Variable::one()), LC(a.var));
  return res;
}

}  // namespace cuzk::gadgets
