#!/usr/bin/env python3
"""Extracts the ```swift blocks of Markdown files as compilable Swift units (see docs/ARCHITECTURE.md,
"Docs that compile").

A unit is one block, plus the blocks marked as fragments that follow it. Markers are HTML comments
(invisible on GitHub) on the lines right before the opening fence, with no blank line in between:

    <!-- fragment -->              this block continues the previous unit of the same file
    <!-- given: let json = "{}" -->  hidden Swift code placed before the block (declares what the
                                    example takes as given: its inputs); may span several lines:
    <!-- given:
    let json = "{}"
    -->

Each unit becomes Swift source with `#sourceLocation` lines, so compiler errors name the Markdown file and
line.

Usage:
    doc_blocks.py split OUTDIR FILE...        write OUTDIR/NNN-<file>-<line>.swift per unit; print the paths
    doc_blocks.py find [--without-given] FILE TEXT
                                              print the first unit of FILE containing TEXT (no
                                              #sourceLocation lines; without its `given` code when
                                              asked, for a caller that supplies real inputs); exit 1
                                              when there is none
"""

import os
import re
import sys

FENCE_OPEN = re.compile(r"^```swift\s*$")
FENCE_CLOSE = re.compile(r"^```\s*$")


class Block:
    def __init__(self, path, line, code, fragment, given):
        self.path = path          # the Markdown file
        self.line = line          # 1-based line of the first code line
        self.code = code          # list of lines
        self.fragment = fragment  # continues the previous unit
        self.given = given        # list of (line, text) of hidden code


def markers_before(lines, fence_index):
    """The marker comments directly above lines[fence_index]: (fragment, given lines)."""
    fragment = False
    given = []
    i = fence_index - 1
    comments = []
    while i >= 0 and lines[i].strip().endswith("-->"):
        end = i
        while i >= 0 and "<!--" not in lines[i]:
            i -= 1
        if i < 0:
            break
        comments.insert(0, (i, end))
        i -= 1
    for start, end in comments:
        text = "\n".join(lines[start:end + 1]).strip()
        body = text[len("<!--"):-len("-->")].strip()
        if body == "fragment":
            fragment = True
        elif body.startswith("given:"):
            if start == end:
                given.append((start + 1, body[len("given:"):].strip()))
            else:
                # Multi-line: code after `given:` on the opening line, then the lines up to `-->`.
                first = lines[start].split("given:", 1)[1] if "given:" in lines[start] else ""
                if first.strip():
                    given.append((start + 1, first.strip()))
                for k in range(start + 1, end + 1):
                    line = lines[k]
                    if k == end:
                        line = line[: line.rfind("-->")]
                    if line.strip():
                        given.append((k + 1, line))
    return fragment, given


def blocks(path):
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    found = []
    i = 0
    while i < len(lines):
        if FENCE_OPEN.match(lines[i]):
            fragment, given = markers_before(lines, i)
            j = i + 1
            while j < len(lines) and not FENCE_CLOSE.match(lines[j]):
                j += 1
            if j == len(lines):
                sys.exit(f"{path}:{i + 1}: unterminated ```swift block")
            found.append(Block(path, i + 2, lines[i + 1:j], fragment, given))
            i = j + 1
        else:
            i += 1
    return found


def units(path):
    result = []
    for block in blocks(path):
        if block.fragment:
            if not result:
                sys.exit(f"{path}:{block.line - 1}: <!-- fragment --> with no block before it")
            result[-1].append(block)
        else:
            result.append([block])
    return result


def source(unit, locations=True, given=True):
    out = [f"// doc-block: {os.path.relpath(unit[0].path)}:{unit[0].line - 1}"] if locations else []
    absolute = os.path.abspath(unit[0].path)
    for block in unit:
        for line, text in block.given if given else []:
            if locations:
                out.append(f'#sourceLocation(file: "{absolute}", line: {line})')
            out.append(text)
        if locations:
            out.append(f'#sourceLocation(file: "{absolute}", line: {block.line})')
        out.extend(block.code)
    if locations:
        out.append("#sourceLocation()")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) >= 3 and argv[1] == "split":
        outdir = argv[2]
        os.makedirs(outdir, exist_ok=True)
        count = 0
        for path in argv[3:]:
            for unit in units(path):
                count += 1
                name = re.sub(r"[^A-Za-z0-9]+", "-", os.path.relpath(path)).strip("-")
                target = os.path.join(outdir, f"{count:03d}-{name}-{unit[0].line}.swift")
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(source(unit))
                print(target)
        return 0
    if len(argv) >= 4 and argv[1] == "find":
        with_given = argv[2] != "--without-given"
        path, text = argv[2:4] if with_given else argv[3:5]
        for unit in units(path):
            code = source(unit, locations=False, given=with_given)
            if text in code:
                sys.stdout.write(code)
                return 0
        print(f"doc_blocks.py: no ```swift block in {path} contains {text!r}", file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
