#!/usr/bin/env python3
"""Lists functions longer than a limit, and files longer than another, in the files git tracks
(generated code, in folders named Generated, excepted).

    python3 scripts/long_functions.py                # functions over 60 lines, files over 400
    python3 scripts/long_functions.py 40 --files 300 Tests/

A function's length runs from the line of its keyword (`func`, `init`, `deinit`, `subscript`,
a computed property's `var`, Python's `def`, a shell function's name, a C function's first line)
to the line of its closing brace, so signatures spread over several lines count in full. Swift
is read with its strings (multi-line, raw, interpolated) and comments skipped, so braces inside
them do not confuse the count. Prints `LINES path:line name`, longest first; exits 1 when
anything is listed (usable as a check), 0 otherwise.
"""

import argparse
import ast
import re
import subprocess
import sys

SWIFT_DECLARATIONS = {"func", "init", "deinit", "subscript", "var"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SwiftScanner:
    """Walks Swift source once, reporting each declaration whose body is in braces."""

    def __init__(self, text):
        self.text = text
        self.found = []  # (first line, last line, name)

    def scan(self):
        text, i, line = self.text, 0, 1
        frames = [{"kind": "code", "parens": 0}]
        braces = []  # per open brace: the declaration it opened, or None
        pending = None  # a declaration keyword waiting for its body's `{`
        while i < len(text):
            frame = frames[-1]
            c = text[i]
            if c == "\n":
                line += 1
            if frame["kind"] == "string":
                i = self._in_string(frames, frame, i)
                continue
            if text.startswith("//", i):
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
                continue
            if text.startswith("/*", i):
                i, line = self._skip_block_comment(i, line)
                continue
            opened = re.match(r'(#*)("""|")', text[i:i + 20])
            if opened and (opened.group(1) or c == '"'):
                frames.append({"kind": "string", "hashes": opened.group(1), "quote": opened.group(2)})
                i += len(opened.group(0))
                continue
            word = IDENTIFIER.match(text, i) if (c.isalpha() or c == "_") else None
            if word:
                pending = self._declaration(word, line, frame) or pending
                i = word.end()
                continue
            if c == "\n" and pending and pending["var"]:
                pending = None  # a computed property opens its body on its own line
            elif c in "([":
                frame["parens"] += 1
            elif c in ")]":
                frame["parens"] -= 1
                if pending and frame["parens"] < pending["parens"]:
                    pending = None  # the keyword was inside brackets (a pattern, an argument)
                if frame["parens"] < 0 and len(frames) > 1:  # the end of `\( … )` in a string
                    frames.pop()
            elif c == "=" and pending and pending["var"] and frame["parens"] == pending["parens"]:
                pending = None  # a stored property with an initial value, not a computed one
            elif c == "{":
                owner = None
                if pending and frame["parens"] == pending["parens"]:
                    owner, pending = pending, None
                braces.append(owner)
            elif c == "}":
                owner = braces.pop() if braces else None
                if pending and frame["parens"] <= pending["parens"]:
                    pending = None  # a requirement without a body, at the end of its type
                if owner:
                    self.found.append((owner["line"], line, owner["name"]))
            i += 1
        return self.found

    def _declaration(self, word, line, frame):
        """The declaration a keyword starts (`func name` …), or None for any other word."""
        name, start = word.group(0), word.start()
        before = self.text[start - 1] if start > 0 else " "
        if name not in SWIFT_DECLARATIONS or before in ".`" or IDENTIFIER.match(before):
            return None
        rest = self.text[word.end():word.end() + 80].split("\n")[0]
        label = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", rest)
        title = name + (" " + label.group(1) if label and name in ("func", "var") else "")
        return {"line": line, "name": title, "parens": frame["parens"], "var": name == "var"}

    def _in_string(self, frames, frame, i):
        text = self.text
        close = frame["quote"] + frame["hashes"]
        if text.startswith("\\" + frame["hashes"], i):
            after = i + 1 + len(frame["hashes"])
            if text.startswith("(", after):
                frames.append({"kind": "code", "parens": 0})
                return after + 1
            return after + 1  # an escaped character
        if text.startswith(close, i):
            frames.pop()
            return i + len(close)
        return i + 1

    def _skip_block_comment(self, i, line):
        depth = 0
        text = self.text
        while i < len(text):
            if text.startswith("/*", i):
                depth, i = depth + 1, i + 2
            elif text.startswith("*/", i):
                depth, i = depth - 1, i + 2
                if depth == 0:
                    break
            else:
                line += text[i] == "\n"
                i += 1
        return i, line


def python_functions(text):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return [(node.lineno, node.end_lineno, "def " + node.name) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def shell_functions(text):
    lines = text.split("\n")
    found = []
    for number, line in enumerate(lines):
        opened = re.match(r"^(\s*)(?:function\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{?\s*$", line)
        if not opened:
            continue
        indent = opened.group(1)
        for end in range(number + 1, len(lines)):
            if re.match(r"^" + indent + r"\}", lines[end]):
                found.append((number + 1, end + 1, opened.group(2)))
                break
    return found


def c_functions(text):
    """Top-level definitions: a `{` at depth 0 after a `(`, closed by its matching `}`."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    found, depth, start, line, statement_line = [], 0, None, 1, None
    head = ""
    for c in code:
        if c == "\n":
            line += 1
        if depth == 0:
            if c in ";}":
                head, statement_line = "", None
                continue
            if c == "{":
                if "(" in head and "=" not in head and not head.lstrip().startswith("#"):
                    start = (statement_line or line, head.split("(")[0].split()[-1:] or ["?"])
                depth += 1
                head = ""
                continue
            if not c.isspace() and statement_line is None:
                statement_line = line
            if c == "\n" and head.lstrip().startswith("#"):
                head, statement_line = "", None
                continue
            head += c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if start:
                    found.append((start[0], line, start[1][0]))
                start, head, statement_line = None, "", None
    return found


def functions(path, text):
    if path.endswith(".swift"):
        return SwiftScanner(text).scan()
    if path.endswith(".py"):
        return python_functions(text)
    if path.endswith(".sh") or text.startswith("#!/usr/bin/env bash") or text.startswith("#!/bin/bash"):
        return shell_functions(text)
    if path.endswith(".c") or path.endswith(".h"):
        return c_functions(text)
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("limit", nargs="?", type=int, default=60, help="longest function allowed (lines)")
    parser.add_argument("--files", type=int, default=400, help="longest code file allowed (lines)")
    parser.add_argument("paths", nargs="*", help="only files below these paths")
    args = parser.parse_args()
    tracked = subprocess.run(["git", "ls-files", "--", *args.paths], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    rows = []
    for path in filter(None, tracked):
        if not re.search(r"\.(swift|py|sh|c|h)$", path) and not path.endswith("/run"):
            continue
        if "/Generated/" in path:
            continue  # a generator's output (committed, never edited by hand)
        try:
            text = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            continue
        count = text.count("\n") + (0 if text.endswith("\n") else 1)
        if count > args.files:
            rows.append((count, "%d %s (file)" % (count, path)))
        for first, last, name in functions(path, text):
            if last - first + 1 > args.limit:
                rows.append((last - first + 1, "%d %s:%d %s" % (last - first + 1, path, first, name)))
    for _, row in sorted(rows, key=lambda r: -r[0]):
        print(row)
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
