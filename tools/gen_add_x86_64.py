"""Generates src/ff/add_x86_64.hpp: modular addition, subtraction and negation for the
4-limb (Fr) and 6-limb (Fp) fields as GCC extended inline assembly, and the fused sum and
difference of the NTT butterfly (src/poly/butterfly.hpp).  Standard library only.

Imported by tools/gen_mont_x86_64.py, which writes the header next to mont_x86_64.S and
byte-compares it under --check (the ctest generated_arith); it is not run by itself.

Every function is an ADD/ADC or SUB/SBB chain over N limbs followed by a branch-free
correction (CMOV on the carry flag, or a mask made from the borrow with SBB r, r); the
chains are written out word by word here instead of by hand in two sizes.  The output is
laid out the way tools/format.sh (clang-format, .clang-format) lays out C++, so that the
formatting ctest accepts the generated header unchanged: asm operand lists are packed
greedily to 120 columns, as clang-format packs them.
"""

COLUMNS = 120
COMMAND = "python3 tools/gen_mont_x86_64.py"


# --- layout -----------------------------------------------------------------------------

def pack(first, cont, items, last=""):
    """items joined by ", " after `first`, broken (after a comma) before an item that would
    pass COLUMNS and continued after `cont`; `last` follows the final item."""
    lines, cur = [], first
    for k, item in enumerate(items):
        tail = "," if k + 1 < len(items) else last
        piece = item + tail
        if cur not in (first, cont) and len(cur) + 1 + len(piece) > COLUMNS:
            lines.append(cur.rstrip())
            cur = cont
        cur += ("" if cur in (first, cont) else " ") + piece
    lines.append(cur)
    return lines


def signature(name, params):
    """`[[gnu::always_inline]] inline void name(params) {`, the parameters aligned under the
    first when the line would pass COLUMNS."""
    head = f"[[gnu::always_inline]] inline void {name}("
    return pack(head, " " * len(head), params, last=") {")


def asm(ins, outputs, inputs, clobbers, volatile=False):
    """One asm statement.  ins: (instruction, comment or None) pairs; a volatile statement
    ends every instruction with a newline (as the pointer versions always have)."""
    texts = []
    for k, (t, _) in enumerate(ins):
        nl = volatile or k + 1 < len(ins)
        texts.append(f'"{t}' + ('\\n\\t"' if nl else '"'))
    L = ["  asm volatile("] if volatile else []
    for k, ((_, comment), text) in enumerate(zip(ins, texts)):
        lead = "  asm(" if k == 0 and not volatile else "      "
        L.append(lead + text + (f"  // {comment}" if comment else ""))
    L += pack("      : ", "        ", outputs)
    L += pack("      : ", "        ", inputs)
    L.append("      : " + ", ".join(f'"{c}"' for c in clobbers) + ");")
    return L


# --- operands -----------------------------------------------------------------------------

def regs(v, n, constraint):
    return [f'[{v}{k}] "{constraint}"({v}{k})' for k in range(n)]


def words(v, n):
    """The N limbs of array v as separate memory operands [v0] .. [vN-1]."""
    return [f'[{v}{k}] "m"({v}[{k}])' for k in range(n)]


def through(v, n):
    """Array v through a pointer register [vp], with the whole array as a memory operand
    [vm], so GCC knows what the asm reads without a "memory" clobber."""
    return [f'[{v}p] "r"({v}.data())', f'[{v}m] "m"(*reinterpret_cast<const u64(*)[{n}]>({v}.data()))']


def decl(names):
    return "  u64 " + ", ".join(names) + ";"


def load(v, src, n):
    return [f"{v}{k} = {src}[{k}]" for k in range(n)]


def names(v, n):
    return [f"{v}{k}" for k in range(n)]


def store(dst, v, n):
    return f"  {dst} = {{" + ", ".join(names(v, n)) + "};"


def chain(first, rest, src, dst, n):
    """first/rest over the words: `src(k), %[dst k]`."""
    return [(f"{first if k == 0 else rest} {src(k)}, %[{dst}{k}]", None) for k in range(n)]


def mem(v):
    return lambda k: f"{8 * k}(%[{v}p])"


def op(v):
    return lambda k: f"%[{v}{k}]"


