#!/usr/bin/env python3
"""Assembles SignerKit's hand-written EVM sources (validator.asm beside this script) into hex.

The source format, one item per line, `;` starts a comment:
  name:            a label; its value is the byte offset of the next instruction
  OPCODE           an instruction by its mnemonic (the table below: only the opcodes the sources use)
  PUSHn 0x…        a push of an n-byte immediate (the value must fit in n bytes)
  PUSHn @name      a push of a label's offset (forward references allowed)

Usage: assemble.py [validator.asm]   prints the code as 0x-hex on one line.
Standard library only: SignerKit's tests run it to check the committed Swift constant
(Sources/SignerKit/Verification/ERC6492Validator.swift) against this source.
"""
import sys
from pathlib import Path

OPCODES = {
    "STOP": 0x00, "ADD": 0x01, "SUB": 0x03, "LT": 0x10, "GT": 0x11, "EQ": 0x14, "ISZERO": 0x15,
    "AND": 0x16, "SHL": 0x1B, "CODESIZE": 0x38, "CODECOPY": 0x39, "EXTCODESIZE": 0x3B,
    "RETURNDATASIZE": 0x3D, "POP": 0x50, "MLOAD": 0x51, "MSTORE": 0x52, "JUMP": 0x56, "JUMPI": 0x57,
    "GAS": 0x5A, "JUMPDEST": 0x5B, "CALL": 0xF1, "RETURN": 0xF3, "STATICCALL": 0xFA,
}
OPCODES.update({f"DUP{n}": 0x7F + n for n in range(1, 17)})
OPCODES.update({f"SWAP{n}": 0x8F + n for n in range(1, 17)})


class AssemblyError(Exception):
    pass


def parse(text):
    """The source's items: ("label", name) or (opcode, width, operand) with operand int, label or None."""
    items = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        where = f"line {number}"
        if line.endswith(":"):
            items.append(("label", line[:-1], where))
            continue
        parts = line.split()
        mnemonic = parts[0].upper()
        if mnemonic.startswith("PUSH"):
            width = int(mnemonic[4:]) if mnemonic[4:].isdigit() else 0
            if not 1 <= width <= 32 or len(parts) != 2:
                raise AssemblyError(f"{where}: {line!r} is not PUSHn <value>")
            operand = parts[1]
            value = operand[1:] if operand.startswith("@") else int(operand, 16 if operand.startswith("0x") else 10)
            items.append((0x5F + width, width, value, where))
        elif mnemonic in OPCODES and len(parts) == 1:
            items.append((OPCODES[mnemonic], 0, None, where))
        else:
            raise AssemblyError(f"{where}: unknown instruction {line!r}")
    return items


def assemble(text):
    """The code bytes of `text`: labels resolved in a first pass (widths are explicit, so offsets are known)."""
    items = parse(text)
    labels, offset = {}, 0
    for item in items:
        if item[0] == "label":
            if item[1] in labels:
                raise AssemblyError(f"{item[2]}: label {item[1]} defined twice")
            labels[item[1]] = offset
        else:
            offset += 1 + item[1]
    code = bytearray()
    for item in items:
        if item[0] == "label":
            continue
        opcode, width, operand, where = item
        code.append(opcode)
        if width:
            if isinstance(operand, str):
                if operand not in labels:
                    raise AssemblyError(f"{where}: unknown label {operand}")
                operand = labels[operand]
            if operand >= 1 << (8 * width):
                raise AssemblyError(f"{where}: {operand:#x} does not fit in {width} bytes")
            code += operand.to_bytes(width, "big")
    return bytes(code)


def main():
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("validator.asm")
    try:
        print("0x" + assemble(source.read_text()).hex())
    except AssemblyError as error:
        print(f"assemble.py: {source}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
