#!/usr/bin/env python3
"""The production kernels the cost model's tables stand for, against the model (device check).

Reads the CSV of `hcpsim calibrate FILE --model-table` (every distinct attention shape of the
scenario's graph and its layer GEMMs, with the model's time for each) and times each row with
PyTorch on the GPU: attention with scaled_dot_product_attention forced to cuDNN and to
FlashAttention (causal diagonals top-left, all_gather prefixes bottom-right, ring half-chunks
unmasked, GQA through enable_gqa), GEMMs with torch.matmul (bf16) and torch._scaled_mm (fp8 e4m3).
Prints CSV, one line per (row, backend):
  kind,pass,mask,q_len,kv_len,heads,kv_heads,head_dim,m,n,k,dtype,backend,flops,model_ms,measured_ms,
  measured_tflops,rel_error,note
rel_error = (model - measured) / measured, the sign convention of `hcpsim compare`; a backend that
cannot run a shape gets no time and the reason in `note` (never a made-up number).
  usage: torch_tables.py MODEL_TABLE.csv [--iterations N]"""
import argparse
import csv
import os
import sys

FIELDS = ["kind", "pass", "mask", "q_len", "kv_len", "heads", "kv_heads", "head_dim", "m", "n", "k", "dtype",
          "backend", "flops", "model_ms", "measured_ms", "measured_tflops", "rel_error", "note"]
ATTENTION_BACKENDS = ("cudnn", "flash")


def read_model_table(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for i, r in enumerate(rows, start=2):
        for key in ("kind", "flops", "model_ms"):
            if not r.get(key):
                raise ValueError(f"{path}:{i}: column '{key}' is empty (expected the output of "
                                 "`hcpsim calibrate FILE --model-table`)")
    return rows


def backends_of(row):
    if row["kind"] == "attention":
        return ATTENTION_BACKENDS
    return ("torch.matmul" if row["dtype"] == "bf16" else "torch._scaled_mm",)


def compare(rows, measure):
    """One output dict per (row, backend); measure(row, backend) returns milliseconds or raises."""
    out = []
    for r in rows:
        for b in backends_of(r):
            o = {k: r.get(k, "") for k in FIELDS}
            o["backend"] = b
            try:
                ms = float(measure(r, b))
                if not ms > 0:
                    raise ValueError(f"measured {ms} ms")
                o["measured_ms"] = f"{ms:.4f}"
                o["measured_tflops"] = f"{float(r['flops']) / ms / 1e9:.1f}"
                o["rel_error"] = f"{float(r['model_ms']) / ms - 1:.4f}"
            except Exception as e:  # one shape a backend refuses must not end the table
                o["note"] = f"{type(e).__name__}: {e}".replace("\n", " ")[:160]
            out.append(o)
    return out


def torch_measure(iterations):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dev = torch.device("cuda")
    chosen = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from sdpa_bench import time_ms as time_iters   # the same CUDA-event median as the SDPA speed step

    def time_ms(fn):
        return time_iters(fn, iterations)

    def attention(r, backend):
        b, hq, hk, d = 1, int(r["heads"]), int(r["kv_heads"]), int(r["head_dim"])
        q_len, kv_len = int(r["q_len"]), int(r["kv_len"])
        q = torch.randn(b, hq, q_len, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(b, hk, kv_len, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(b, hk, kv_len, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        kw = {"enable_gqa": hq != hk}
        if r["mask"] in ("diagonal", "causal"):
            kw["is_causal"] = True
        elif r["mask"] == "bottom_right":
            from torch.nn.attention.bias import causal_lower_right
            kw["attn_mask"] = causal_lower_right(q_len, kv_len)
        with sdpa_kernel([chosen[backend]]):
            if r["pass"] == "forward":
                with torch.no_grad():
                    return time_ms(lambda: F.scaled_dot_product_attention(q, k, v, **kw))
            out = F.scaled_dot_product_attention(q, k, v, **kw)
            grad = torch.randn_like(out)
            return time_ms(lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True))

    def gemm(r, backend):
        m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        bt = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        if r["dtype"] == "bf16":
            bm = bt.t().contiguous()
            return time_ms(lambda: torch.matmul(a, bm))
        a8, b8 = a.to(torch.float8_e4m3fn), bt.to(torch.float8_e4m3fn).t()   # column-major B, as _scaled_mm wants
        one = torch.tensor(1.0, device=dev)
        return time_ms(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))

    def measure(r, backend):
        return attention(r, backend) if r["kind"] == "attention" else gemm(r, backend)

    print(f"# torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name(0)}", file=sys.stderr)
    return measure


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_table")
    ap.add_argument("--iterations", type=int, default=5)
    a = ap.parse_args()
    rows = read_model_table(a.model_table)
    w = csv.DictWriter(sys.stdout, fieldnames=FIELDS)
    w.writeheader()
    w.writerows(compare(rows, torch_measure(a.iterations)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
