#!/usr/bin/env python3
"""Generates src/ff/cuda/mont_mul_ptx.hpp: device Montgomery multiplication, addition and
subtraction for 4 and 6 64-bit limbs (Fr, Fp) as 8 and 12 32-bit limbs with PTX carry chains
(mad.lo.cc/madc.hi.cc, add.cc/sub.cc). Addition subtracts M unless that borrows; subtraction
adds M masked by the borrow: results stay fully reduced.

CIOS over 32-bit words; per round i: t += a * b[i], q = t[0] * inv, t = (t + q M) / 2^32.
Each product a[j] b[i] spans words j, j + 1, so the even-j products form one carry chain
and the odd-j products another (the split sppark uses). t has n + 1 words: for a, b < M and
M < 2^(32n - 1) (both moduli) the intermediate sums stay below 2^(32(n + 1)). The division by
2^32 is a renaming of registers. One asm block per multiplication, so no carry flag lives
across asm statements; the result is fully reduced (one conditional subtraction), hence
bit-identical to the CPU's Montgomery form (same R = 2^(64N)).
Run: python3 scripts/gen_mont_mul_ptx.py > src/ff/cuda/mont_mul_ptx.hpp
"""


def gen(N):
    n = 2 * N
    # operand numbering: r[0..N-1] (%0..), a[0..N-1], b[0..N-1], m[0..N-1], inv
    a = [f"%{N + k}" for k in range(N)]
    b = [f"%{2 * N + k}" for k in range(N)]
    m = [f"%{3 * N + k}" for k in range(N)]
    inv = f"%{4 * N}"
    L = []
    e = L.append
    e("{")
    e(".reg .u32 " + ", ".join(f"a{k}" for k in range(n)) + ";")
    e(".reg .u32 " + ", ".join(f"b{k}" for k in range(n)) + ";")
    e(".reg .u32 " + ", ".join(f"m{k}" for k in range(n)) + ";")
    e(".reg .u32 " + ", ".join(f"t{k}" for k in range(n + 1)) + ", q, br;")
    e(".reg .u32 " + ", ".join(f"d{k}" for k in range(n)) + ";")
    e(".reg .pred p;")
    for k in range(N):
        e(f"mov.b64 {{a{2*k}, a{2*k+1}}}, {a[k]};")
        e(f"mov.b64 {{b{2*k}, b{2*k+1}}}, {b[k]};")
        e(f"mov.b64 {{m{2*k}, m{2*k+1}}}, {m[k]};")
    t = [f"t{k}" for k in range(n + 1)]
    for k in range(n + 1):
        e(f"mov.u32 {t[k]}, 0;")

    def chains(x, y):
        # t[0..n] += x[0..n-1] * y (y a register name)
        # even j: words (j, j+1); carries end in t[n]
        for j in range(0, n, 2):
            op_lo = "mad.lo.cc.u32" if j == 0 else "madc.lo.cc.u32"
            e(f"{op_lo} {t[j]}, {x}{j}, {y}, {t[j]};")
            e(f"madc.hi.cc.u32 {t[j+1]}, {x}{j}, {y}, {t[j+1]};")
        e(f"addc.u32 {t[n]}, {t[n]}, 0;")
        # odd j: words (j, j+1), the last hi lands in t[n] with no carry out
        for j in range(1, n, 2):
            op_lo = "mad.lo.cc.u32" if j == 1 else "madc.lo.cc.u32"
            op_hi = "madc.hi.cc.u32" if j < n - 1 else "madc.hi.u32"
            e(f"{op_lo} {t[j]}, {x}{j}, {y}, {t[j]};")
            e(f"{op_hi} {t[j+1]}, {x}{j}, {y}, {t[j+1]};")

    for i in range(n):
        chains("a", f"b{i}")
        e(f"mul.lo.u32 q, {t[0]}, {inv};")
        chains("m", "q")
        # t[0] is now zero: it becomes the new top word
        t = t[1:] + [t[0]]
        e(f"mov.u32 {t[n]}, 0;")
    # t < 2M: subtract M once unless that borrows (t[n] is the top word)
    subtract_once_and_store(e, N, t, "d", top=t[n])
    return mul_struct("MontMulPtx", N, L)


