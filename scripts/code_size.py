#!/usr/bin/env python3
"""Files and functions over the size limits of the production code.

Usage: scripts/code_size.py [--file-lines N] [--function-lines N] [--all] [DIR ...]

Scans the C++ and CUDA sources of the production folders (engine, cli, sim, kernels, gui by
default; tests and benchmarks are not production code) and prints every file longer than
--file-lines (default 400) and every function body longer than --function-lines (default 120),
longest first. A function is found by matching braces after string literals and comments are
blanked: a brace block whose header (the text since the previous ';', '{' or '}') has a parameter
list and is not a namespace, class, struct, enum or union, nor an initializer after '='; class and
namespace bodies are looked into. Its length counts the lines from the header's first line to
the closing brace. --all lists every function with its length instead. Exits 1 when something is
over a limit, so a script or CI step can require none.
"""
import argparse
import os
import re
import subprocess
import sys

EXTS = ('.cpp', '.h', '.cu', '.cuh', '.hpp')
TYPE_KEYWORDS = re.compile(r'^(template\s*<.*>\s*)?(namespace|struct|class|enum|union|extern\s+"C")\b')


def blank_literals(text):
    """Replaces comments, string and character literals by spaces, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ')' + m.group(1) + '"'
            j = text.find(end, i)
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'':
            if c == "'" and i > 0 and (text[i - 1].isalnum()):   # digit separator 1'000
                out.append(' ')
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(' ' * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(text):
    """(name, first line, line count) of every function body in `text`."""
    code = blank_literals(text)
    code = re.sub(r'^\s*#.*$', lambda m: ' ' * len(m.group(0)), code, flags=re.M)   # preprocessor lines
    found = []
    stack = []          # per open brace: ('function', name, line) / ('scope',) / ('block',)
    header_start = 0
    line = 1
    for i, c in enumerate(code):
        if c == '\n':
            line += 1
        elif c in ';{}':
            if c == '{':
                header = code[header_start:i]
                in_function = any(k[0] in ('function', 'block') for k in stack)
                kind = ('block',)
                if not in_function:
                    h = ' '.join(header.split())
                    before_paren = h.split('(', 1)[0]
                    if TYPE_KEYWORDS.match(h) or (h.startswith('template') and TYPE_KEYWORDS.search(h)):
                        kind = ('scope',)
                    elif '(' in h and '=' not in before_paren and not h.endswith(('=', ',')):
                        name = before_paren.split()[-1] if before_paren.split() else '?'
                        first = line - header.count('\n') + leading_newlines(header)
                        kind = ('function', name, first)
                    elif not h:
                        kind = ('scope',)   # a brace block of its own (extern "C" bodies, ...)
                stack.append(kind)
            elif c == '}':
                if stack:
                    kind = stack.pop()
                    if kind[0] == 'function':
                        found.append((kind[1], kind[2], line - kind[2] + 1))
            header_start = i + 1
    return found


def leading_newlines(header):
    stripped = header.lstrip()
    return header[:len(header) - len(stripped)].count('\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dirs', nargs='*', default=['engine', 'cli', 'sim', 'kernels', 'gui'])
    ap.add_argument('--file-lines', type=int, default=400)
    ap.add_argument('--function-lines', type=int, default=120)
    ap.add_argument('--all', action='store_true', help='list every function with its length')
    a = ap.parse_args()
    files = subprocess.run(['git', 'ls-files', '--', *a.dirs], capture_output=True, text=True, check=True).stdout.split()
    files = [f for f in files if f.endswith(EXTS) and os.path.isfile(f)]
    long_files, long_functions = [], []
    for f in files:
        with open(f, encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        lines = text.count('\n')
        if lines > a.file_lines:
            long_files.append((lines, f))
        for name, first, count in functions(text):
            if a.all or count > a.function_lines:
                long_functions.append((count, f'{f}:{first}', name))
    for lines, f in sorted(long_files, reverse=True):
        print(f'file {lines:5d} lines  {f}')
    for count, where, name in sorted(long_functions, reverse=True):
        print(f'function {count:5d} lines  {name}  {where}')
    over = len(long_files) + (0 if a.all else len(long_functions))
    print(f'{len(long_files)} files over {a.file_lines} lines, '
          f'{sum(1 for c, _, _ in long_functions if c > a.function_lines)} functions over {a.function_lines} lines',
          file=sys.stderr)
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
