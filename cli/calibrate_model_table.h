#pragma once
// `hcpsim calibrate FILE --model-table`: what the cost model predicts, with no GPU, for the kernels
// a device check measures with PyTorch (bench/gpu/torch_tables.py): every distinct attention shape
// of the scenario's graph (its real chunks: causal diagonals, the half-chunk sections of a ring
// step, GQA), and the scenario's layer GEMMs at bf16 and FP8.
#include <iosfwd>

#include "engine/scenario/scenario.h"

namespace hcpsim::cli {

// CSV, one row per kernel:
// kind,pass,mask,batch,q_len,kv_len,heads,kv_heads,head_dim,m,n,k,dtype,flops,model_efficiency,model_ms
// (attention rows leave m,n,k empty; GEMM rows leave the attention columns empty). model_ms is
// CostModel::compute_seconds (kernel overhead included); model_efficiency the fraction of the
// dtype's peak.
void print_model_table(const Scenario& s, std::ostream& out);

}  // namespace hcpsim::cli