def subtract_once_and_store(e, N, src, out, top="0"):
    """src (n words, with the word top above them) is below 2M: out = src - M unless that
    borrows, else src; the n words of out go to the N 64-bit results %0..%(N-1); closes the
    asm block."""
    n = 2 * N
    for k in range(n):
        op = "sub.cc.u32" if k == 0 else "subc.cc.u32"
        e(f"{op} {out}{k}, {src[k]}, m{k};")
    e(f"subc.u32 br, {top}, 0;")
    e("setp.ne.u32 p, br, 0;")
    for k in range(n):
        e(f"selp.b32 {out}{k}, {src[k]}, {out}{k}, p;")
    for k in range(N):
        e(f"mov.b64 %{k}, {{{out}{2*k}, {out}{2*k+1}}};")
    e("}")


def asm_struct(name, N, method, operands, lines):
    """The specialisation name<N> with one static device function method(r, <operands>, inv)
    whose body is the asm block of lines: r and every operand are N 64-bit limbs."""
    body = "\n".join(f'      "{line}\\n\\t"' for line in lines)
    params = ", ".join(["uint64_t* r"] + [f"const uint64_t* {x}" for x in operands] + ["uint32_t inv"])
    outs = ", ".join(f'"=l"(r[{k}])' for k in range(N))
    ins = ", ".join([f'"l"({x}[{k}])' for x in operands for k in range(N)] + ['"r"(inv)'])
    return f"""template <>
struct {name}<{N}> {{
  static __device__ __forceinline__ void {method}({params}) {{
    asm(
{body}
      : {outs}
      : {ins});
  }}
}};
"""


def mul_struct(name, N, lines):
    """The specialisation name<N> whose mul(r, a, b, m, inv) is the asm block of lines."""
    return asm_struct(name, N, "mul", "abm", lines)


def merge_reduce_store(e, N, ev, od, out, plus=None, lazy=False):
    """The even/odd forms' tail: ev[0..n-2] += od[1..n-1] (od is one word up), then + the words
    plus if given, then M subtracted once unless that borrows (the value is below 2M), and the
    n words of out written to the N 64-bit results %0..%(N-1). lazy: no subtraction, the value
    (below 2M) is the result."""
    n = 2 * N
    e(f"add.cc.u32 {ev[0]}, {ev[0]}, {od[1]};")
    for k in range(1, n - 1):
        e(f"addc.cc.u32 {ev[k]}, {ev[k]}, {od[k+1]};")
    e(f"addc.u32 {ev[n-1]}, {ev[n-1]}, 0;")
    if plus:
        for k in range(n):
            op = "add.cc.u32" if k == 0 else ("addc.u32" if k == n - 1 else "addc.cc.u32")
            e(f"{op} {ev[k]}, {ev[k]}, {plus[k]};")
    if lazy:
        for k in range(N):
            e(f"mov.b64 %{k}, {{{ev[2*k]}, {ev[2*k+1]}}};")
        e("}")
        return
    subtract_once_and_store(e, N, ev, out)


