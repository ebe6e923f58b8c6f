#!/usr/bin/env python3
"""Stand-in for bench/gpu/sdpa_bench.py (tests/runner/check_sh_test.sh): its CSV format, canned numbers."""
print("pass,mask,head_dim,q_len,kv_len,heads,ms,tflops,backend,kernel")
print("forward,causal,128,8192,8192,16,0.92,597.6,cudnn,cudnn_sm90_fprop")
print("backward,causal,128,8192,8192,16,2.61,526.7,cudnn,cudnn_sm90_bprop")
print("forward,none,128,8192,8192,16,1.60,687.2,cudnn,cudnn_sm90_fprop")