def with_comment(ins, comment):
    """ins with `comment` on its last instruction."""
    return ins[:-1] + [(ins[-1][0], comment)]


def limbs(n):
    return f"Limbs<{n}>"


# --- the functions (register versions: what optimized builds inline) ---------------------

def cond_sub(n, what=None):
    """s = s - p unless that borrows; t already holds a copy of s."""
    ins = chain("subq", "sbbq", op("p"), "t", n) + [(f"cmovncq %[t{k}], %[s{k}]", None) for k in range(n)]
    return with_comment(ins, what and f"no borrow: {what} - p")


def add_mod(n):
    doc = {4: ["// (a + b) mod p, 4 limbs (inputs < p, 2p < 2^256); r may alias a or b."],
           6: ["// (a + b) mod p, 6 limbs (inputs < p, 2p < 2^384); r may alias a or b. A redundant field",
               "// (MontField::REDUNDANT) passes its bound 2p as p: inputs < 2p, result < 2p."]}[n]
    ins = chain("addq", "adcq", mem("b"), "s", n) + [(f"movq %[s{k}], %[t{k}]", None) for k in range(n)]
    ins += cond_sub(n, "s")
    return doc + signature(f"add_mod_{n}", [f"{limbs(n)}& r", f"const {limbs(n)}& a", f"const {limbs(n)}& b",
                                            f"const {limbs(n)}& p"]) + \
        [decl(load("s", "a", n)), decl(names("t", n))] + \
        asm(ins, regs("s", n, "+r") + regs("t", n, "=&r"), through("b", n) + words("p", n), ["cc"]) + \
        [store("r", "s", n), "}", ""]


def reduce_once(n):
    doc = [f"// v mod p for v < 2p, {n} limbs: v - p unless that borrows; r may alias v. The observers of",
           "// a redundant field (MontField::reduced) call it."]
    return doc + signature(f"reduce_once_{n}", [f"{limbs(n)}& r", f"const {limbs(n)}& v", f"const {limbs(n)}& p"]) + \
        [decl(load("s", "v", n)), decl([f"t{k} = s{k}" for k in range(n)])] + \
        asm(cond_sub(n, "v"), regs("s", n, "+r") + regs("t", n, "+&r"), words("p", n), ["cc"]) + \
        [store("r", "s", n), "}", ""]


def sub_mod(n):
    # The borrow becomes a mask in the top scratch word, which also ends up holding p's top
    # word masked: one register fewer than a separate mask.
    m = f"t{n - 1}"
    ins = chain("subq", "sbbq", mem("b"), "s", n) + [(f"sbbq %[{m}], %[{m}]", "-borrow: all ones when a < b")]
    for k in range(n - 1):
        ins += [(f"movq %[p{k}], %[t{k}]", None), (f"andq %[{m}], %[t{k}]", None)]
    ins += [(f"andq %[p{n - 1}], %[{m}]", None)] + chain("addq", "adcq", op("t"), "s", n)
    return [f"// (a - b) mod p, {n} limbs; r may alias a or b."] + \
        signature(f"sub_mod_{n}", [f"{limbs(n)}& r", f"const {limbs(n)}& a", f"const {limbs(n)}& b",
                                   f"const {limbs(n)}& p"]) + \
        [decl(load("s", "a", n)), decl(names("t", n))] + \
        asm(ins, regs("s", n, "+r") + regs("t", n, "=&r"), through("b", n) + words("p", n), ["cc"]) + \
        [store("r", "s", n), "}", ""]


def neg_mod(n):
    ins = [("movq 0(%[ap]), %[z]", None)] + [(f"orq {8 * k}(%[ap]), %[z]", None) for k in range(1, n)]
    ins += [("negq %[z]", None), ("sbbq %[z], %[z]", "all ones when a != 0")]
    ins += [(f"movq %[p{k}], %[s{k}]", None) for k in range(n)] + chain("subq", "sbbq", mem("a"), "s", n)
    ins += [(f"andq %[z], %[s{k}]", None) for k in range(n)]
    return [f"// (p - a) mod p, {n} limbs: 0 stays 0; r may alias a."] + \
        signature(f"neg_mod_{n}", [f"{limbs(n)}& r", f"const {limbs(n)}& a", f"const {limbs(n)}& p"]) + \
        [decl(names("s", n) + ["z"])] + \
        asm(ins, regs("s", n, "=&r") + ['[z] "=&r"(z)'], through("a", n) + words("p", n), ["cc"]) + \
        [store("r", "s", n), "}", ""]


