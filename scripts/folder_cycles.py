#!/usr/bin/env python3
"""Include cycles between the folders of engine/.

Usage: scripts/folder_cycles.py

Reads every engine/**/*.h and *.cpp that git tracks, takes each `#include "engine/<folder>/..."` as
an arrow from the including file's folder to the included file's folder, and prints every set of
folders that reach one another (a strongly connected component of that graph) with the arrows
inside it and the files that make them. The engine's folders are meant to form layers (scenario
below validate, layout, graph, schedule ... below app): exits 1 when any cycle exists.
"""
import collections
import re
import subprocess
import sys

INCLUDE = re.compile(r'#include "engine/([a-z_]+)/')


def folder_graph():
    files = subprocess.run(['git', 'ls-files', 'engine/*.h', 'engine/*.cpp'], capture_output=True, text=True,
                           check=True).stdout.split()
    arrows = collections.defaultdict(lambda: collections.defaultdict(list))   # from -> to -> files
    for f in files:
        src = f.split('/')[1]
        with open(f, encoding='utf-8', errors='replace') as fh:
            for dst in set(INCLUDE.findall(fh.read())):
                if dst != src:
                    arrows[src][dst].append(f)
    return arrows


def components(arrows):
    """Tarjan's strongly connected components with more than one folder."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in arrows.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(arrows):
        if v not in index:
            visit(v)
    return out


def main():
    arrows = folder_graph()
    cycles = components(arrows)
    for comp in cycles:
        print('cycle: ' + ' '.join(comp))
        for a in comp:
            for b, files in sorted(arrows[a].items()):
                if b in comp:
                    print(f'  {a} -> {b}: ' + ', '.join(sorted(files)))
    if not cycles:
        print('no include cycles between engine folders')
    return 1 if cycles else 0


if __name__ == '__main__':
    sys.exit(main())
