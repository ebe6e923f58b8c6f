#!/usr/bin/env python3
"""Runs every example of every --help text, as written, from a folder that looks like the repository
root (scenarios/, docs/, validation/ and tests/ are links to the source tree, so the examples' output files land in a
temporary folder). Each example must exit 0. GPU commands (`hcpsim run`, `hcpsim calibrate`) are the
one exception on a machine without a GPU or a build without CUDA: there they must fail with the
message that says so, and the rest of that command's examples (which need their output) are not run.

usage: run_help_examples.py HCPSIM SOURCE_DIR [HCPSIM_GUI]
"""
import os
import re
import subprocess
import sys
import tempfile

NO_GPU = ("built without CUDA support", "no CUDA device found")


def help_text(argv):
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    r = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=60, env=env)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(argv)} --help exited {r.returncode}:\n{r.stderr}")
    return r.stdout


def examples(text):
    """Commands under 'Examples:': lines indented by two spaces, joined over trailing backslashes."""
    out, lines = [], text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == "Examples:")
    except StopIteration:
        return out
    cur = ""
    for line in lines[start + 1:]:
        if cur:
            cur += " " + line.strip()
        elif line.startswith("  ") and not line.startswith("   ") and line.strip():
            cur = line.strip()
        else:
            break
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip()
            continue
        out.append(cur)
        cur = ""
    return out


def commands(hcpsim):
    text = help_text([hcpsim])
    section = text.split("SUBCOMMANDS:")[-1] if "SUBCOMMANDS:" in text else text.split("Subcommands:")[-1]
    return [m.group(1) for m in re.finditer(r"^\s{2}([a-z]+)\s", section, re.M)]


def main():
    hcpsim, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    gui = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
    groups = [(f"hcpsim {c}", help_text([hcpsim, c])) for c in commands(hcpsim)]
    if gui:
        groups.append(("hcpsim-gui", help_text([gui])))
    if len(groups) < 10:
        sys.exit(f"FAIL: expected at least 10 commands in `hcpsim --help`, found {[g for g, _ in groups]}")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    bindir = tempfile.mkdtemp(prefix="hcpsim-bin-")
    for tool in [hcpsim] + ([gui] if gui else []):
        os.symlink(tool, os.path.join(bindir, os.path.basename(tool)))
    env["PATH"] = bindir + os.pathsep + env["PATH"]
    failures, ran = [], 0
    for name, text in groups:
        cmds = examples(text)
        if not cmds:
            failures.append(f"{name}: --help has no examples")
            continue
        root = tempfile.mkdtemp(prefix="hcpsim-examples-")
        for d in ("scenarios", "docs", "validation", "tests"):
            os.symlink(os.path.join(source, d), os.path.join(root, d))
        for cmd in cmds:
            print(f"$ {cmd}", flush=True)
            r = subprocess.run(["bash", "-c", cmd], cwd=root, env=env, capture_output=True, text=True, timeout=900)
            ran += 1
            gpu_command = re.match(r"hcpsim (run|calibrate)\b", cmd)
            if r.returncode != 0 and gpu_command and any(m in r.stderr for m in NO_GPU):
                print(f"  no GPU here: {r.stderr.strip().splitlines()[-1]}\n  (the rest of {name}'s examples need it)")
                break
            if r.returncode != 0:
                failures.append(f"{name}: `{cmd}` exited {r.returncode}\n{r.stderr[-2000:]}")
    print(f"{ran} examples run")
    if failures:
        print("\n\n".join(["FAILED:"] + failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
