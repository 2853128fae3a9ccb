#!/usr/bin/env python3
"""Generates src/ff/mont_x86_64.S: Montgomery multiplication and squaring for the
BLS12-381 base field Fp (6 limbs) and scalar field Fr (4 limbs) with BMI2 MULX and
ADX ADCX/ADOX (two independent carry chains).  Standard library only.

Usage: python3 tools/gen_mont_x86_64.py [--check] [output-path]
       (--check writes nothing: it regenerates into a temporary folder and exits 1 if
       any committed file differs; the ctest generated_arith runs it)
       (default: src/ff/mont_x86_64.S next to this tools/ directory; the inline-assembly
       header mont_inline_x86_64.hpp is written next to it: the same multiplication and
       the symmetric Fp squaring for GCC extended asm, the two sums of products of the Fp2
       product, and the double-width product, reductions and helpers of the lazy Fp4
       squaring; and add_x86_64.hpp, the modular addition, subtraction and negation and the
       NTT butterfly's fused sum and difference, from tools/gen_add_x86_64.py)

Exported functions (SysV x86-64 ABI, limbs little-endian 64-bit words):

    void snarkpipe_mont_mul_fp(uint64_t out[6], const uint64_t a[6], const uint64_t b[6]);
    void snarkpipe_mont_sqr_fp(uint64_t out[6], const uint64_t a[6]);
    void snarkpipe_mont_mul_fr(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]);
    void snarkpipe_mont_sqr_fr(uint64_t out[4], const uint64_t a[4]);

out = a*b*R^-1 mod m with R = 2^(64N); inputs must be < m; the output is < m.  Every
input word is read before the first store to `out`, so out may alias a and/or b.  No
alignment requirement.  Requires BMI2 + ADX.

Multiplication: CIOS
--------------------
t = 0 (N+1 words).  For i = 0..N-1:
    M row:  t += a * b_i                 (products a_j*b_i, lo parts on the OF chain,
                                          hi parts on the CF chain)
    q = t_0 * (-m^-1) mod 2^64           (a MULX, which leaves the flags alone)
    R row:  t += q * m                   (now t_0 == 0)
    t >>= 64                             (free: registers are renamed in this generator)
Invariant t < 2m at the top of each iteration, so before the shift
t < 2m + 2(2^64-1)m < 2^65 m <= 2^(64(N+1)) and after it t < 2m <= 2^(64N); both moduli
have spare top bits so N+1 accumulator words suffice (asserted in check_field).  The
register freed by the shift holds 0, and the next M row lands its top carry in it.

Squaring (Fp): the same loop, but row j multiplies a_j by
    X_j = a_j*2^(64j) + 2*sum_{k>j} a_k 2^(64k)
(words [a_j, D_{j+1}, S_{j+2}, ..., S_{N-1}] with D_k = 2a_k mod 2^64 and S_k = word k of
2a, both precomputed on the stack), and adds it at relative words j..N.  Summed over j
this is exactly a^2 with N(N+1)/2 products instead of N^2.  Row j >= 1 never touches
word 0, so q_j only waits for the previous R row.  Since X_j < 2a < 2m, t stays below
T = 3m*2^64/(2^64-1) between iterations and below T + 3*2^64*m before each shift; both
fit (N resp. N+1 words) iff 3m*2^64 <= 2^(64N)*(2^64-1), which holds for Fp but not for
Fr (3r > 2^256), so sqr_fr uses the multiplication code with b = a.  The final value
is (a^2 + Q m)/R < 2m as usual.

Final step (both): s = t - m with sub/sbb, then cmovc keeps t if that borrowed.  No
branches, no secret-dependent memory access.

Scheduling (measured on an AMD EPYC Zen 4, which has one 64-bit multiplier): the
multiplier is the bottleneck, and the core keeps it busiest when the instruction stream
is "MULX, adcx/adox, adcx/adox" repeated, with no plain ALU instructions (add/adc/imul/
lea ...) among the MULXs.  So the rows are generated as two ordered lists (multiplies
and additions) and merged: after each MULX at most two ADX additions whose products are
already available.  Products alternate between two hi/lo register pairs, so an
addition may trail its MULX by one slot.  Carry absorption uses a zero constant in
memory; flags are cleared with a zeroing xor on a dead register; q is computed with
MULX.  Per iteration there are exactly twice as many additions as MULXs.
"""

import contextlib
import filecmp
import os
import sys
import tempfile

# The add/sub/neg header's generator sits next to this script (sys.path[0]); the ctest runs
# this in the source tree, which should not gain a __pycache__.
sys.dont_write_bytecode = True
import gen_add_x86_64  # noqa: E402

# Where q's MULX goes in each M row (after the MULX of word `QAFTER`), chosen by
# measurement; any value is correct.
QAFTER_MUL = {"fp": 1, "fr": 2}
QAFTER_SQR = {"fp": 1, "fr": 2}
# The same for the inline multiplication (mont_inline_x86_64.hpp) and the Fp2 sums of
# products; 0..5 measured within noise of each other for fp with the final subtraction.
QAFTER_INLINE = {"fp": 1, "fr": 2}
# The inline Fp product without its final subtraction (the redundant form): in a small
# loop after word 3 measured 24.77-24.80 ns against 25.00-25.07 for 0, 1, 2, 5, but in
# `bench cpu` 25.18 against 25.04 (noise), so it stays 1 (bench/results/notes/cpu-notes-2026-12-01.md).
QAFTER_PRODUCT_INLINE = {"fp": 1, "fr": 2}
# The same for the inline symmetric squaring (fp only).
QAFTER_SQR_INLINE = {"fp": 1, "fr": 2}

FIELDS = [
    # name, modulus, N, -m^-1 mod 2^64
    ("fp",
     0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
     6, 0x89F3FFFCFFFCFFFD),
    ("fr",
     0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
     4, 0xFFFFFFFEFFFFFFFF),
]

PREFIX = "snarkpipe_mont_"
W = 64

REG32 = {
    "rax": "eax", "rbx": "ebx", "rcx": "ecx", "rdx": "edx",
    "rsi": "esi", "rdi": "edi", "rbp": "ebp",
    "r8": "r8d", "r9": "r9d", "r10": "r10d", "r11": "r11d",
    "r12": "r12d", "r13": "r13d", "r14": "r14d", "r15": "r15d",
}
CALLEE_SAVED = ["rbx", "rbp", "r12", "r13", "r14", "r15"]