def gen_eo_lines(N, pairs=1, lazy=False, sparse_low=False):
    """Even/odd-accumulator CIOS (the scheme of sppark's mont_t): the products of the even and
    the odd words of a go to two accumulators, x and y (y one word up), which swap roles every
    row, so each row has two independent carry chains (a, b[i]) and (M, q) instead of one; they
    are merged once at the end. Needs M < 2^(32n - 1) (one spare bit: Fr's top word is below
    2^31), so the odd accumulator's chains cannot carry out.

    pairs=2 gives the sum of two products with one reduction, (a b + c d) / R mod M (operands
    r, a, b, c, d, m, inv): each row adds c d[i] to both accumulators before choosing q. With
    a, b, c, d < M < 2^(32n - 2) a row's value stays below 4M + 3 * 2^32 M < 2^(32(n + 1)), so
    no chain carries out, and the result (a b + c d + Q M) / R < M (1 + 2M / R) < 2M needs the
    same single subtraction.

    lazy=True leaves out that subtraction: for operands below 2M (not only M) the result is below
    2M whenever 4M < 2^(32n) (one product) or 8M < 2^(32n) (two), e.g. for Fp (M < 2^381), whose
    rows stay below 2^(32(n + 1)) too (scripts/ptx_sim.py checks both with extreme operands).
    The MSM's lazy Fp (ff/cuda/lazy_mont.hpp) keeps its values in [0, 2M) with these.

    sparse_low=True is for moduli with M = 2^64 - 2^32 + 1 mod 2^64 (BLS12-381's r): then
    inv = -1/M = -1 mod 2^32, so q = -t0, and q's products with M's two low words are sums:
    q * 1 = q, and q (2^32 - 1) has low word -q = t0 and high word q - 1 (0 when q = 0). Each
    row trades five multiply-adds (q and four words of q M) for add-type instructions, which
    run on the ALU pipe beside the multiplier: 28 multiply-adds a row instead of 33 for Fr.
    M's low two words and inv are then not read (the operands stay those of mul)."""
    n = 2 * N
    srcs = ["a", "b"] + (["c", "d"] if pairs == 2 else [])
    L = []
    e = L.append
    e("{")
    for x in srcs + ["m", "x", "y"]:
        e(".reg .u32 " + ", ".join(f"{x}{k}" for k in range(n)) + ";")
    e(".reg .u32 " + ", ".join(f"d{k}" for k in range(n)) + ", q, br;" if pairs == 1 else
      ".reg .u32 " + ", ".join(f"s{k}" for k in range(n)) + ", q, br;")
    e(".reg .pred p;")
    if sparse_low:
        e(".reg .u32 h;")
    for k in range(N):
        for idx, x in enumerate(srcs + ["m"]):
            e(f"mov.b64 {{{x}{2*k}, {x}{2*k+1}}}, %{(idx + 1) * N + k};")
    inv = f"%{(len(srcs) + 2) * N}"
    out = "d" if pairs == 1 else "s"  # the result words (d is an operand name when pairs == 2)
    X = [f"x{k}" for k in range(n)]
    Y = [f"y{k}" for k in range(n)]

    def mul_n(acc, src, off, bi):  # acc[j], acc[j+1] = lo, hi(src[j+off] * bi), j even
        for j in range(0, n, 2):
            e(f"mul.lo.u32 {acc[j]}, {src}{j+off}, {bi};")
            e(f"mul.hi.u32 {acc[j+1]}, {src}{j+off}, {bi};")

    def cmad_n(acc, src, off, bi, first_cc="mad", start=0):  # acc += sum src[j+off] bi 2^(32j), carry out
        for j in range(start, n, 2):
            op = "mad.lo.cc.u32" if j == 0 else "madc.lo.cc.u32"
            e(f"{op} {acc[j]}, {src}{j+off}, {bi}, {acc[j]};")
            e(f"madc.hi.cc.u32 {acc[j+1]}, {src}{j+off}, {bi}, {acc[j+1]};")

    def madc_n_rshift(acc, src, off, bi):  # acc[j] = acc[j+2] + src[j+off] bi (carry in), shifted two words
        for j in range(0, n - 2, 2):
            e(f"madc.lo.cc.u32 {acc[j]}, {src}{j+off}, {bi}, {acc[j+2]};")
            e(f"madc.hi.cc.u32 {acc[j+1]}, {src}{j+off}, {bi}, {acc[j+3]};")
        e(f"madc.lo.cc.u32 {acc[n-2]}, {src}{n-2+off}, {bi}, 0;")
        e(f"madc.hi.u32 {acc[n-1]}, {src}{n-2+off}, {bi}, 0;")

    ev, od = X, Y
    for i in range(n):
        bi = f"b{i}"
        if i == 0:
            mul_n(od, "a", 1, bi)
            mul_n(ev, "a", 0, bi)
        else:
            e(f"add.cc.u32 {ev[0]}, {ev[0]}, {od[1]};")
            madc_n_rshift(od, "a", 1, bi)
            cmad_n(ev, "a", 0, bi)
            e(f"addc.u32 {od[n-1]}, {od[n-1]}, 0;")
        if pairs == 2:
            cmad_n(od, "c", 1, f"d{i}")
            cmad_n(ev, "c", 0, f"d{i}")
            e(f"addc.u32 {od[n-1]}, {od[n-1]}, 0;")
        if sparse_low:
            assert pairs == 1 and N == 4, "sparse_low is generated for Fr's single product"
            e(f"sub.u32 q, 0, {ev[0]};")
            e(f"not.b32 h, {ev[0]};")  # hi(q (2^32 - 1)) = q - 1 = ~t0 when t0 != 0, else 0
            e(f"setp.ne.u32 p, {ev[0]}, 0;")
            e(f"selp.b32 h, h, 0, p;")
            e(f"add.cc.u32 {od[0]}, {od[0]}, {ev[0]};")  # lo(q (2^32 - 1)) = -q = t0
            e(f"addc.cc.u32 {od[1]}, {od[1]}, h;")
            cmad_n(od, "m", 1, "q", start=2)
            e(f"add.cc.u32 {ev[0]}, {ev[0]}, 4294967295;")  # t0 + q = 0, carry (t0 != 0)
            e(f"addc.cc.u32 {ev[1]}, {ev[1]}, 0;")  # hi(q * 1) = 0
            cmad_n(ev, "m", 0, "q", start=2)
        else:
            e(f"mul.lo.u32 q, {ev[0]}, {inv};")
            cmad_n(od, "m", 1, "q")
            cmad_n(ev, "m", 0, "q")
        e(f"addc.u32 {od[n-1]}, {od[n-1]}, 0;")
        ev, od = od, ev
    # after n rows (n even) ev is X again
    merge_reduce_store(e, N, ev, od, out, lazy=lazy)
    return L