def add_sub_mod(n):
    """The NTT butterfly's sum and difference: two asm statements that read a's words from
    registers and b's and p's from memory, so the compiler may schedule the second while the
    first retires; the outputs are written only after both."""
    doc = [f"// (a + b, a - b) mod p in one pass, {n} limbs (inputs < p, 2p < 2^{64 * n}): the sum and",
           "// difference of the NTT butterfly (poly/butterfly.hpp), sharing the loads of a and b.",
           "// sum and diff may alias a or b (both are written after the last read). Optimized builds",
           "// only: at -O0 each memory operand takes an address register and the operands do not fit."]
    add = chain("addq", "adcq", op("b"), "s", n) + [(f"movq %[s{k}], %[t{k}]", None) for k in range(n)]
    add += cond_sub(n)
    sub = chain("subq", "sbbq", op("b"), "d", n) + [(f"cmovcq %[p{k}], %[z{k}]", None) for k in range(n)]
    sub += chain("addq", "adcq", op("z"), "d", n)
    mem_in = words("b", n) + words("p", n)
    return doc + signature(f"add_sub_mod_{n}", [f"{limbs(n)}& sum", f"{limbs(n)}& diff", f"const {limbs(n)}& a",
                                                f"const {limbs(n)}& b", f"const {limbs(n)}& p"]) + \
        [decl(load("s", "a", n)), decl(load("d", "a", n)), decl(names("t", n)),
         "  // s = a + b; t = s - p; keep t unless that borrowed."] + \
        asm(add, regs("s", n, "+&r") + regs("t", n, "=&r"), mem_in, ["cc"]) + \
        ["  // d = a - b; add p back when that borrowed.", decl([f"z{k} = 0" for k in range(n)])] + \
        asm(sub, regs("d", n, "+&r") + regs("z", n, "+&r"), mem_in, ["cc"]) + \
        [store("sum", "s", n), store("diff", "d", n), "}", ""]


def add_plain(n):
    bits = 64 * n - 1
    doc = [f"// a + b for {n} limbs without reduction (the caller knows the sum fits: for Fp, a, b < 2p",
           f"// gives a + b < 4p < 2^{bits}); an operand of the lazy Fp2 products and squarings."]
    return doc + signature(f"add_plain_{n}", [f"{limbs(n)}& r", f"const {limbs(n)}& a", f"const {limbs(n)}& b"]) + \
        [decl(load("s", "a", n))] + \
        asm(chain("addq", "adcq", mem("b"), "s", n), regs("s", n, "+r"), through("b", n), ["cc"]) + \
        [store("r", "s", n), "}", ""]


def add_p_sub_plain(n):
    doc = [f"// a + p - b for {n} limbs without reduction (a, b < p: the result is in (0, 2p), exact;",
           f"// the wrap-around of the intermediate a - b mod 2^{64 * n} cancels). One pass instead of a",
           "// modular negation and a plain addition; an operand of the lazy Fp2 squarings (which also",
           "// pass 2p for operands < 2p: the result is then in (0, 4p))."]
    ins = chain("subq", "sbbq", mem("b"), "s", n) + chain("addq", "adcq", op("p"), "s", n)
    return doc + signature(f"add_p_sub_plain_{n}", [f"{limbs(n)}& r", f"const {limbs(n)}& a",
                                                    f"const {limbs(n)}& b", f"const {limbs(n)}& p"]) + \
        [decl(load("s", "a", n))] + \
        asm(ins, regs("s", n, "+r"), through("b", n) + words("p", n), ["cc"]) + \
        [store("r", "s", n), "}", ""]


# --- pointer versions (unoptimized builds) ------------------------------------------------

def ptr_chain(first, rest, src, n):
    return [(f"{first if k == 0 else rest} {8 * k}(%[{src}]), %[s{k}]", None) for k in range(n)]


def ptr_store(n):
    return [(f"movq %[s{k}], {8 * k}(%[r])", None) for k in range(n)]


