#!/bin/sh
# Re-renders every picture of docs/concepts.md and docs/gui.md. Run from the repository root:
#   GUI=build/gui/hcpsim-gui docs/images/render.sh
set -eu
GUI=${GUI:-build/gui/hcpsim-gui}
S=scenarios/llama3-70b-128k-dgx-h100-hcp.yaml
D=docs/images
FLAT="cluster.nodes=1 model.context_parallel_size=4 model.hierarchical_context_parallel_sizes=null"
"$GUI" --screenshot layout $D/layout-cp.png $S --color-by cp --size 1000x560
"$GUI" --screenshot layout $D/layout-hcp-a2a.png $S --color-by a2a --size 1000x560
"$GUI" --screenshot layout $D/layout-hcp-ring.png $S --color-by ring --select 5 --size 1000x560
"$GUI" --screenshot layout $D/layout-4096.png $S cluster.nodes=512 --color-by ring --select 77 --size 900x620
"$GUI" --screenshot ring $D/ring-p2p-cp4-step0.png $S $FLAT model.cp_comm_type=p2p --step 0 --size 1100x620
"$GUI" --screenshot ring $D/ring-p2p-cp4-step3.png $S $FLAT model.cp_comm_type=p2p --step 3 --size 1100x620
"$GUI" --screenshot ring $D/ring-a2a-cp4.png $S $FLAT model.cp_comm_type=a2a --size 1100x620
"$GUI" --screenshot ring $D/ring-hcp-4x4.png $S --step 1 --size 1100x700
"$GUI" --screenshot timeline $D/timeline-hcp.png $S cluster.nodes=1 model.context_parallel_size=4 \
    "model.hierarchical_context_parallel_sizes=[2,2]" --size 1200x760
"$GUI" --screenshot chart $D/chart-cp-sweep.png $S --size 1000x600
