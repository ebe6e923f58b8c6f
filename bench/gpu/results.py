#!/usr/bin/env python3
"""Reads what bench/gpu/check.sh writes into a results folder, whatever part of it exists.

  results.py summary RES          the summary (check.sh rewrites summary.txt with it after every step)
  results.py gtest TESTS.json     test_kernels' verdict: exit 1 when a test failed, none ran, or any
                                  was skipped (a skipped GPU test on a GPU machine is a failure)
  results.py row RES              the line of docs/validation.md's results table
  results.py fill RES DOC         puts that line into DOC's results table (replacing the
                                  "not run yet" line, or a line of the same date and GPU)

Files read (each optional): run.tsv, steps.tsv, preflight.tsv, devices.txt, tests.json,
calibrate.txt, compare-grid.json, compare-uncalibrated.json, torch-tables.csv, interference.csv,
check.json, sdpa.csv."""
import csv
import json
import os
import re
import statistics
import sys

COMMUNICATION = {"send_recv", "all_to_all", "all_gather", "reduce_scatter", "all_reduce"}
TABLE_HEADER = "| date | GPU |"


def read_tsv(path):
    try:
        with open(path, errors="replace") as f:
            return [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError:
        return []


def read_json(path):
    try:
        with open(path, errors="replace") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_csv(path):
    try:
        with open(path, newline="", errors="replace") as f:
            return list(csv.DictReader(line for line in f if not line.startswith("#")))
    except OSError:
        return []


def gtest_verdict(path):
    """(ok, text) for a gtest JSON report: skipped tests count as failures."""
    j = read_json(path)
    if not j:
        return False, "no test report (tests.json missing or unreadable)"
    ran = skipped = failed = 0
    skipped_names, failed_names = [], []
    for suite in j.get("testsuites", []):
        for t in suite.get("testsuite", []):
            name = f"{suite.get('name', '?')}.{t.get('name', '?')}"
            if t.get("status") == "NOTRUN":
                continue
            ran += 1
            if t.get("failures"):
                failed += 1
                failed_names.append(name)
            elif t.get("result") == "SKIPPED":
                skipped += 1
                skipped_names.append(name)
    text = f"{ran} tests, {failed} failed, {skipped} skipped"
    if skipped:
        text += " (skipped counts as failed: " + ", ".join(skipped_names[:3]) + (", ..." if skipped > 3 else "") + ")"
    if failed:
        text += "; failed: " + ", ".join(failed_names[:3]) + (", ..." if failed > 3 else "")
    return ran > 0 and failed == 0 and skipped == 0, text


def device_facts(res):
    facts = {k: v for k, v, *_ in (r + [""] for r in read_tsv(os.path.join(res, "preflight.tsv")))}
    try:
        lines = open(os.path.join(res, "devices.txt"), errors="replace").read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        if line.startswith("CUDA runtime"):
            facts["cuda"] = line
        elif line.startswith("GPU 0:"):
            facts["gpu0"] = line[len("GPU 0:"):].strip()
        elif "NCCL" in line:
            facts["nccl"] = line
        elif line.startswith("no CUDA device"):
            facts["gpu0"] = line
    return facts


def ours_tflops(res):
    """Our kernels' TFLOP/s by (pass, mask, head_dim, n) at q_len = kv_len, 16 heads: calibrate.txt's
    grid, and the interference probe's attention alone (8K causal, d 128: the size --grid holds out
    when the scenario has it)."""
    out = {}
    for r in read_csv(os.path.join(res, "interference.csv")):
        try:
            out[(r["pass"], "causal", "128", "8192")] = float(r["attention_alone_tflops"])
        except (KeyError, ValueError):
            pass
    try:
        text = open(os.path.join(res, "calibrate.txt"), errors="replace").read()
    except OSError:
        return out
    for m in re.finditer(r"^(forward|backward)\s+(causal|none)\s+(\d+)\s+(\d+)\s+(\d+)\s+16\s+16\s+[\d.]+\s+([\d.]+)",
                         text, re.M):
        if m.group(4) == m.group(5):
            out[(m.group(1), m.group(2), m.group(3), m.group(4))] = float(m.group(6))
    return out


def sdpa_tflops(res):
    out = {}
    for r in read_csv(os.path.join(res, "sdpa.csv")):
        try:
            out[(r["pass"], r["mask"], r["head_dim"], r["q_len"])] = (float(r["tflops"]), r.get("backend", "?"))
        except (KeyError, ValueError):
            pass
    return out


def compute_error(cmp):
    """(mean |error| weighted by count, max |error|, tasks) over the compute kinds of a compare JSON."""
    if not cmp or "by_kind" not in cmp:
        return None
    n = s = mx = 0.0
    for kind, st in cmp["by_kind"].items():
        if kind in COMMUNICATION:
            continue
        n += st["count"]
        s += st["count"] * st["mean_abs_rel_error"]
        mx = max(mx, abs(st["max_rel_error"]))
    return (s / n, mx, int(n)) if n else None


def pct(x):
    return f"{x * 100:+.1f} %"


def held_out_lines(res):
    grid = read_json(os.path.join(res, "compare-grid.json"))
    unc = read_json(os.path.join(res, "compare-uncalibrated.json"))
    if not grid and not unc:
        return ["held-out comparison: no result"]
    lines = ["held-out comparison: predicted vs measured (run --emulate-ranks), relative error by kind",
             f"  {'kind':20} {'n':>5}  {'grid-calibrated mean / max':>28}  {'uncalibrated mean / max':>26}"]
    kinds = sorted(set((grid or {}).get("by_kind", {})) | set((unc or {}).get("by_kind", {})))
    for kind in kinds:
        if kind in COMMUNICATION:
            lines.append(f"  {kind:20} {'':>5}  not measured in emulation (device copies stand in for links)")
            continue
        cells = []
        n = ""
        for j in (grid, unc):
            st = (j or {}).get("by_kind", {}).get(kind)
            if st:
                n = st["count"]
                cells.append(f"{pct(st['mean_rel_error'])} / {pct(st['max_rel_error'])}")
            else:
                cells.append("-")
        lines.append(f"  {kind:20} {n:>5}  {cells[0]:>28}  {cells[1]:>26}")
    return lines


def torch_lines(res):
    rows = read_csv(os.path.join(res, "torch-tables.csv"))
    if not rows:
        return ["torch tables: no result"], {}
    groups = {}
    for r in rows:
        key = ("attention " + r["backend"]) if r["kind"] == "attention" else ("GEMM " + r["dtype"])
        g = groups.setdefault(key, {"err": [], "missing": 0})
        try:
            g["err"].append(float(r["rel_error"]))
        except (KeyError, ValueError):
            g["missing"] += 1
    lines = ["torch tables: the model's time vs PyTorch's kernels at the scenario's shapes, (model - measured) / measured"]
    medians = {}
    for key, g in sorted(groups.items()):
        if g["err"]:
            med = statistics.median(abs(e) for e in g["err"])
            medians[key] = med
            lines.append(f"  {key:22} n={len(g['err']):3}  median |error| {med * 100:5.1f} %  "
                         f"range {pct(min(g['err']))} .. {pct(max(g['err']))}"
                         + (f"  ({g['missing']} not run)" if g["missing"] else ""))
        else:
            lines.append(f"  {key:22} no time ({g['missing']} not run; see note column)")
    return lines, medians


def interference_lines(res):
    rows = read_csv(os.path.join(res, "interference.csv"))
    if not rows:
        return ["interference: no result"], None
    lines = ["interference: attention beside a copy holding N SMs, slowdown measured / model (comm_compute_interference)"]
    pick = None
    for r in rows:
        lines.append(f"  {r['pass']:9} {r['copy_ctas']:>3} SMs  copy {r['copy_alone_GBps']:>7} GB/s  "
                     f"measured x{float(r['measured_slowdown']):.3f}  model x{float(r['model_slowdown']):.3f}  "
                     f"error {pct(float(r['slowdown_error']))}")
        if r["pass"] == "forward" and r["copy_ctas"] == "16":
            pick = (float(r["measured_slowdown"]), float(r["model_slowdown"]))
    return lines, pick


def check_line(res):
    j = read_json(os.path.join(res, "check.json"))
    c = (j or {}).get("check")
    if not c:
        return "run --check: no result", None
    return (f"run --check: max relative error {c['max_rel_error']:.3g} (O {c['out']:.3g}, dQ {c['dq']:.3g}, "
            f"dK {c['dk']:.3g}, dV {c['dv']:.3g}; tolerance {c['tolerance']:.0e}; tiles {c.get('tiles', '?')})"
            f"{'' if c.get('ok') else ' ABOVE TOLERANCE'}"), c["max_rel_error"]


def speed_lines(res):
    ours, sdpa = ours_tflops(res), sdpa_tflops(res)
    if not ours and not sdpa:
        return ["our kernels vs SDPA: no result"]
    lines = ["our kernels vs SDPA (TFLOP/s, 16 heads)"]
    for key in sorted(set(ours) | set(sdpa)):
        o, s = ours.get(key), sdpa.get(key)
        ratio = f"{o / s[0]:.2f}x" if o and s else "-"
        lines.append(f"  {key[0]:9} {key[1]:7} d{key[2]:>4} n{key[3]:>6}  ours {o if o else '-':>7}  "
                     f"SDPA {s[0] if s else '-':>7} ({s[1] if s else '-'})  {ratio}")
    return lines


def summary(res):
    run = {r[0]: r[1] for r in read_tsv(os.path.join(res, "run.tsv")) if len(r) > 1}
    steps = read_tsv(os.path.join(res, "steps.tsv"))[1:]
    f = device_facts(res)
    out = [f"hcpsim device check started {run.get('started', '?')}, deadline {run.get('deadline_s', '?')} s"
           + (f", finished after {run['elapsed_s']} s" if "elapsed_s" in run else ", still running or stopped")]
    out.append(f"machine: {f.get('os', '?')}; glibc {f.get('glibc', '?')} (bundle needs {f.get('needs_glibc', '?')}, "
               f"GLIBCXX {f.get('needs_glibcxx', '?')}); nvidia-smi: {f.get('nvidia_smi', '?')}")
    out.append(f"{f.get('cuda', 'CUDA: ?')}; GPU 0: {f.get('gpu0', '?')}; {f.get('nccl', 'NCCL: ?')}")
    out.append("steps:")
    for s in steps:
        s = s + [""] * (4 - len(s))
        out.append(f"  {s[0]:18} {s[1]:9} {s[2]:>4} s  {s[3]}")
    bad = [s[0] for s in steps if len(s) > 1 and s[1] != "pass"]
    out.append(f"verdict: {'every step passed' if steps and not bad else 'FAILED: ' + ', '.join(bad) if bad else 'no step finished'}")
    out += held_out_lines(res)
    out += torch_lines(res)[0]
    out += interference_lines(res)[0]
    out.append(check_line(res)[0])
    out += speed_lines(res)
    return "\n".join(out) + "\n"


def table_row(res):
    run = {r[0]: r[1] for r in read_tsv(os.path.join(res, "run.tsv")) if len(r) > 1}
    f = device_facts(res)
    gpu = f.get("gpu0", "?").split(",")[0] or "?"
    ours, sdpa = ours_tflops(res), sdpa_tflops(res)

    def speed(p):
        o, s = ours.get((p, "causal", "128", "8192")), sdpa.get((p, "causal", "128", "8192"))
        return f"{o:.0f} / {s[0]:.0f} ({s[1]})" if o and s else (f"{o:.0f} / -" if o else "-")

    def held(name):
        e = compute_error(read_json(os.path.join(res, f"compare-{name}.json")))
        return f"{e[0] * 100:.1f} % / {e[1] * 100:.1f} % ({e[2]})" if e else "-"

    medians = torch_lines(res)[1]
    tt = "; ".join(f"{k} {v * 100:.0f} %" for k, v in sorted(medians.items())) or "-"
    inter = interference_lines(res)[1]
    it = f"x{inter[0]:.2f} / x{inter[1]:.2f}" if inter else "-"
    chk = check_line(res)[1]
    steps = read_tsv(os.path.join(res, "steps.tsv"))[1:]
    bad = [s[0] for s in steps if len(s) > 1 and s[1] != "pass"]
    verdict = "all passed" if steps and not bad else ("failed: " + ", ".join(bad) if bad else "none")
    date = run.get("started", "?")[:10]
    cells = [date, gpu, speed("forward"), speed("backward"), held("grid"), held("uncalibrated"), tt, it,
             f"{chk:.3g}" if chk is not None else "-", verdict]
    return "| " + " | ".join(cells) + " |"


def fill(res, doc):
    row = table_row(res)
    lines = open(doc).read().split("\n")
    try:
        h = next(i for i, l in enumerate(lines) if l.startswith(TABLE_HEADER))
    except StopIteration:
        raise SystemExit(f"{doc}: no results table (a line starting with '{TABLE_HEADER}')")
    key = row.split("|")[1:3]
    i = h + 2
    while i < len(lines) and lines[i].startswith("|"):
        cells = lines[i].split("|")[1:3]
        if "not run yet" in lines[i] or cells == key:
            lines[i] = row
            break
        i += 1
    else:
        lines.insert(i, row)
    open(doc, "w").write("\n".join(lines))
    return row


def main(argv):
    if len(argv) >= 3 and argv[1] == "summary":
        sys.stdout.write(summary(argv[2]))
        return 0
    if len(argv) >= 3 and argv[1] == "gtest":
        ok, text = gtest_verdict(argv[2])
        print(text)
        return 0 if ok else 1
    if len(argv) >= 3 and argv[1] == "row":
        print(table_row(argv[2]))
        return 0
    if len(argv) >= 4 and argv[1] == "fill":
        print(fill(argv[2], argv[3]))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