def gen_sqr_lines(N, lazy=False):
    """Montgomery squaring a^2 / R mod M (operands r, a, m, inv), separated operand scanning:
    the cross products a[i] a[j], i < j, once each into two 2n-word accumulators (row i's
    products with j - i odd start at an odd word, those with j - i even at an even word, so
    each row is two carry chains whose carries run up to the accumulator's first unwritten
    word); T = 2 (sum of both) + the squares a[i]^2; then T's low half is reduced with the even/
    odd rows of gen_eo_lines without the a b[i] products (the carry of each row's first
    addition feeds the odd chain, the word shift is a renaming), and T's high half is added:
    a^2 / R = T_hi + REDC(T_lo), below M + M, one conditional subtraction as in the product.
    132 + 24 multiply-adds for T instead of 288. lazy=True: no final subtraction (as in
    gen_eo_lines; for a < 2M, T_hi < 4M^2 / R and the result stays below 2M when 4M < R)."""
    n = 2 * N
    L = []
    e = L.append
    e("{")
    e(".reg .u32 " + ", ".join(f"a{k}" for k in range(n)) + ";")
    e(".reg .u32 " + ", ".join(f"m{k}" for k in range(n)) + ";")
    e(".reg .u32 " + ", ".join(f"u{k}" for k in range(2 * n)) + ";")  # odd-start cross products, then T
    e(".reg .u32 " + ", ".join(f"v{k}" for k in range(2 * n)) + ";")  # even-start cross products
    e(".reg .u32 " + ", ".join(f"y{k}" for k in range(n)) + ", z0, z1;")
    e(".reg .u32 " + ", ".join(f"d{k}" for k in range(n)) + ", q, br;")
    e(".reg .pred p;")
    for k in range(N):
        e(f"mov.b64 {{a{2*k}, a{2*k+1}}}, %{N + k};")
        e(f"mov.b64 {{m{2*k}, m{2*k+1}}}, %{2*N + k};")
    inv = f"%{3*N}"
    U = [f"u{k}" for k in range(2 * n)]
    V = [f"v{k}" for k in range(2 * n)]
    written = {"u": 0, "v": 0}  # words [0, written) of each accumulator hold values; above: unset

    def addend(acc, w):
        return acc[w] if w < written[acc[0][0]] else "0"

    def chain(acc, i, js):  # acc += sum_j a[i] a[j] 2^(32(i+j)), j in js (same parity)
        key = acc[0][0]  # "u" or "v"
        for k, j in enumerate(js):
            w = i + j
            op = "mad.lo.cc.u32" if k == 0 else "madc.lo.cc.u32"
            e(f"{op} {acc[w]}, a{i}, a{j}, {addend(acc, w)};")
            e(f"madc.hi.cc.u32 {acc[w+1]}, a{i}, a{j}, {addend(acc, w+1)};")
        top = i + js[-1] + 2  # the carry runs up to the first unwritten word
        while top < written[key]:
            e(f"addc.cc.u32 {acc[top]}, {acc[top]}, 0;")
            top += 1
        e(f"addc.u32 {acc[top]}, 0, 0;")
        written[key] = max(written[key], top + 1)

    # Row i's chains start at words 2i + 1 and 2i + 2, so U's word 0 and V's words 0 and 1 are
    # never written (zero below); every other word is written before it is read.
    for i in range(n - 1):
        chain(U, i, list(range(i + 1, n, 2)))
        if i + 2 < n:
            chain(V, i, list(range(i + 2, n, 2)))
    # T = U + V over 2n words
    e(f"mov.u32 {U[0]}, 0;")
    e(f"add.cc.u32 {U[1]}, {U[1]}, 0;")  # starts the chain (V[1] is zero)
    for k in range(2, 2 * n):
        have_u = k < written["u"]
        have_v = k < written["v"]
        op = "addc.cc.u32" if k < 2 * n - 1 else "addc.u32"
        if have_u and have_v:
            e(f"{op} {U[k]}, {U[k]}, {V[k]};")
        elif have_u:
            e(f"{op} {U[k]}, {U[k]}, 0;")
        elif have_v:
            e(f"{op} {U[k]}, {V[k]}, 0;")
        else:
            e(f"{op} {U[k]}, 0, 0;")
    # T = 2 (U + V) + sum a[i]^2 2^(64 i)
    for k in range(2 * n):
        op = "add.cc.u32" if k == 0 else ("addc.u32" if k == 2 * n - 1 else "addc.cc.u32")
        e(f"{op} {U[k]}, {U[k]}, {U[k]};")
    for i in range(n):
        op = "mad.lo.cc.u32" if i == 0 else "madc.lo.cc.u32"
        e(f"{op} {U[2*i]}, a{i}, a{i}, {U[2*i]};")
        op = "madc.hi.cc.u32" if i < n - 1 else "madc.hi.u32"
        e(f"{op} {U[2*i+1]}, a{i}, a{i}, {U[2*i+1]};")
    # REDC(T_lo): ev holds T_lo, od (one word up) starts at zero
    ev = U[:n]
    od = [f"y{k}" for k in range(n)]
    spare = ["z0", "z1"]
    for k in range(n):
        e(f"mov.u32 {od[k]}, 0;")
    for i in range(n):
        if i > 0:
            e(f"add.cc.u32 {ev[0]}, {ev[0]}, {od[1]};")
            # od <- od[2..] and two zero words (renaming); the pending carry enters od's chain
            freed = od[:2]
            od = od[2:] + spare
            spare = freed
            e(f"mov.u32 {od[n-2]}, 0;")
            e(f"mov.u32 {od[n-1]}, 0;")
        e(f"mul.lo.u32 q, {ev[0]}, {inv};")
        for j in range(0, n, 2):
            if j == 0:
                op = "madc.lo.cc.u32" if i > 0 else "mad.lo.cc.u32"
            else:
                op = "madc.lo.cc.u32"
            e(f"{op} {od[j]}, m{j+1}, q, {od[j]};")
            e(f"madc.hi.cc.u32 {od[j+1]}, m{j+1}, q, {od[j+1]};")
        for j in range(0, n, 2):
            op = "mad.lo.cc.u32" if j == 0 else "madc.lo.cc.u32"
            e(f"{op} {ev[j]}, m{j}, q, {ev[j]};")
            e(f"madc.hi.cc.u32 {ev[j+1]}, m{j}, q, {ev[j+1]};")
        e(f"addc.u32 {od[n-1]}, {od[n-1]}, 0;")
        ev, od = od, ev
    merge_reduce_store(e, N, ev, od, "d", plus=U[n:], lazy=lazy)  # + T_hi
    return L


