#!/usr/bin/env python3
"""Emits the unrolled Keccak-f[1600] round body used by Sources/CKeccak/keccak.c.

Lane a_x_y is the state word at column x, row y (index x + 5*y). The emitted code
is pasted between the GENERATED markers of keccak.c; run this script to regenerate it.
"""
R = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56], [27, 20, 39, 8, 14]]
out = []
for x in range(5):
    out.append(f"c{x} = a{x}{0} ^ a{x}{1} ^ a{x}{2} ^ a{x}{3} ^ a{x}{4};")
for x in range(5):
    out.append(f"d{x} = c{(x - 1) % 5} ^ ROL64(c{(x + 1) % 5}, 1);")
for x in range(5):
    for y in range(5):
        X, Y = y, (2 * x + 3 * y) % 5
        r = R[x][y]
        expr = f"(a{x}{y} ^ d{x})"
        out.append(f"b{X}{Y} = {('ROL64(' + expr + ', ' + str(r) + ')') if r else expr};")
for y in range(5):
    for x in range(5):
        out.append(f"a{x}{y} = b{x}{y} ^ (~b{(x + 1) % 5}{y} & b{(x + 2) % 5}{y});")
print("\n".join("        " + l for l in out))