def ptr_fn(name, doc, ins, n, extra=()):
    outs = regs("s", n, "=&r") + [f'[{v}] "=&r"({v})' for v in extra]
    return [doc] + signature(name, ["u64* r", "const u64* a", "const u64* b", "const u64* p"]) + \
        [decl(names("s", n) + list(extra))] + \
        asm(ins, outs, ['[r] "r"(r)', '[a] "r"(a)', '[b] "r"(b)', '[p] "r"(p)'], ["cc", "memory"], volatile=True) + \
        ["}", ""]


def add_mod_ptr(n):
    # r holds a + b while s - p is formed; CMOVC takes it back from memory if that borrowed.
    ins = ptr_chain("movq", "movq", "a", n) + ptr_chain("addq", "adcq", "b", n) + ptr_store(n)
    ins += ptr_chain("subq", "sbbq", "p", n) + [(f"cmovcq {8 * k}(%[r]), %[s{k}]", None) for k in range(n)]
    ins += ptr_store(n)
    bound = {4: "p < 2^255", 6: "p < 2^383"}[n]
    return ptr_fn(f"add_mod_{n}_ptr", f"// (a + b) mod p for {n} limbs (inputs < p, {bound}); r may alias a or b.",
                  ins, n)


def sub_mod_ptr(n):
    ins = ptr_chain("movq", "movq", "a", n) + ptr_chain("subq", "sbbq", "b", n)
    ins += [("sbbq %[m], %[m]", "m = -borrow")] + ptr_store(n) + ptr_chain("addq", "adcq", "p", n)
    ins += [("testq %[m], %[m]", "no borrow: keep a - b")]
    ins += [(f"cmovzq {8 * k}(%[r]), %[s{k}]", None) for k in range(n)] + ptr_store(n)
    return ptr_fn(f"sub_mod_{n}_ptr", f"// (a - b) mod p for {n} limbs; r may alias a or b.", ins, n, extra=["m"])


# --- the header ---------------------------------------------------------------------------

HEAD = "// Generated by `" + COMMAND + "` (tools/gen_add_x86_64.py) -- do not edit by hand.\n" + """\
//
// Modular addition, subtraction and negation for 4- and 6-limb fields as x86-64 inline
// assembly: ADD/ADC and SUB/SBB chains with a branch-free correction (CMOV or a borrow mask).
// The first operand goes in and the result comes out in registers; the second is read
// through a pointer with 8-byte loads (its memory is an operand, no "memory" clobber, not
// volatile), so the compiler inlines these, keeps values in
// registers across consecutive operations and never reloads an 8-byte-stored result with a
// wider load (which would defeat store forwarding).
// GCC's code for these chains from intrinsics or __int128 goes through memory and costs
// several times more.

#pragma once

#include <cstdint>

#include "ff/bigint.hpp"

// nvcc's front end reads these for the host side of .cu files and would call every
// scratch output "set but never used".
#if defined(__CUDACC__)
#pragma nv_diagnostic push
#pragma nv_diag_suppress 550
#endif

namespace snarkpipe::ff::x86 {
"""

PTR_HEAD = """\
// The same with pointer operands and a "memory" clobber: what unoptimized builds use
// (at -O0 GCC gives every memory operand its own address register, and the register
// versions above run out of registers).
namespace ptr {"""

TAIL = """\
}  // namespace ptr

}  // namespace snarkpipe::ff::x86

#if defined(__CUDACC__)
#pragma nv_diagnostic pop
#endif
"""


def generate_add():
    """The text of src/ff/add_x86_64.hpp."""
    L = HEAD.split("\n")
    # Fr (4 limbs): +, -, negation, and the butterfly's fused pair.
    L += add_mod(4) + sub_mod(4) + neg_mod(4) + add_sub_mod(4)
    # Fp (6 limbs): also the reduction of the redundant form and the lazy Fp2 helpers.
    L += add_mod(6) + reduce_once(6) + sub_mod(6) + neg_mod(6) + add_plain(6) + add_p_sub_plain(6)
    L += PTR_HEAD.split("\n")
    for n in (4, 6):
        L += add_mod_ptr(n) + sub_mod_ptr(n)
    L = L[:-1]  # no blank line before the namespace closes
    return "\n".join(L) + "\n" + TAIL
