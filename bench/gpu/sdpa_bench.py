#!/usr/bin/env python3
"""Times PyTorch's scaled_dot_product_attention forward and backward (bf16) on given shapes and
prints one CSV line per (pass, shape): pass,mask,head_dim,q_len,kv_len,heads,ms,tflops,backend, where
backend is the SDPA implementation PyTorch picked (flash, efficient, cudnn or math), read from the
names of the CUDA kernels one call launches (torch.profiler), with the first such kernel's name.
FLOPs as hcpsim counts them (docs/schedules.md "FLOPs"): forward 4*b*h*d*pairs, backward 10*b*h*d*pairs, with
pairs = n(n+1)/2 for a causal square chunk and q_len*kv_len without a mask."""
import argparse
import sys

import torch
import torch.nn.functional as F


def pairs(q, k, causal):
    if not causal:
        return q * k
    assert q == k, "causal timing uses square chunks"
    return q * (q + 1) // 2


def time_ms(fn, iters):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def sdpa_backend(q, k, v, causal):
    """The implementation PyTorch picks for these inputs, from the kernels one call launches."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    for key, label in (("cudnn", "cudnn"), ("flash", "flash"), ("fmha", "efficient"), ("mem_eff", "efficient"),
                       ("efficient", "efficient")):
        hit = next((n for n in names if key in n.lower()), None)
        if hit:
            return f"{label} ({hit[:60].replace(',', ' ')})"
    return "math" if names else "unknown (no CUDA kernel recorded)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="8192:128:causal,8192:128:none,1024:128:causal",
                    help="comma list of n:head_dim:causal|none (q_len = kv_len = n)")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("sdpa_bench: no CUDA device", file=sys.stderr)
        return 1
    print("pass,mask,head_dim,q_len,kv_len,heads,ms,tflops,backend")
    for spec in args.shapes.split(","):
        n, d, mask = spec.split(":")
        n, d, causal = int(n), int(d), mask == "causal"
        q, k, v = (torch.randn(1, args.heads, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(3))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        grad = torch.randn_like(out)
        backend = sdpa_backend(q, k, v, causal)
        fwd = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), args.iters)

        def bwd():
            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.autograd.grad(o, (q, k, v), grad)
        both = time_ms(bwd, args.iters)
        bwd_ms = max(both - fwd, 1e-6)
        p = pairs(n, n, causal)
        for name, ms, factor in (("forward", fwd, 4), ("backward", bwd_ms, 10)):
            tflops = factor * args.heads * d * p / (ms * 1e-3) / 1e12
            print(f"{name},{mask},{d},{n},{n},{args.heads},{ms:.3f},{tflops:.1f},{backend}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
