#!/usr/bin/env python3
"""Simulates the generated PTX Montgomery products (scripts/gen_mont_mul_ptx.py: MontMulPtx<N>,
the even/odd MontMulEoPtx<N> and, for Fr, MontMulEoSparseLowPtx<4>, the two-product MontMul2EoPtx<N>, the squaring MontSqrPtx<N> and
their lazy forms for operands and results in [0, 2M)) instruction by instruction, with the carry flag, against
big-integer Montgomery products: random and edge inputs; reports mismatches and any carry a
chain would drop or any non-.cc add that overflows. Run: python3 scripts/ptx_sim.py [fr|fp]
(fr: 4 limbs, the default; fp: BLS12-381's base field, 6 limbs). Exits 1 on any mismatch or
event (the CTest ptx_sim_fr / ptx_sim_fp).
"""
import contextlib
import importlib.util
import io
import os
import random
import re
import sys

M32 = (1 << 32) - 1
FIELDS = {
    'fr': (4, 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001),
    'fp': (6, 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab),
}
N, R_MOD = FIELDS[sys.argv[1] if len(sys.argv) > 1 else 'fr']
def compile_routine(lines):
    """Translates one routine's PTX lines into a Python function run(inputs, inv) -> (out, events):
    the same instruction semantics, carry flag and events as executing the lines one by one, as
    straight-line code (an interpreter parsing every line for every case took minutes).
    inputs: the 64-bit limb lists after the result operands (a, b[, c, d], m)."""
    code = ['def run(inputs, inv):', '    ops = [None] * %d + [v for limbs in inputs for v in limbs] + [inv]' % N,
            '    out = [None] * %d' % N, '    ev = []', '    cc = None']
    names = {}
    def reg(x):  # a PTX register as a Python local
        if x not in names: names[x] = 'r_' + re.sub(r'\W', '_', x)
        return names[x]
    def val(x):
        x = x.strip()
        if re.fullmatch(r'-?\d+', x): return str(int(x) & M32)
        if x.startswith('%'): return 'ops[%d]' % int(x[1:])
        return reg(x)
    cc_defined = False  # whether the carry flag holds a value here (straight-line code)
    def emit(line): code.append('    ' + line)
    for ln in lines:
        if ln in ('{', '}') or ln.startswith('.reg'): continue
        op, rest = ln.split(' ', 1)
        args = [t.strip() for t in rest.rstrip(';').split(',')]
        if op == 'mov.b64':
            m_ = re.match(r'\{(\w+), (\w+)\}, (%\d+)', rest.rstrip(';'))
            if m_:
                emit('v = %s; %s = v & M32; %s = v >> 32' % (val(m_.group(3)), reg(m_.group(1)), reg(m_.group(2))))
                continue
            m_ = re.match(r'(%\d+), \{(\w+), (\w+)\}', rest.rstrip(';'))
            emit('out[%d] = %s | (%s << 32)' % (int(m_.group(1)[1:]), reg(m_.group(2)), reg(m_.group(3))))
            continue
        if op == 'mov.u32':
            emit('%s = %s' % (reg(args[0]), val(args[1]))); continue
        base = op.split('.')[0]
        uses_c = base in ('madc', 'addc', 'subc')
        sets_c = '.cc' in op
        if uses_c and not cc_defined: raise Exception('carry used undefined: ' + ln)
        cin = ' + cc' if uses_c else ''
        if base in ('mad', 'madc'):
            d, x, y, z = args
            part = '& M32' if '.lo' in op else '>> 32'
            emit('s = ((%s * %s) %s) + %s%s' % (val(x), val(y), part, val(z), cin))
        elif base in ('add', 'addc'):
            d, x, y = args; emit('s = %s + %s%s' % (val(x), val(y), cin))
        elif base in ('sub', 'subc'):
            d, x, y = args; emit('s = %s - %s%s' % (val(x), val(y), ' - cc' if uses_c else ''))
        elif base == 'mul':
            d, x, y = args
            part = '& M32' if '.lo' in op else '>> 32'
            emit('%s = ((%s * %s) %s) & M32' % (reg(d), val(x), val(y), part)); continue
        elif op == 'not.b32':
            emit('%s = ~%s & M32' % (reg(args[0]), val(args[1]))); continue
        elif op == 'setp.ne.u32':
            emit('%s = %s != %s' % (reg('p'), val(args[1]), val(args[2]))); continue
        elif op == 'selp.b32':
            d, x, y, pp = args
            emit('%s = %s if %s else %s' % (reg(d), val(x), reg(pp), val(y))); continue
        else: raise Exception(op)
        carry = '(1 if s < 0 else 0)' if base in ('sub', 'subc') else '(1 if s > M32 else 0)'
        if not sets_c:
            # a non-.cc add must not overflow (except borrow-capture subc)
            if base in ('mad', 'madc', 'add', 'addc'):
                emit('if %s: ev.append(%r)' % (carry, 'overflow: ' + ln))
            if uses_c: emit('cc = None'); cc_defined = False
        else:
            # a chain starting (no carry in) while a carry is pending drops it
            if not uses_c: emit('if cc: ev.append(%r)' % ('dropped carry before: ' + ln))
            emit('cc = ' + carry); cc_defined = True
        emit('%s = s & M32' % reg(args[0]))
    emit('return out, ev')
    scope = {'M32': M32}
    exec('\n'.join(code), scope)
    return scope['run']