def gen_eo(N):
    return mul_struct("MontMulEoPtx", N, gen_eo_lines(N))


def gen_eo_sparse_low(N):
    """MontMulEoSparseLowPtx<N>::mul: MontMulEoPtx for M = 2^64 - 2^32 + 1 mod 2^64 (Fr)."""
    return mul_struct("MontMulEoSparseLowPtx", N, gen_eo_lines(N, sparse_low=True))


def gen_sqr(N):
    """MontSqrPtx<N>::sqr(r, a, m, inv): r = a^2 / R mod M."""
    return asm_struct("MontSqrPtx", N, "sqr", "am", gen_sqr_lines(N))


def gen_eo2(N):
    """MontMul2EoPtx<N>::mul2(r, a, b, c, d, m, inv): r = (a b + c d) / R mod M, one reduction."""
    return asm_struct("MontMul2EoPtx", N, "mul2", "abcdm", gen_eo_lines(N, pairs=2))


def gen_eo_lazy(N):
    """MontMulEoLazyPtx<N>::mul: MontMulEoPtx without the final subtraction (result below 2M)."""
    return mul_struct("MontMulEoLazyPtx", N, gen_eo_lines(N, lazy=True))


def gen_eo2_lazy(N):
    """MontMul2EoLazyPtx<N>::mul2: MontMul2EoPtx without the final subtraction."""
    return asm_struct("MontMul2EoLazyPtx", N, "mul2", "abcdm", gen_eo_lines(N, pairs=2, lazy=True))