def check_field(name, m, n, n0):
    """Asserts the facts the generated code relies on; returns whether the symmetric
    squaring may be used for this modulus."""
    assert m % 2 == 1
    assert (m * n0 + 1) % (1 << W) == 0, f"{name}: n0 is not -m^-1 mod 2^64"
    R = 1 << (W * n)
    assert m < R // 2
    # mul: t < 2m between iterations; before the shift t < 2m + 2(2^64-1)m.
    assert 2 * m <= R, f"{name}: 2m does not fit in N words"
    assert 2 * m + 2 * ((1 << W) - 1) * m <= R << W, f"{name}: N+1 words are not enough"
    # final conditional subtraction: t < 2m needs a single subtraction of m.
    # symmetric squaring: 2a < 2m < R, so 2a has no word N.  Each row adds a_j*X_j <
    # 2^64*2m and each reduction q*m < 2^64*m, so with T = 3m*2^64/(2^64-1) we get
    # t < T between iterations (needs T <= R) and t < T + 3*2^64*m before each shift
    # (needs <= 2^64*R); both reduce to 3m*2^64 <= R*(2^64-1).
    sym = 3 * m * (1 << W) <= R * ((1 << W) - 1)
    if sym:
        T = -(-3 * m * (1 << W) // ((1 << W) - 1))  # ceil
        assert T <= R and T + 3 * (1 << W) * m <= R << W
    return sym


class Pool:
    """A tiny register allocator."""

    def __init__(self, regs):
        self.free = list(regs)
        self.used = set()

    def get(self):
        if not self.free:
            raise RuntimeError("out of registers")
        r = self.free.pop(0)
        self.used.add(r)
        return r

    def put(self, r):
        assert r not in self.free
        self.free.append(r)


class Func:
    def __init__(self, name):
        self.name = name
        self.body = []

    def emit(self, s):
        self.body.append("\t" + s)

    def comment(self, s):
        self.body.append("\t/* " + s + " */")

    def render(self, used_regs, frame_bytes):
        saved = [r for r in CALLEE_SAVED if r in used_regs]
        out = ["", "\t.globl " + self.name, "\t.type " + self.name + ",@function",
               "\t.p2align 4", self.name + ":", "\t.cfi_startproc"]
        for r in saved:
            out += ["\tpush " + r, "\t.cfi_adjust_cfa_offset 8", f"\t.cfi_rel_offset {r}, 0"]
        if frame_bytes:
            out += [f"\tsub rsp, {frame_bytes}", f"\t.cfi_adjust_cfa_offset {frame_bytes}"]
        out += self.body
        if frame_bytes:
            out += [f"\tadd rsp, {frame_bytes}", f"\t.cfi_adjust_cfa_offset -{frame_bytes}"]
        for r in reversed(saved):
            out += ["\tpop " + r, "\t.cfi_adjust_cfa_offset -8", f"\t.cfi_restore {r}"]
        out += ["\tret", "\t.cfi_endproc", "\t.size " + self.name + ", .-" + self.name]
        return out


def q(base, idx):
    return f"qword ptr [{base}+{8 * idx}]" if idx else f"qword ptr [{base}]"


# INLINE is set while the inline-assembly header is generated: constants are then read
# through the exported symbols snarkpipe_mont_<field>_consts (AT&T syntax, %% escaped).
INLINE = None


def consts_sym(field):
    return f"snarkpipe_mont_{field}_consts"


def modw(field, j):
    if INLINE:
        return f"{consts_sym(field)}+{8 * j}(%%rip)"
    return f"qword ptr [rip+.L{field}_m+{8 * j}]" if j else f"qword ptr [rip+.L{field}_m]"


def n0w(field):
    if INLINE:
        return f"{consts_sym(field)}+{8 * INLINE}(%%rip)"
    return f"qword ptr [rip+.L{field}_n0]"


def zero_word():
    if INLINE:
        return f"{consts_sym(INLINE_FIELD)}+{8 * (INLINE + 1)}(%%rip)"
    return "qword ptr [rip+.Lzero]"


INLINE_FIELD = None


def reg32(r):
    return REG32[r] if r in REG32 else "%k" + r[1:]


# ---------------------------------------------------------------------------------
# The scheduler: an ordered list of multiply items and an ordered list of additions,
# merged into one instruction stream.


class Prod:
    """One MULX.  hi/lo are fixed registers or None (then taken from a pair)."""

    def __init__(self, src, hi=None, lo=None):
        self.src, self.hi, self.lo = src, hi, lo
        self.fixed_hi, self.fixed_lo = hi is not None, lo is not None
        self.emitted = False
        self.pair = None
        self.uses = 0


class Add:
    """ins dst, src where src is (Prod, "hi"|"lo") or an operand string; ins == "xor"
    stands for "clear CF and OF"."""

    def __init__(self, ins, dst=None, src=None, deps=()):
        self.ins, self.dst, self.src = ins, dst, src
        self.deps = list(deps)
        if isinstance(src, tuple):
            self.deps.append(src[0])
        self.emitted = False


class QItem:
    """q = u0 * n0 mod 2^64 into qreg (MULX: flags untouched).  The high half goes to
    rdx, which is then reloaded from `restore` if given."""

    def __init__(self, u0, restore, deps):
        self.u0, self.restore, self.deps = u0, restore, list(deps)


def merge(f, field, mlist, alist, pairs, qreg, per=2, spare=None):
    for a in alist:
        if isinstance(a.src, tuple):
            a.src[0].uses += 1
    owner = [None] * len(pairs)
    ai = 0

    def dead_reg():
        if spare is not None:
            return spare
        for k, pr in enumerate(pairs):
            if owner[k] is None:
                return pr[1]
        return None

    def emit_adds(limit):
        nonlocal ai
        done = 0
        while ai < len(alist):
            a = alist[ai]
            if a.ins != "xor" and done >= limit:
                break
            if not all(d.emitted for d in a.deps):
                break
            if a.ins == "xor":
                r = dead_reg()
                if r is None:
                    break
                f.emit(f"xor {reg32(r)}, {reg32(r)}")
            elif isinstance(a.src, tuple):
                p, part = a.src
                f.emit(f"{a.ins} {a.dst}, {p.hi if part == 'hi' else p.lo}")
                p.uses -= 1
                if p.uses == 0 and p.pair is not None:
                    owner[p.pair] = None
            else:
                f.emit(f"{a.ins} {a.dst}, {a.src}")
            a.emitted = True
            ai += 1
            if a.ins != "xor":
                done += 1
        return done

    def progress():
        before = ai
        emit_adds(1)
        if ai == before:
            raise RuntimeError("scheduler deadlock")

    for item in mlist:
        if isinstance(item, str):
            f.emit(item)
            continue
        if isinstance(item, QItem):
            while not all(d.emitted for d in item.deps):
                progress()
            f.emit(f"mov rdx, {item.u0}")
            f.emit(f"mulx rdx, {qreg}, {n0w(field)}")
            if item.restore is not None:
                f.emit(f"mov rdx, {item.restore}")
            emit_adds(per)
            continue
        p = item
        if not (p.fixed_hi and p.fixed_lo):
            while all(o is not None for o in owner):
                progress()
            k = owner.index(None)
            p.pair = k
            if not p.fixed_hi:
                p.hi = pairs[k][0]
            if not p.fixed_lo:
                p.lo = pairs[k][1]
            owner[k] = p if p.uses else None
        f.emit(f"mulx {p.hi}, {p.lo}, {p.src}")
        p.emitted = True
        emit_adds(per)
    while ai < len(alist):
        before = ai
        emit_adds(len(alist))
        if ai == before:
            raise RuntimeError("scheduler deadlock at the end")


def reduce_row(field, n, u, qreg, mlist, alist, swap_top=False):
    """t += q*m on u[0..n]; lo parts on the OF chain, hi parts on the CF chain.
    Returns the addition that completes word 1 (the next q depends on it)."""
    mlist.append(f"mov rdx, {qreg}")
    alist.append(Add("xor"))
    last1 = None
    for j in range(n):
        p = Prod(modw(field, j))
        mlist.append(p)
        lo = Add("adox", u[j], (p, "lo"))
        alist.append(lo)
        if j == n - 1 and swap_top:
            # absorb OF before adding the last high half (a pure scheduling choice)
            alist.append(Add("adox", u[n], zero_word()))
        alist.append(Add("adcx", u[j + 1], (p, "hi")))
        if j == 1:
            last1 = lo
    if not swap_top:
        alist.append(Add("adox", u[n], zero_word()))
    return last1


def final_sub_store(f, field, n, u, tmps, outp):
    """out = t - m if t >= m else t (t < 2m < 2^(64N))."""
    s = tmps[:n]
    assert len(s) == n and not set(s) & set(u)
    inline_final_sub(f, field, n, u, s)
    for j in range(n):
        f.emit(f"mov {q(outp, j)}, {s[j]}")


# ---------------------------------------------------------------------------------


def gen_mul(field, n, name, square=False, qafter=1):
    """CIOS multiplication.  square=True: sqr(out, a) computed as mul(out, a, a)."""
    f = Func(name)
    regs = ["r8", "r9", "r10", "r11", "rbx", "rbp", "r12", "r13", "r14", "r15", "rax"]
    # u[0..n], q and two pairs must fit in `regs`; if not, `out` moves to the stack.
    spill_out = (n + 1) + 1 + 4 > len(regs)
    if spill_out:
        regs.append("rdi")
    pool = Pool(regs)
    u, qreg, pairs = cios_registers(pool, n)
    frame = 8 if spill_out else 0
    if spill_out:
        f.emit("mov qword ptr [rsp], rdi")
    bp = "rcx"
    f.emit(f"mov {bp}, {'rsi' if square else 'rdx'}")
    mlist, alist = [], []

    # row 0: t = a * b_0, written directly
    mlist.append(f"mov rdx, {q(bp, 0)}")
    alist.append(Add("xor"))
    p0 = Prod(q("rsi", 0), hi=u[1], lo=u[0])
    mlist.append(p0)
    mlist.append(QItem(u[0], q(bp, 0), []))
    for j in range(1, n):
        p = Prod(q("rsi", j), hi=u[j + 1])
        mlist.append(p)
        alist.append(Add("adcx", u[j], (p, "lo")))
    alist.append(Add("adcx", u[n], zero_word()))
    reduce_row(field, n, u, qreg, mlist, alist, swap_top=True)
    u = u[1:] + u[:1]  # the shift; u[n] now holds 0

    for i in range(1, n):
        mlist.append(f"mov rdx, {q(bp, i)}")
        alist.append(Add("xor"))
        qdeps = None
        for j in range(n):
            p = Prod(q("rsi", j))
            mlist.append(p)
            lo = Add("adox", u[j], (p, "lo"))
            alist.append(lo)
            alist.append(Add("adcx", u[j + 1], (p, "hi")))  # j = n-1 lands in the zero word
            if j == 0:
                qdeps = [lo]
            if j == min(qafter, n - 1):
                mlist.append(QItem(u[0], q(bp, i), qdeps))
        alist.append(Add("adox", u[n], zero_word()))
        reduce_row(field, n, u, qreg, mlist, alist, swap_top=True)
        u = u[1:] + u[:1]

    merge(f, field, mlist, alist, pairs, qreg)
    f.comment("conditional subtraction")
    tmps = [r for r in ["rcx", "rdx", "rsi", qreg, *pairs[0], *pairs[1], u[n], *pool.free]]
    outp = "rdi"
    if spill_out:
        outp = tmps.pop()
        f.emit(f"mov {outp}, qword ptr [rsp]")
    final_sub_store(f, field, n, u[:n], tmps, outp)
    return f.render(pool.used, frame)


def sqr_sym_schedule(f, field, n, pool, a0, junk, load_a, twice, a_word, DW, SW, qafter):
    """The symmetric squaring's rows, shared by gen_sqr_sym (a function of its own) and
    gen_sqr_inline (inside the caller), up to the final subtraction. a0: where a_0 is;
    junk: a free register; load_a(k) emits what puts a_k in a register and returns it;
    twice(t): the lea operand 2t; a_word(j): a_j in memory; DW, SW: where D_k, S_k go.
    Returns (u, qreg, pairs, spare)."""
    E = f.emit
    f.comment("D_k = 2 a_k mod 2^64, S_k = word k of 2a")
    E(f"mov rdx, {a0}")
    E(f"xor {reg32(junk)}, {reg32(junk)}")
    E(f"mov {junk}, rdx")
    E(f"adcx {junk}, rdx")  # CF = top bit of a_0
    w = {}
    for k in range(1, n):
        t = load_a(k)
        d = pool.get()
        E(f"lea {d}, {twice(t)}")
        E(f"mov {DW(k)}, {d}")
        E(f"adcx {t}, {t}")  # t = S_k, CF = top bit of a_k
        if k >= 2:
            E(f"mov {SW(k)}, {t}")
        if k == 1:
            w[1] = d
            pool.put(t)
        else:
            w[k] = t
            pool.put(d)
    pool.put(junk)

    f.comment("row 0: t = a_0 * X_0, X_0 = [a_0, D_1, S_2, ...]")
    u = [pool.get(), pool.get()] + [w[k] for k in range(1, n)]  # u[k+1] reuses w[k]
    lo = pool.get()
    E(f"xor {reg32(lo)}, {reg32(lo)}")
    E(f"mulx {u[1]}, {u[0]}, rdx")
    for k in range(1, n):
        E(f"mulx {u[k + 1]}, {lo}, {w[k]}")  # reads w[k] before overwriting it
        E(f"adcx {u[k]}, {lo}")
    E(f"adcx {u[n]}, {zero_word()}")
    pool.put(lo)
    qreg = pool.get()
    E(f"mov rdx, {u[0]}")
    E(f"mulx rdx, {qreg}, {n0w(field)}")
    pairs = [(pool.get(), pool.get()) for _ in range(2)]
    spare = pool.get() if pool.free else None

    mlist, alist = [], []
    word1 = reduce_row(field, n, u, qreg, mlist, alist)
    u = u[1:] + u[:1]
    for j in range(1, n):
        qi = QItem(u[0], a_word(j) if qafter else None, [word1])
        if not qafter:
            mlist.append(qi)
        mlist.append(f"mov rdx, {a_word(j)}")
        alist.append(Add("xor"))
        for k in range(j, n):
            src = "rdx" if k == j else (DW(k) if k == j + 1 else SW(k))
            p = Prod(src)
            mlist.append(p)
            alist.append(Add("adox", u[k], (p, "lo")))
            alist.append(Add("adcx", u[k + 1], (p, "hi")))  # k = n-1 lands in the zero word
            if qafter and k == min(j + qafter - 1, n - 1):
                mlist.append(qi)
        alist.append(Add("adox", u[n], zero_word()))
        word1 = reduce_row(field, n, u, qreg, mlist, alist)
        u = u[1:] + u[:1]
    merge(f, field, mlist, alist, pairs, qreg, spare=spare)
    return u, qreg, pairs, spare


def gen_sqr_sym(field, n, name, qafter=0):
    """Symmetric squaring in the CIOS frame (see the module docstring)."""
    f = Func(name)
    s_off = lambda k: 8 * (k - 2)               # S_2..S_{n-1}
    d_off = lambda k: 8 * (n - 2) + 8 * (k - 1)  # D_1..D_{n-1}
    frame = 8 * (2 * n - 3)
    SW = lambda k: f"qword ptr [rsp+{s_off(k)}]" if s_off(k) else "qword ptr [rsp]"
    DW = lambda k: f"qword ptr [rsp+{d_off(k)}]"
    pool = Pool(["r8", "r9", "r10", "r11", "rbx", "rbp", "r12", "r13", "r14", "r15", "rax", "rcx"])

    def load_a(k):
        t = pool.get()
        f.emit(f"mov {t}, {q('rsi', k)}")
        return t
    junk = pool.get()
    u, qreg, pairs, spare = sqr_sym_schedule(f, field, n, pool, q("rsi", 0), junk, load_a,
                                             lambda t: f"[{t}+{t}]", lambda j: q("rsi", j), DW, SW, qafter)
    f.comment("conditional subtraction")
    tmps = [r for r in ["rdx", "rsi", qreg, *pairs[0], *pairs[1], u[n], *([spare] if spare else []),
                        *pool.free]]
    final_sub_store(f, field, n, u[:n], tmps, "rdi")
    return f.render(pool.used, frame)


def rodata(field, m, n, n0):
    # snarkpipe_mont_<field>_consts = [m_0 .. m_{n-1}, n0, 0]: read by the inline assembly
    # of mont_inline_x86_64.hpp (hidden: resolved at link time, no GOT).
    sym = consts_sym(field)
    out = ["", "\t.p2align 6", f"\t.globl {sym}", f"\t.hidden {sym}", f"\t.type {sym},@object",
           f"\t.size {sym}, {8 * consts_words(m, n)}", f"{sym}:", f".L{field}_m:"]
    for j in range(n):
        out.append(f"\t.quad 0x{(m >> (W * j)) & ((1 << W) - 1):016x}")
    out += [f".L{field}_n0:", f"\t.quad 0x{n0:016x}", "\t.quad 0"]
    # then the 2n words of C = m * 2^bits(m): a multiple of m that is
    # >= m^2 and with C + m^2 < m * 2^(64n), added to a difference of two double-width
    # products to keep it non-negative (mul_fp2 in mont_inline_x86_64.hpp).
    c = lazy_offset(m, n)
    if c is not None:
        for j in range(2 * n):
            out.append(f"\t.quad 0x{(c >> (W * j)) & ((1 << W) - 1):016x}")
    return out


def lazy_offset(m, n):
    """C for the lazy products, or None when the modulus has too few spare bits (Fr)."""
    c = m << m.bit_length()
    if c >= m * m and c + m * m < m << (W * n):
        return c
    return None


def consts_words(m, n):
    return n + 2 + (2 * n if lazy_offset(m, n) is not None else 0)


# ---------------------------------------------------------------------------------
# The same CIOS multiplication as GCC extended inline assembly (AT&T syntax), so the
# product is computed inside the caller: no call, no callee-saved pushes, and the limbs
# of a and of the result travel in registers that the compiler chooses.
#
#   a: N limbs in registers (in/out operands v0..v_{N-1}); spilled at entry to a
#      stack scratch ("=m" operands sc0..), from where each row loads its multiplier a_i.
#   b: through a pointer register (one register whatever b's addressing; its words are
#      also a memory operand, for the compiler's dependency tracking), the MULX sources.
#   v0..v_{N+5}: N+6 registers for the accumulator (N+1), q and two product pairs; the
#      result ends in N of them.  rdx is clobbered.  No "memory" clobber, not volatile.


def intel_to_att(line):
    """Translates one emitted Intel-syntax line (registers are rdx/edx or %[vK]
    operands, memory operands are already AT&T strings) into AT&T syntax."""
    line = line.strip()
    if line.startswith("/*"):
        return None
    ins, _, ops = line.partition(" ")
    ops = [o.strip() for o in ops.split(", ")]
    for o in ops:
        assert "ptr" not in o, line

    def reg(o):
        if o in ("rdx", "edx"):
            return "%%" + o
        return o
    ops = [reg(o) for o in reversed(ops)]
    if ins == "xor":
        ins = "xorl"
    else:
        ins = ins + "q"
    return f"{ins} {', '.join(ops)}"


def inline_final_sub(f, field, n, u, res):
    """res = u - m unless that borrows (then u): the inline kernels' last step."""
    for j in range(n):
        f.emit(f"mov {res[j]}, {u[j]}")
    for j in range(n):
        f.emit(f"{'sub' if j == 0 else 'sbb'} {res[j]}, {modw(field, j)}")
    for j in range(n):
        f.emit(f"cmovc {res[j]}, {u[j]}")


def result_words(f, field, n, u, res, final_sub):
    """The registers holding a CIOS kernel's result: `res` after the final subtraction
    (result < m), or the accumulator words themselves without it (result < 2m: the redundant
    form of MontField, for moduli with 4m < R)."""
    if final_sub:
        inline_final_sub(f, field, n, u, res)
        return res
    return u[:n]


def asm_lines(ins):
    """AT&T instructions as the string lines of a GCC asm statement."""
    return [f'      "{t}' + ('\\n\\t"' if k + 1 < len(ins) else '"') for k, t in enumerate(ins)]


def asm_body(f):
    """The body of f (Intel syntax) as the string lines of a GCC asm statement."""
    return asm_lines([t for t in (intel_to_att(x) for x in f.body) if t])


def vreg(r):
    """The number K of an inline operand %[vK]."""
    return int(r[len("%[v"):-1])


@contextlib.contextmanager
def inline_mode(field, n):
    """Operands of the code generated inside are GCC inline-asm operands of an n-word
    `field` kernel (see INLINE, INLINE_FIELD), until the block ends."""
    global INLINE, INLINE_FIELD
    INLINE, INLINE_FIELD = n, field
    try:
        yield
    finally:
        INLINE, INLINE_FIELD = None, None


def cios_registers(pool, n):
    """The CIOS frame's registers from `pool`: the accumulator u[0..n], q, two product pairs."""
    u = [pool.get() for _ in range(n + 1)]
    qreg = pool.get()
    pairs = [(pool.get(), pool.get()) for _ in range(2)]
    return u, qreg, pairs


def first_product_row(mlist, alist, u, n, rdx_src, word, q_src=None):
    """Row 0 of a CIOS product, t = rdx_src * word(0..n-1), written directly into u (lo of
    product j into u[j] through ADCX, hi into u[j+1]); a QItem right after the first product
    when q_src is given (q needs only word 0)."""
    mlist.append(f"mov rdx, {rdx_src}")
    alist.append(Add("xor"))
    p0 = Prod(word(0), hi=u[1], lo=u[0])
    mlist.append(p0)
    if q_src is not None:
        mlist.append(QItem(u[0], q_src, []))
    for j in range(1, n):
        p = Prod(word(j), hi=u[j + 1])
        mlist.append(p)
        alist.append(Add("adcx", u[j], (p, "lo")))
    alist.append(Add("adcx", u[n], zero_word()))


def product_row(mlist, alist, u, n, rdx_src, word, clear, qpos):
    """t += rdx_src * word(0..n-1) on words 0..n (lo through ADOX, hi through ADCX); the
    flags cleared first when `clear`; a QItem after product qpos when given (q needs word 0
    of this row)."""
    mlist.append(f"mov rdx, {rdx_src}")
    if clear:
        alist.append(Add("xor"))
    lo0 = None
    for j in range(n):
        p = Prod(word(j))
        mlist.append(p)
        lo = Add("adox", u[j], (p, "lo"))
        alist.append(lo)
        alist.append(Add("adcx", u[j + 1], (p, "hi")))
        if j == 0:
            lo0 = lo
        if qpos is not None and j == qpos:
            mlist.append(QItem(u[0], rdx_src, [lo0]))
    alist.append(Add("adox", u[n], zero_word()))


def gen_mul_inline(field, n, qafter, final_sub=True):
    """The CIOS product as GCC extended asm.  Without final_sub the result is left in
    [0, 2m) (inputs < 2m, 4m < R): the redundant form MontField keeps Fp in (mont_field.hpp),
    which saves the conditional subtraction's 18 instructions and its latency."""
    with inline_mode(field, n):
        f = Func("inline")
        nv = n + 6
        V = [f"%[v{k}]" for k in range(nv)]
        pool = Pool(V)
        u, qreg, pairs = cios_registers(pool, n)
        SC = lambda i: f"%[sc{i}]"
        BW = lambda j: f"{8 * j}(%[bp])"
        # a_1.. go to the scratch; a_0 stays in rdx and in u[n] (free until the last
        # product of row 0), so row 0 never waits for a just-stored word.
        for i in range(1, n):
            f.emit(f"mov {SC(i)}, {V[i]}")
        f.emit(f"mov {u[n]}, {V[0]}")
        mlist, alist = [], []
        # row 0: t = a_0 * b, written directly
        first_product_row(mlist, alist, u, n, V[0], BW, q_src=u[n])
        reduce_row(field, n, u, qreg, mlist, alist, swap_top=True)
        u = u[1:] + u[:1]
        for i in range(1, n):
            product_row(mlist, alist, u, n, SC(i), BW, True, min(qafter, n - 1))
            reduce_row(field, n, u, qreg, mlist, alist, swap_top=True)
            u = u[1:] + u[:1]
        merge(f, field, mlist, alist, pairs, qreg)
        res = result_words(f, field, n, u, [qreg, *pairs[0], *pairs[1], u[n]][:n], final_sub)
        doc = ("out = a*b/R mod m, in [0, m); inputs < m" if final_sub else
               "out ≡ a*b/R (mod m), in [0, 2m); inputs < 2m")
        L = []
        L.append(f"// {field} multiplication: {doc} (see the generator for the schedule).")
        L.append(f"[[gnu::always_inline]] inline void mont_mul_{field}(Limbs<{n}>& out, const Limbs<{n}>& a, const Limbs<{n}>& b) {{")
        L.append("  u64 " + ", ".join(f"v{k} = a[{k}]" for k in range(n)) + ";")
        L.append("  u64 " + ", ".join(f"v{k}" for k in range(n, nv)) + ";")
        L.append(f"  u64 sc[{n}];")
        L.append("  asm(")
        L += asm_body(f)
        L.append("      : " + ", ".join(f'[v{k}] "+&r"(v{k})' for k in range(n)) + ",")
        L.append("        " + ", ".join(f'[v{k}] "=&r"(v{k})' for k in range(n, nv)) + ",")
        L.append("        " + ", ".join(f'[sc{i}] "=m"(sc[{i}])' for i in range(1, n)))
        L.append(f'      : [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[{n}]>(b.data()))')
        L.append('      : "rdx", "cc");')
        L.append("  out = {" + ", ".join(f"v{vreg(r)}" for r in res) + "};")
        L.append("}")
        return L


def gen_mul2_inline(field, n, qafter, cross, neg=False, nprod=2, final_sub=True):
    """Sum of two products with one reduction, in the CIOS frame of gen_mul_inline:
    out = (x_lo*y_lo + x_hi*y_hi)/R mod m (cross: x_lo*y_hi + x_hi*y_lo; neg: y_hi is
    replaced by 2m - y_hi, giving x_lo*y_lo - x_hi*y_hi), x and y 2N-word arrays behind
    pointers (an Fp2 element is one).  Iteration i adds the two M rows x_lo*y_i and
    x_hi*y'_i, then one reduction row: 2N+N+1 MULX per iteration instead of the 2(N+N+1)
    of two multiplications.  (nprod > 2: that many products, x and y then nprod*N words.)
    Bounds, with S the sum of products and Q < R the multiplier of m: after iteration i
    t = (S_i + Q_i*m)/2^(64i) < x_lo + x_hi + m (S_i uses y mod 2^(64i)), which must be
    < 2^(64N) (then the word freed by the shift is 0); before a shift t < 2^(64(N+1));
    the result (S + Q*m)/R < S/R + m is < 2m, so one final subtraction reduces it, when
    S < m*R.  For the Fp2 product with all x, y < 2m (plain sums of reduced values; and
    2m - y_hi <= 2m): x_lo + x_hi + m < 5m < 2^384 and S < 8m^2 < m*R (R/m > 9.8 for
    BLS12-381's p)."""
    with inline_mode(field, n):
        f = Func("inline")
        nv = n + 6
        V = [f"%[v{k}]" for k in range(nv)]
        pool = Pool(V)
        u, qreg, pairs = cios_registers(pool, n)
        XW = lambda h, j: f"{8 * (n * h + j)}(%[xp])"
        yh = [1, 0] if cross else list(range(nprod))
        YW = lambda h, i: f"%[ng{i}]" if (neg and h == 1) else f"{8 * (n * yh[h] + i)}(%[yp])"
        mlist, alist = [], []
        if neg:
            # y_hi -> 2m - y_hi (in [1, 2m] for y_hi < 2m) into a stack scratch, so the
            # sum is x_lo*y_lo - x_hi*y_hi mod m also for operands that are plain sums
            for k in range(n):
                f.emit(f"mov {V[k]}, {modw(field, k)}")
            for k in range(n):
                f.emit(f"{'add' if k == 0 else 'adc'} {V[k]}, {modw(field, k)}")
            for k in range(n):
                f.emit(f"{'sub' if k == 0 else 'sbb'} {V[k]}, {8 * (n + k)}(%[yp])")
            for k in range(n):
                f.emit(f"mov %[ng{k}], {V[k]}")

        # The row of x_hi needs no flag clear: it follows the x_lo row, whose chains end at
        # word n with no carry out (the running sum fits in N+1 words), so CF = OF = 0
        # already.  (Measured: restarting the chains with a TEST there, or with a XOR of a
        # dead register, which the scheduler cannot always find, is slower.)
        # iteration 0: t = x_lo * y'_0 written directly, then the second row
        first_product_row(mlist, alist, u, n, YW(0, 0), lambda j: XW(0, j))
        for i in range(n):
            for h in range(nprod):
                if h == 0 and i == 0:
                    continue  # written directly above
                product_row(mlist, alist, u, n, YW(h, i), lambda j, h=h: XW(h, j), h == 0,
                            min(qafter, n - 1) if h == nprod - 1 else None)
            reduce_row(field, n, u, qreg, mlist, alist, swap_top=True)
            u = u[1:] + u[:1]
        merge(f, field, mlist, alist, pairs, qreg)
        # without final_sub, (S + Qm)/R < 2m: the redundant form (gen_mul_inline)
        res = result_words(f, field, n, u, [qreg, *pairs[0], *pairs[1], u[n]][:n], final_sub)
        rng = "mod m" if final_sub else "in [0, 2m)"
        if nprod == 2:
            name = f"mont_mul2{'x' if cross else ('n' if neg else '')}_{field}"
            what = "x_lo*y_hi + x_hi*y_lo" if cross else ("x_lo*y_lo - x_hi*y_hi" if neg else "x_lo*y_lo + x_hi*y_hi")
            L = [f"// {field}: out = ({what})/R {rng}, one reduction; x, y {2 * n} words (lo, hi),",
                 f"// each x half < 2m, the sum of products < m*R (see gen_mul2_inline)."]
        else:
            k = nprod
            name = f"mont_mulsum{k}_{field}"
            L = [f"// {field}: out = (x_0*y_0 + ... + x_{k - 1}*y_{k - 1})/R mod m, one reduction; x, y {k * n} words",
                 f"// (product h at words {n}h..); x_0 + ... + x_{k - 1} < 2^{W * n} - m and the sum of products",
                 f"// < m*R (see gen_mul2_inline)."]
        L.append(f"[[gnu::always_inline]] inline void {name}(Limbs<{n}>& out, const u64* x, const u64* y) {{")
        L.append("  u64 " + ", ".join(f"v{k}" for k in range(nv)) + ";")
        if neg:
            L.append(f"  u64 ng[{n}];")
        L.append("  asm(")
        L += asm_body(f)
        L.append("      : " + ", ".join(f'[v{k}] "=&r"(v{k})' for k in range(nv)) +
                 ("," if neg else ""))
        if neg:
            L.append("        " + ", ".join(f'[ng{k}] "=m"(ng[{k}])' for k in range(n)))
        # 12 + 2 registers + rdx is every register: "m" operands for x and y's words can
        # leave GCC without a base register ("impossible constraints"), so the memory
        # dependency is a "memory" clobber instead.
        L.append(f'      : [xp] "r"(x), [yp] "r"(y)')
        L.append('      : "rdx", "cc", "memory");')
        L.append("  out = {" + ", ".join(f"v{vreg(r)}" for r in res) + "};")
        L.append("}")
        return L


def gen_sqr_inline(field, n, qafter, final_sub=True):
    """The symmetric squaring of gen_sqr_sym as GCC extended asm: a in registers v0..
    (in/out operands), a_1.., D_k and S_k (see the module docstring) in one stack scratch
    of 3N-4 words, N+6 registers as in the multiplication.  Only for a modulus with
    3m*2^64 <= R*(2^64-1) (check_field).  Without final_sub the result is left in [0, 2m),
    as in gen_mul_inline."""
    with inline_mode(field, n):
        f = Func("inline")
        nv = n + 6
        V = [f"%[v{k}]" for k in range(nv)]
        # scratch words through one pointer register (GCC allows at most 30 operands):
        # a_1..a_{n-1}, then D_1..D_{n-1}, then S_2..S_{n-1}
        nsc = 3 * n - 4
        AW = lambda k: f"{8 * (k - 1)}(%[sp])"
        DW = lambda k: f"{8 * (n - 1 + k - 1)}(%[sp])"
        SW = lambda k: f"{8 * (2 * n - 2 + k - 2)}(%[sp])"
        pool = Pool(V[n:])

        def load_a(k):
            f.emit(f"mov {AW(k)}, {V[k]}")  # v_k holds a_k
            return V[k]
        # rdx = a_0; v0 is free after that (the junk register)
        u, qreg, pairs, spare = sqr_sym_schedule(f, field, n, pool, V[0], V[0], load_a,
                                                 lambda t: f"({t},{t})", AW, DW, SW, qafter)
        res = result_words(f, field, n, u, [qreg, *pairs[0], *pairs[1], u[n], *([spare] if spare else [])][:n],
                           final_sub)
        doc = "out = a^2/R mod m, in [0, m)" if final_sub else "out ≡ a^2/R (mod m), in [0, 2m)"
        L = []
        L.append(f"// {field} squaring: {doc}, input < 2m; the symmetric schedule of")
        L.append(f"// snarkpipe_mont_sqr_{field} (N(N+1)/2 products instead of N^2) inside the caller.")
        L.append(f"[[gnu::always_inline]] inline void mont_sqr_{field}(Limbs<{n}>& out, const Limbs<{n}>& a) {{")
        L.append("  u64 " + ", ".join(f"v{k} = a[{k}]" for k in range(n)) + ";")
        L.append("  u64 " + ", ".join(f"v{k}" for k in range(n, nv)) + ";")
        L.append(f"  u64 sc[{nsc}];")
        L.append("  asm(")
        L += asm_body(f)
        L.append("      : " + ", ".join(f'[v{k}] "+&r"(v{k})' for k in range(n)) + ",")
        L.append("        " + ", ".join(f'[v{k}] "=&r"(v{k})' for k in range(n, nv)) + ",")
        L.append('        [scm] "=m"(sc)')
        L.append('      : [sp] "r"(sc)')
        L.append('      : "rdx", "cc");')
        L.append("  out = {" + ", ".join(f"v{vreg(r)}" for r in res) + "};")
        L.append("}")
        return L


def csym(field, k):
    return f"{consts_sym(field)}+{8 * k}(%%rip)"


def gen_mul_wide_inline(field, n):
    """out = a*b as 2n words: the low n words through memory operands lo0.., the high n
    words in registers.  Schoolbook rows t += a*b_i; word i is final after row i."""
    with inline_mode(field, n):
        f = Func("inline")
        nv = n + 5
        V = [f"%[v{k}]" for k in range(nv)]
        u = V[:n + 1]
        pairs = [(V[n + 1], V[n + 2]), (V[n + 3], V[n + 4])]
        AW = lambda j: f"{8 * j}(%[ap])"
        E = f.emit
        # row 0
        E(f"mov rdx, 0(%[bp])")
        E(f"xor {reg32(pairs[0][1])}, {reg32(pairs[0][1])}")
        E(f"mulx {u[1]}, {u[0]}, {AW(0)}")
        for j in range(1, n):
            hi_, lo_ = u[j + 1], pairs[j % 2][1]
            E(f"mulx {hi_}, {lo_}, {AW(j)}")
            E(f"adcx {u[j]}, {lo_}")
        E(f"adcx {u[n]}, {zero_word()}")
        E(f"mov %[lo0], {u[0]}")
        u = u[1:] + u[:1]
        for i in range(1, n):
            E(f"mov rdx, {8 * i}(%[bp])")
            E(f"xor {reg32(u[n])}, {reg32(u[n])}")  # the new top word, and clears CF/OF
            for j in range(n):
                hi_, lo_ = pairs[j % 2]
                E(f"mulx {hi_}, {lo_}, {AW(j)}")
                E(f"adox {u[j]}, {lo_}")
                E(f"adcx {u[j + 1]}, {hi_}")
            E(f"adox {u[n]}, {zero_word()}")
            if i < n - 1:
                E(f"mov %[lo{i}], {u[0]}")
                u = u[1:] + u[:1]
        E(f"mov %[lo{n - 1}], {u[0]}")
        hi_regs = u[1:n + 1]
        L = []
        L.append(f"// {field}: out = a*b, 2N words (no reduction).")
        L.append(f"[[gnu::always_inline]] inline void mont_mul_wide_{field}(Limbs<{2 * n}>& out, const Limbs<{n}>& a, const Limbs<{n}>& b) {{")
        L.append("  u64 " + ", ".join(f"v{k}" for k in range(nv)) + ";")
        L.append("  asm(")
        L += asm_body(f)
        L.append("      : " + ", ".join(f'[v{k}] "=&r"(v{k})' for k in range(nv)) + ",")
        L.append("        " + ", ".join(f'[lo{i}] "=m"(out[{i}])' for i in range(n)))
        L.append(f'      : [ap] "r"(a.data()), [am] "m"(*reinterpret_cast<const u64(*)[{n}]>(a.data())),')
        L.append(f'        [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[{n}]>(b.data()))')
        L.append('      : "rdx", "cc");')
        for k, r in enumerate(hi_regs):
            L.append(f"  out[{n + k}] = v{vreg(r)};")
        L.append("}")
        return L


def gen_redc_inline(field, n, twice=False):
    """out = t/R mod m for t < m*R (2N words in memory operands t0..): word-serial
    Montgomery reduction of the low half (result r1 <= m), plus the high half (< m),
    then one conditional subtraction.  twice: t < 2m*R (high half < 2m), two."""
    with inline_mode(field, n):
        f = Func("inline")
        nv = n + 5
        V = [f"%[v{k}]" for k in range(nv)]
        u = V[:n + 1]
        pairs = [(V[n + 1], V[n + 2]), (V[n + 3], V[n + 4])]
        E = f.emit
        for j in range(n):
            E(f"mov {u[j]}, %[t{j}]")
        E(f"xor {reg32(u[n])}, {reg32(u[n])}")
        for i in range(n):
            E(f"mov rdx, {u[0]}")
            E(f"imul rdx, {n0w(field)}")
            E(f"xor {reg32(pairs[0][1])}, {reg32(pairs[0][1])}")
            for j in range(n):
                hi_, lo_ = pairs[j % 2]
                E(f"mulx {hi_}, {lo_}, {modw(field, j)}")
                E(f"adox {u[j]}, {lo_}")
                E(f"adcx {u[j + 1]}, {hi_}")
            E(f"adox {u[n]}, {zero_word()}")
            u = u[1:] + u[:1]  # u[0] is 0 now: the new top word
        for j in range(n):
            E(f"{'add' if j == 0 else 'adc'} {u[j]}, %[t{n + j}]")
        s = [u[n], *pairs[0], *pairs[1], "rdx"][:n]
        for _ in range(2 if twice else 1):
            for j in range(n):
                E(f"mov {s[j]}, {u[j]}")
            for j in range(n):
                E(f"{'sub' if j == 0 else 'sbb'} {s[j]}, {modw(field, j)}")
            for j in range(n):
                E(f"cmovnc {u[j]}, {s[j]}")
        L = []
        bound, suffix = ("2m*R", "2") if twice else ("m*R", "")
        L.append(f"// {field}: out = t/R mod m for a 2N-word t < {bound}.")
        L.append(f"[[gnu::always_inline]] inline void mont_redc{suffix}_{field}(Limbs<{n}>& out, const Limbs<{2 * n}>& t) {{")
        L.append("  u64 " + ", ".join(f"v{k}" for k in range(nv)) + ";")
        L.append("  asm(")
        L += asm_body(f)
        L.append("      : " + ", ".join(f'[v{k}] "=&r"(v{k})' for k in range(nv)))
        L.append("      : " + ", ".join(f'[t{j}] "m"(t[{j}])' for j in range(2 * n)))
        L.append('      : "rdx", "cc");')
        L.append("  out = {" + ", ".join(f"v{vreg(r)}" for r in u[:n]) + "};")
        L.append("}")
        return L


def gen_wide_ops(field, n):
    """Double-width helpers for the lazy Fp2 product: x -= y (two asm statements of N
    words each, the borrow passed in a register: GCC allows at most 30 operands), and
    x += C with the constant C of the constant block (words n+2..)."""
    w = 2 * n
    m = dict((f_, m_) for f_, m_, _, _ in FIELDS)[field]
    cwords = [(lazy_offset(m, n) >> (W * k)) & ((1 << W) - 1) for k in range(w)]

    # x = x -/+ y over w words: the first n words from memory in one chain, the flag kept
    # in a register across the second asm statement, which finishes the words above.
    def wide_op(name, what, first_op, chain_op, flag):
        return [f"// {field}, {w} words: {what}.",
                f"[[gnu::always_inline]] inline void {name}_{field}(Limbs<{w}>& x, const Limbs<{w}>& y) {{",
                "  u64 " + ", ".join(f"x{k} = x[{k}]" for k in range(w)) + f", {flag};",
                "  asm("] + \
            asm_lines([f"{first_op if k == 0 else chain_op} %[y{k}], %[x{k}]" for k in range(n)] +
                      ["sbbq %[c], %[c]"]) + \
            ["      : " + ", ".join(f'[x{k}] "+r"(x{k})' for k in range(n)) + f', [c] "=r"({flag})',
             "      : " + ", ".join(f'[y{k}] "m"(y[{k}])' for k in range(n)),
             '      : "cc");',
             "  asm("] + \
            asm_lines(["negq %[c]"] + [f"{chain_op} %[y{k}], %[x{k}]" for k in range(n, w)]) + \
            ["      : " + ", ".join(f'[x{k}] "+r"(x{k})' for k in range(n, w)) + f', [c] "+r"({flag})',
             "      : " + ", ".join(f'[y{k}] "m"(y[{k}])' for k in range(n, w)),
             '      : "cc");',
             "  x = {" + ", ".join(f"x{k}" for k in range(w)) + "};",
             "}", ""]

    L = wide_op("wide_sub", "x = x - y (the caller knows there is no underflow)", "subq", "sbbq", "borrow")
    L += wide_op("wide_add", "x = x + y (the caller knows it fits)", "addq", "adcq", "carry")
    first = next(k for k in range(w) if cwords[k])
    L += [f"// {field}, {w} words: x = x + C, C = m*2^bits(m) >= m^2 (the caller knows it fits).",
          f"[[gnu::always_inline]] inline void wide_add_c_{field}(Limbs<{w}>& x) {{",
          "  u64 " + ", ".join(f"x{k} = x[{k}]" for k in range(first, w)) + ";",
          "  asm("]
    L += asm_lines([f"{'addq' if k == first else 'adcq'} {csym(field, n + 2 + k)}, %[x{k}]" for k in range(first, w)])
    L += ["      : " + ", ".join(f'[x{k}] "+r"(x{k})' for k in range(first, w)),
          "      :",
          '      : "cc");']
    L += [f"  x[{k}] = x{k};" for k in range(first, w)]
    L += ["}", ""]
    return L


def gen_wide_fused(field, n, name, signs):
    """x = x ± y0 ± y1 ... over 2N words in one pass (signs: '+'/'-' per operand), for the
    lazy-reduction code of tower.cpp: the low N words of every operand in one asm statement,
    each operand's carry or borrow kept in a register for the second, which finishes the
    high words. Plain integer arithmetic mod 2^(128N): the callers know the result's range."""
    w, ops = 2 * n, range(len(signs))
    what = "x = x " + " ".join(f"{sg} y{i}" for i, sg in zip(ops, signs))
    args = ", ".join(f"const Limbs<{w}>& y{i}" for i in ops)
    first = {"+": ("addq", "adcq"), "-": ("subq", "sbbq")}
    ins_lo, ins_hi = [], []
    for i, sg in zip(ops, signs):
        ins_lo += [f"{first[sg][0] if k == 0 else first[sg][1]} {8 * k}(%[y{i}p]), %[x{k}]" for k in range(n)]
        ins_lo.append(f"sbbq %[c{i}], %[c{i}]")
        ins_hi.append(f"negq %[c{i}]")
        ins_hi += [f"{first[sg][1]} {8 * (n + k)}(%[y{i}p]), %[h{k}]" for k in range(n)]
    inputs = [f'[y{i}p] "r"(y{i}.data()), [y{i}m] "m"(*reinterpret_cast<const u64(*)[{w}]>(y{i}.data()))'
              for i in ops]
    inputs = ",\n        ".join(inputs)
    carries = ", ".join(f"c{i}" for i in ops)
    L = [f"// {field}, {w} words: {what} in one pass (exact; the caller knows the result is in range).",
         f"[[gnu::always_inline]] inline void {name}_{field}(Limbs<{w}>& x, {args}) {{",
         "  u64 " + ", ".join(f"x{k} = x[{k}]" for k in range(n)) + f", {carries};",
         "  asm("] + asm_lines(ins_lo)
    L += ["      : " + ", ".join(f'[x{k}] "+r"(x{k})' for k in range(n)) + ", " +
          ", ".join(f'[c{i}] "=&r"(c{i})' for i in ops),
          "      : " + inputs,
          '      : "cc");',
          "  " + " ".join(f"x[{k}] = x{k};" for k in range(n)),
          "  u64 " + ", ".join(f"h{k} = x[{n + k}]" for k in range(n)) + ";",
          "  asm("] + asm_lines(ins_hi)
    L += ["      : " + ", ".join(f'[h{k}] "+r"(h{k})' for k in range(n)) + ", " +
          ", ".join(f'[c{i}] "+r"(c{i})' for i in ops),
          "      : " + inputs,
          '      : "cc");',
          "  " + " ".join(f"x[{n + k}] = h{k};" for k in range(n)),
          "}", ""]
    return "\n".join(L).split("\n")


def generate_inline():
    L = [
        "// Generated by tools/gen_mont_x86_64.py -- do not edit by hand.",
        "// Montgomery multiplication for the BLS12-381 fields as GCC extended inline assembly",
        "// (the CIOS schedule of mont_x86_64.S, computed inside the caller).  Requires BMI2 + ADX",
        "// and an optimizing build (the operands take up to N+7 registers); the constants are",
        "// the symbols snarkpipe_mont_{fp,fr}_consts of mont_x86_64.S.",
        "#pragma once",
        "",
        "#include \"ff/bigint.hpp\"",
        "",
        "extern \"C\" {",
    ]
    for field, m, n, n0 in FIELDS:
        L.append(f"extern const snarkpipe::ff::u64 {consts_sym(field)}[{consts_words(m, n)}];")
    L += ["}", "", "namespace snarkpipe::ff::x86 {", ""]
    for field, m, n, n0 in FIELDS:
        # Fp's product and square leave their result in [0, 2p) (MontField's redundant
        # form, FpParams::redundant); Fr's stay canonical.
        L += gen_mul_inline(field, n, QAFTER_PRODUCT_INLINE[field], final_sub=field != "fp") + [""]
        if check_field(field, m, n, n0):
            L += gen_sqr_inline(field, n, QAFTER_SQR_INLINE[field], final_sub=field != "fp") + [""]
    # Fp only: the pieces of the Fp2 product with lazy reduction (ff/fp2.hpp).
    L += gen_mul2_inline("fp", 6, QAFTER_INLINE["fp"], cross=False, neg=True, final_sub=False) + [""]
    L += gen_mul2_inline("fp", 6, QAFTER_INLINE["fp"], cross=True, final_sub=False) + [""]
    L += gen_mul_wide_inline("fp", 6) + [""]
    L += gen_redc_inline("fp", 6) + [""]
    L += gen_redc_inline("fp", 6, twice=True) + [""]
    L += gen_wide_ops("fp", 6)
    # Fp only: the fused sums of the cyclotomic squaring (ff/tower.cpp).
    L += gen_wide_fused("fp", 6, "wide_add2", "++")
    L += gen_wide_fused("fp", 6, "wide_add_sub2", "+--")
    L += gen_wide_fused("fp", 6, "wide_add2_sub", "++-")
    L += ["}  // namespace snarkpipe::ff::x86", ""]
    return "\n".join(L)


def generate():
    lines = [
        "/* Generated by tools/gen_mont_x86_64.py -- do not edit by hand.",
        " * Montgomery multiplication/squaring for the BLS12-381 base field p (6 limbs)",
        " * and scalar field r (4 limbs).  Requires BMI2 (MULX) and ADX (ADCX/ADOX).",
        " *   void snarkpipe_mont_mul_{fp,fr}(uint64_t *out, const uint64_t *a, const uint64_t *b);",
        " *   void snarkpipe_mont_sqr_{fp,fr}(uint64_t *out, const uint64_t *a);",
        " * out = a*b/R mod m (R = 2^(64N)), output < m; inputs < m, or < 2m for p (4p < R:",
        " * Fp's redundant form); out may alias a and b.",
        " */",
        "",
        "\t.intel_syntax noprefix",
        "\t.section .rodata",
        "\t.p2align 3",
        ".Lzero:",
        "\t.quad 0",
    ]
    sym = {}
    for field, m, n, n0 in FIELDS:
        sym[field] = check_field(field, m, n, n0)
        lines += rodata(field, m, n, n0)
    lines += ["", "\t.text"]
    for field, m, n, n0 in FIELDS:
        lines += gen_mul(field, n, PREFIX + "mul_" + field, qafter=QAFTER_MUL[field])
        if sym[field]:
            lines += gen_sqr_sym(field, n, PREFIX + "sqr_" + field, qafter=QAFTER_SQR[field])
        else:
            lines += gen_mul(field, n, PREFIX + "sqr_" + field, square=True, qafter=QAFTER_SQR[field])
    lines += ["", "\t.section .note.GNU-stack,\"\",@progbits", ""]
    return "\n".join(lines)


def outputs(path):
    """The generated files: (path, text) for the assembly at path and the headers next to it."""
    folder = os.path.dirname(path)
    return [(path, generate()), (os.path.join(folder, "mont_inline_x86_64.hpp"), generate_inline()),
            (os.path.join(folder, "add_x86_64.hpp"), gen_add_x86_64.generate_add())]


def check(path):
    """Regenerates into a temporary folder and byte-compares with the committed files, so a
    hand edit of generated code or a generator change without regeneration fails the ctest."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for committed, text in outputs(path):
            fresh = os.path.join(tmp, os.path.basename(committed))
            with open(fresh, "w") as fh:
                fh.write(text)
            if not os.path.exists(committed) or not filecmp.cmp(fresh, committed, shallow=False):
                print("generated file differs: %s (run python3 tools/gen_mont_x86_64.py)" % committed)
                bad = 1
    return bad


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if args:
        path = args[0]
    else:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        path = os.path.join(root, "src", "ff", "mont_x86_64.S")
    if "--check" in sys.argv[1:]:
        sys.exit(check(path))
    for out, text in outputs(path):
        with open(out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