_compiled = {}
def run(lines, inputs, inv):
    key = id(lines)
    if key not in _compiled: _compiled[key] = (lines, compile_routine(lines))  # keeps lines alive: ids stay unique
    return _compiled[key][1](inputs, inv)
def limbs64(x): return [(x >> (64*i)) & ((1<<64)-1) for i in range(N)]
def from64(l): return sum(v << (64*i) for i, v in enumerate(l))
def split32(x): return [(x >> (32*i)) & M32 for i in range(2*N)]
m = limbs64(R_MOD)
inv32 = (-pow(R_MOD, -1, 1 << 32)) % (1 << 32)
Rinv = pow(1 << (64*N), -1, R_MOD)
# also validate the simulator on the existing generator
spec = importlib.util.spec_from_file_location('g', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gen_mont_mul_ptx.py'))
g = importlib.util.module_from_spec(spec)
with contextlib.redirect_stdout(io.StringIO()): spec.loader.exec_module(g)
old_src = g.gen(N)
lines = g.gen_eo_lines(N)
old_lines = [l.strip()[1:].split('\\n')[0] for l in old_src.splitlines() if l.strip().startswith('"')]
cases = [(R_MOD-1, R_MOD-1), (0, 0), (1, R_MOD-1), (R_MOD-1, 1), ((1<<(64*N-1)) % R_MOD, R_MOD-2)]
random.seed(1)
for _ in range(3000):
    cases.append((random.randrange(R_MOD), random.randrange(R_MOD)))
# adversarial: words all ones-ish
for _ in range(2000):
    x = R_MOD - 1 - random.randrange(1 << 64); y = R_MOD - 1 - random.randrange(1 << (R_MOD.bit_length() - 56))
    cases.append((x, y))
# rows whose low word t0 is zero (q = 0) while the other words are not: low 32-bit words 0 or
# 2^16 (a0 b0 = 2^32), which the sparse-low form handles on its own path
for _ in range(500):
    lo_a, lo_b = random.choice([(0, 0), (1 << 16, 1 << 16), (0, random.randrange(1 << 32))])
    x = (random.randrange(R_MOD) >> 32 << 32 | lo_a) % R_MOD
    y = (random.randrange(R_MOD) >> 32 << 32 | lo_b) % R_MOD
    cases.append((x, y))
# q = 0 in a chosen later row k, with every word random otherwise: run the CIOS rows before k on
# big integers and pick b's word k so that row k's low word t0 + a0 b_k is 0 mod 2^32 (a0 odd).
for k in range(1, 2 * N):
    for _ in range(150):
        x = random.randrange(R_MOD) | 1
        words = [random.randrange(1 << 32) for _ in range(2 * N)]
        words[-1] = random.randrange((R_MOD >> (32 * (2 * N - 1))))  # keeps b below M
        t = 0
        for i in range(k):
            t += x * words[i]
            q = (t & M32) * inv32 & M32
            t = (t + q * R_MOD) >> 32
        words[k] = (-(t & M32) * pow(x & M32, -1, 1 << 32)) & M32
        y = sum(w << (32 * i) for i, w in enumerate(words))
        if y < R_MOD:
            cases.append((x, y))
failures = 0  # mismatches and events over all routines: the exit status
bad = 0; evs = set()
routines = [('eo', lines), ('old', old_lines)]
if N == 4:  # MontMulEoSparseLowPtx, for Fr's M = 2^64 - 2^32 + 1 mod 2^64
    assert R_MOD % (1 << 64) == (1 << 64) - (1 << 32) + 1 and inv32 == M32
    routines.append(('eo sparse low', g.gen_eo_lines(N, sparse_low=True)))
for which, L in routines:
    bad = 0; evs = set()
    for x, y in cases:
        out, ev = run(L, [limbs64(x), limbs64(y), m], inv32)
        want = x * y * Rinv % R_MOD
        if from64(out) != want: bad += 1
        evs.update(ev)
    print(which, 'mismatches', bad, 'of', len(cases), 'events', list(evs)[:5])
    failures += bad + len(evs)
# the sum of two products with one reduction (MontMul2EoPtx): (a b + c d) / R
lines2 = g.gen_eo_lines(N, pairs=2)
top = R_MOD - 1
cases2 = [(top, top, top, top), (0, 0, 0, 0), (top, top, 0, 0), (0, 0, top, top), (1, top, top, 1)]
for _ in range(3000):
    cases2.append(tuple(random.randrange(R_MOD) for _ in range(4)))
for _ in range(2000):
    cases2.append(tuple(R_MOD - 1 - random.randrange(1 << 64) for _ in range(4)))
bad = 0; evs = set()
if R_MOD >> (64 * N - 2):  # the bound of gen_eo_lines(pairs=2) needs M < 2^(64N - 2)
    print('eo2 skipped: the modulus lacks two spare top bits (mul2 is generated for Fp only)')
    cases2 = []
for a_, b_, c_, d_ in cases2:
    out, ev = run(lines2, [limbs64(a_), limbs64(b_), limbs64(c_), limbs64(d_), m], inv32)
    if from64(out) != (a_ * b_ + c_ * d_) * Rinv % R_MOD: bad += 1
    evs.update(ev)
print('eo2 (a b + c d)', 'mismatches', bad, 'of', len(cases2), 'events', list(evs)[:5])
failures += bad + len(evs)
print('eo2 instr', sum(1 for l in lines2 if not (l in '{}' or l.startswith('.reg') or l.startswith('mov'))))
# the squaring (MontSqrPtx): a^2 / R
lines_sq = g.gen_sqr_lines(N)
bad = 0; evs = set()
sq_cases = [x for x, _ in cases] + [y for _, y in cases] + [R_MOD - 1, 0, 1, 2, (1 << (32 * 2 * N - 3)) % R_MOD]
for a_ in sq_cases:
    out, ev = run(lines_sq, [limbs64(a_), m], inv32)
    if from64(out) != a_ * a_ * Rinv % R_MOD: bad += 1
    evs.update(ev)
print('sqr', 'mismatches', bad, 'of', len(sq_cases), 'events', list(evs)[:5])
failures += bad + len(evs)
print('sqr instr', sum(1 for l in lines_sq if not (l in '{}' or l.startswith('.reg') or l.startswith('mov'))),
      'multiply-adds', sum(1 for l in lines_sq if l.split('.')[0] in ('mad', 'madc', 'mul')),
      'against', sum(1 for l in lines if l.split('.')[0] in ('mad', 'madc', 'mul')))
# The lazy forms (MontMulEoLazyPtx, MontMul2EoLazyPtx, MontSqrLazyPtx; Fp only): operands in
# [0, 2M), results in [0, 2M) and congruent to the product.
if N == 6:
    M2 = 2 * R_MOD
    top2 = M2 - 1
    lz = [(top2, top2), (0, 0), (1, top2), (R_MOD, R_MOD), (R_MOD, top2), (top2, R_MOD - 1)]
    for _ in range(1500):
        lz.append((random.randrange(M2), random.randrange(M2)))
    for _ in range(1000):
        lz.append((M2 - 1 - random.randrange(1 << 64), M2 - 1 - random.randrange(1 << 64)))
    lazy_routines = (
        ('eo lazy', g.gen_eo_lines(N, lazy=True), lambda x, y: [limbs64(x), limbs64(y), m], lambda x, y: x * y),
        ('eo2 lazy', g.gen_eo_lines(N, pairs=2, lazy=True),
         lambda x, y: [limbs64(x), limbs64(y), limbs64(y), limbs64(x), m], lambda x, y: 2 * x * y),
        ('eo2 lazy (a b + a a)', g.gen_eo_lines(N, pairs=2, lazy=True),
         lambda x, y: [limbs64(x), limbs64(y), limbs64(x), limbs64(x), m], lambda x, y: x * y + x * x),
        ('sqr lazy', g.gen_sqr_lines(N, lazy=True), lambda x, y: [limbs64(x), m], lambda x, y: x * x),
    )
    for name, L, operands, product in lazy_routines:
        bad = 0; evs = set()
        for x, y in lz:
            out, ev = run(L, operands(x, y), inv32)
            r = from64(out)
            if r >= M2 or r % R_MOD != product(x, y) * Rinv % R_MOD: bad += 1
            evs.update(ev)
        print(name, 'mismatches or results >= 2M', bad, 'of', len(lz), 'events', list(evs)[:5])
        failures += bad + len(evs)
print('eo instr', sum(1 for l in lines if not (l in '{}' or l.startswith('.reg') or l.startswith('mov'))))
for which, L in routines:
    print(which, 'multiply-adds', sum(1 for l in L if l.split('.')[0] in ('mad', 'madc', 'mul')))
print('old instr', sum(1 for l in old_lines if not (l in '{}' or l.startswith('.reg') or l.startswith('mov'))))
# The generated header must be what the generator prints now.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src', 'ff', 'cuda', 'mont_mul_ptx.hpp')) as f:
    current = f.read()
printed = io.StringIO()
with contextlib.redirect_stdout(printed): spec.loader.exec_module(importlib.util.module_from_spec(spec))
if printed.getvalue() != current:
    print('src/ff/cuda/mont_mul_ptx.hpp differs from what scripts/gen_mont_mul_ptx.py prints: regenerate it')
    failures += 1
sys.exit(1 if failures else 0)