def gen_sqr_lazy(N):
    """MontSqrLazyPtx<N>::sqr: MontSqrPtx without the final subtraction."""
    return asm_struct("MontSqrLazyPtx", N, "sqr", "am", gen_sqr_lines(N, lazy=True))


def gen_addsub(N):
    n = 2 * N

    def wrap(name, L, n_in):
        body = "\n".join(f'      "{line}\\n\\t"' for line in L)
        outs = ", ".join(f'"=l"(r[{k}])' for k in range(N))
        ins = ", ".join([f'"l"(a[{k}])' for k in range(N)] + [f'"l"(b[{k}])' for k in range(N)] +
                        [f'"l"(m[{k}])' for k in range(N)])
        return f"""  static __device__ __forceinline__ void {name}(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                                 const uint64_t* m) {{
    asm(
{body}
      : {outs}
      : {ins});
  }}
"""

    def prologue(L):
        e = L.append
        e("{")
        for x in "abmd":
            e(".reg .u32 " + ", ".join(f"{x}{k}" for k in range(n)) + ";")
        e(".reg .u32 br;")
        e(".reg .pred p;")
        for k in range(N):
            for x, base in (("a", N), ("b", 2 * N), ("m", 3 * N)):
                e(f"mov.b64 {{{x}{2*k}, {x}{2*k+1}}}, %{base + k};")

    def epilogue(L):
        for k in range(N):
            L.append(f"mov.b64 %{k}, {{d{2*k}, d{2*k+1}}};")
        L.append("}")

    add = []
    prologue(add)
    for k in range(n):  # a + b < 2M < 2^(32n): no carry out
        op = "add.cc.u32" if k == 0 else ("addc.u32" if k == n - 1 else "addc.cc.u32")
        add.append(f"{op} a{k}, a{k}, b{k};")
    for k in range(n):
        op = "sub.cc.u32" if k == 0 else "subc.cc.u32"
        add.append(f"{op} d{k}, a{k}, m{k};")
    add.append("subc.u32 br, 0, 0;")
    add.append("setp.ne.u32 p, br, 0;")
    for k in range(n):
        add.append(f"selp.b32 d{k}, a{k}, d{k}, p;")
    epilogue(add)

    sub = []
    prologue(sub)
    for k in range(n):
        op = "sub.cc.u32" if k == 0 else "subc.cc.u32"
        sub.append(f"{op} d{k}, a{k}, b{k};")
    sub.append("subc.u32 br, 0, 0;")  # all ones when a < b
    for k in range(n):
        sub.append(f"and.b32 m{k}, m{k}, br;")
    for k in range(n):
        op = "add.cc.u32" if k == 0 else ("addc.u32" if k == n - 1 else "addc.cc.u32")
        sub.append(f"{op} d{k}, d{k}, m{k};")
    epilogue(sub)
    return f"""template <>
struct AddSubPtx<{N}> {{
{wrap("add", add, 3)}{wrap("sub", sub, 3)}}};
"""


