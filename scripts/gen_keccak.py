#!/usr/bin/env python3
"""Emits SignerKit's Keccak-f[1600], Sources/CKeccak/keccak_permutation.inc, which keccak.c includes and the
benchmarks' lane-complementing C baseline (Benchmarks/KeccakComplemented/keccak_complemented.c) includes
too: one permutation, compiled into the library and compiled apart, with the same flags.

Written from the Keccak specification (FIPS 202, section 3.2) and the lane-complementing transform
described in the Keccak team's implementation overview: the state
is kept with a fixed set P of lanes complemented, so that chi, rewritten with De Morgan's laws, needs
one NOT per row instead of five. This script works the operators out itself: it tracks which lanes are
complemented through theta and rho-pi, then picks for every chi output the form
    b[x] ^ (p & q)   or   b[x] ^ (p | q)
(p, q = b[x+1], b[x+2] or their complements) that lands on P again with the fewest NOTs. It checks the
result against a plain Python Keccak-f[1600] on random states before writing anything.

Usage: scripts/gen_keccak.py   (rewrites the file; the Keccak tests and the benchmark self-check verify it in C)
"""
import pathlib
import random

R = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56], [27, 20, 39, 8, 14]]
RC = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000, 0x000000000000808B,
    0x0000000080000001, 0x8000000080008081, 0x8000000000008009, 0x000000000000008A, 0x0000000000000088,
    0x0000000080008009, 0x000000008000000A, 0x000000008000808B, 0x800000000000008B, 0x8000000000008089,
    0x8000000000008003, 0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
MASK64 = (1 << 64) - 1
# The complemented lanes (x, y) of the transform.
P = {(1, 0), (2, 0), (3, 1), (2, 2), (2, 3), (0, 4)}


def rol(value, shift):
    return ((value << shift) | (value >> (64 - shift))) & MASK64 if shift else value


def theta_rho_pi(a):
    """theta, then rho and pi: the lanes b that chi combines."""
    c = [a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4] for x in range(5)]
    d = [c[(x - 1) % 5] ^ rol(c[(x + 1) % 5], 1) for x in range(5)]
    b = [[0] * 5 for _ in range(5)]
    for x in range(5):
        for y in range(5):
            b[y][(2 * x + 3 * y) % 5] = rol(a[x][y] ^ d[x], R[x][y])
    return b


def plain_permutation(state):
    a = [[state[x + 5 * y] for y in range(5)] for x in range(5)]
    for rc in RC:
        b = theta_rho_pi(a)
        for x in range(5):
            for y in range(5):
                a[x][y] = b[x][y] ^ (~b[(x + 1) % 5][y] & MASK64 & b[(x + 2) % 5][y])
        a[0][0] ^= rc
    return [a[x][y] for y in range(5) for x in range(5)]


def complement_flow():
    """Which b lanes are complemented when the state holds P complemented."""
    column = [sum((x, y) in P for y in range(5)) % 2 for x in range(5)]
    d = [column[(x - 1) % 5] ^ column[(x + 1) % 5] for x in range(5)]
    b = {}
    for x in range(5):
        for y in range(5):
            b[(y, (2 * x + 3 * y) % 5)] = ((x, y) in P) ^ d[x]
    return b


def chi_forms(b_complemented):
    """For each output lane: (operator, b0 complemented?, p complemented?, q complemented?), chosen per
    row so that the fewest distinct lanes need a NOT (a NOT computed once serves every use in its row)."""
    forms = {}
    total_nots = 0
    for y in range(5):
        options = []
        for x in range(5):
            m_x, m1, m2 = b_complemented[(x, y)], b_complemented[((x + 1) % 5, y)], b_complemented[((x + 2) % 5, y)]
            # True: out = B0 ^ (~B1 & B2) with B = b ^ m. Stored: o = out ^ P(x, y) = b0 ^ T ^ flip, where
            # T = u & v, u = ~B1 (b1, or ~b1 when m1 = 0), v = B2 (b2, or ~b2 when m2 = 1).
            u_not, v_not = not m1, bool(m2)
            flip = bool(m_x) ^ ((x, y) in P)
            and_form = ("&", flip, u_not, v_not)  # (~)b0 ^ (u & v)
            or_form = ("|", not flip, not u_not, not v_not)  # (~)b0 ^ (~u | ~v), since ~(u & v) = ~u | ~v
            options.append([and_form, or_form])
        best = None
        for pick in range(32):
            choice = [options[x][(pick >> x) & 1] for x in range(5)]
            nots = set()
            for x, (_, b0_not, p_not, q_not) in enumerate(choice):
                if b0_not:
                    nots.add(x)
                if p_not:
                    nots.add((x + 1) % 5)
                if q_not:
                    nots.add((x + 2) % 5)
            if best is None or len(nots) < len(best[1]):
                best = (choice, nots)
        choice, nots = best
        total_nots += len(nots)
        for x, form in enumerate(choice):
            forms[(x, y)] = form
    return forms, total_nots