print("""// clang-format off
// Generated by scripts/gen_mont_mul_ptx.py; do not edit.
// Device Montgomery multiplication, addition and subtraction with 32-bit PTX carry chains
// for 4 and 6 64-bit limbs;
// see the script for the method. Included by mont_field.hpp in device code only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuzk::ff::ptx {

template <size_t N>
struct MontMulPtx;
template <size_t N>
struct AddSubPtx;
// The even/odd-accumulator variant of MontMulPtx (gen_eo_lines), for Fr (4) and Fp (6).
template <size_t N>
struct MontMulEoPtx;
// MontMulEoPtx for moduli M = 2^64 - 2^32 + 1 mod 2^64 (gen_eo_lines with sparse_low), for Fr (4):
// q and its products with M's two low words are additions. M's low words and inv are not read.
template <size_t N>
struct MontMulEoSparseLowPtx;
// (a b + c d) / R mod M with one reduction (gen_eo_lines with pairs=2), for Fp (6).
template <size_t N>
struct MontMul2EoPtx;
// a^2 / R mod M with each cross product once (gen_sqr_lines), for Fp (6).
template <size_t N>
struct MontSqrPtx;
// The same three without the final conditional subtraction, for operands and results in
// [0, 2M) (the lazy Fp of ff/cuda/lazy_mont.hpp), for Fp (6).
template <size_t N>
struct MontMulEoLazyPtx;
template <size_t N>
struct MontMul2EoLazyPtx;
template <size_t N>
struct MontSqrLazyPtx;

""")
print(gen(4))
print(gen(6))
print(gen_eo(4))
print(gen_eo(6))
print(gen_eo_sparse_low(4))
print(gen_eo2(6))
print(gen_sqr(6))
print(gen_eo_lazy(6))
print(gen_eo2_lazy(6))
print(gen_sqr_lazy(6))
print(gen_addsub(4))
print(gen_addsub(6))
print("}  // namespace cuzk::ff::ptx\n// clang-format on")