def complemented_permutation(state, forms):
    a = [[state[x + 5 * y] ^ (MASK64 if (x, y) in P else 0) for y in range(5)] for x in range(5)]
    for rc in RC:
        b = theta_rho_pi(a)
        new = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                op, b0_not, p_not, q_not = forms[(x, y)]
                b0 = b[x][y] ^ (MASK64 if b0_not else 0)
                p = b[(x + 1) % 5][y] ^ (MASK64 if p_not else 0)
                q = b[(x + 2) % 5][y] ^ (MASK64 if q_not else 0)
                new[x][y] = b0 ^ ((p & q) if op == "&" else (p | q))
        a = new
        a[0][0] ^= rc
    return [a[x][y] ^ (MASK64 if (x, y) in P else 0) for y in range(5) for x in range(5)]


def permutation(forms, name, lanes_name, constants_name):
    """The C function `void name(uint64_t *lanes_name)`."""
    lines = []
    for x in range(5):
        lines.append(f"c{x} = a{x}0 ^ a{x}1 ^ a{x}2 ^ a{x}3 ^ a{x}4;")
    for x in range(5):
        lines.append(f"d{x} = c{(x - 1) % 5} ^ ROL64(c{(x + 1) % 5}, 1);")
    for x in range(5):
        for y in range(5):
            X, Y = y, (2 * x + 3 * y) % 5
            expression = f"(a{x}{y} ^ d{x})"
            lines.append(f"b{X}{Y} = {f'ROL64({expression}, {R[x][y]})' if R[x][y] else expression};")
    for y in range(5):
        negated = sorted({x for x in range(5) if forms[(x, y)][1]}
                         | {(x + 1) % 5 for x in range(5) if forms[(x, y)][2]}
                         | {(x + 2) % 5 for x in range(5) if forms[(x, y)][3]})
        for x in negated:
            lines.append(f"n{x} = ~b{x}{y};")
        for x in range(5):
            op, b0_not, p_not, q_not = forms[(x, y)]
            b0 = f"n{x}" if b0_not else f"b{x}{y}"
            p = f"n{(x + 1) % 5}" if p_not else f"b{(x + 1) % 5}{y}"
            q = f"n{(x + 2) % 5}" if q_not else f"b{(x + 2) % 5}{y}"
            lines.append(f"a{x}{y} = {b0} ^ ({p} {op} {q});")
    lines.append(f"a00 ^= {constants_name}[round];")
    body = "\n".join("        " + line for line in lines)
    loads = "\n".join(
        f"    uint64_t a{x}{y} = {'~' if (x, y) in P else ''}{lanes_name}[{x + 5 * y}];"
        for y in range(5) for x in range(5))
    stores = "\n".join(
        f"    {lanes_name}[{x + 5 * y}] = {'~' if (x, y) in P else ''}a{x}{y};" for y in range(5) for x in range(5))
    return f"""// The lanes {sorted(P)} (x, y) are kept complemented between rounds, so chi needs one NOT per row.
void {name}(uint64_t *{lanes_name}) {{
{loads}
    uint64_t c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
    uint64_t {', '.join(f'b{x}{y}' for y in range(5) for x in range(5))};
    uint64_t n0, n1, n2, n3, n4;
    for (int round = 0; round < 24; round++) {{
{body}
    }}
{stores}
}}"""


def permutation_include(forms):
    constants = ",\n".join(
        "    " + ", ".join(f"0x{value:016X}ULL" for value in RC[i:i + 3]) for i in range(0, len(RC), 3))
    function = permutation(forms, "keccak_permute", "st", "keccak_round_constants")
    function = function.replace("void keccak_permute", "static inline void keccak_permute").replace("ROL64(", "KECCAK_ROL64(")
    return f"""// Generated by scripts/gen_keccak.py: do not edit.
//
// Keccak-f[1600] with lane complementing, written from FIPS 202 by the generator (which checks it
// against a plain permutation). Included by keccak.c (SignerKit's permutation) and by the benchmarks'
// Benchmarks/KeccakComplemented/keccak_complemented.c, which compiles the same code apart as a C baseline.
#include <stdint.h>

#define KECCAK_ROL64(value, shift) (((value) << (shift)) | ((value) >> (64 - (shift))))

static const uint64_t keccak_round_constants[24] = {{
{constants}
}};

{function}
"""


def main():
    flow = complement_flow()
    forms, nots = chi_forms(flow)
    generator = random.Random(1600)
    for _ in range(64):
        state = [generator.getrandbits(64) for _ in range(25)]
        assert complemented_permutation(state, forms) == plain_permutation(state), "lane complementing is wrong"
    assert plain_permutation([0] * 25)[0] == 0xF1258F7940E1DDE7, "plain permutation is wrong"
    root = pathlib.Path(__file__).resolve().parent.parent
    (root / "Sources/CKeccak/keccak_permutation.inc").write_text(permutation_include(forms))
    print(f"wrote Sources/CKeccak/keccak_permutation.inc: {nots} NOTs per round (plain chi: 25)")


if __name__ == "__main__":
    main()
