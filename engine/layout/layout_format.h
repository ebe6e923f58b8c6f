#pragma once
// Writers for a RankLayout: the JSON of docs/architecture.md "Contracts" and a human-readable text view
// (Megatron group names, node map, rings with their intra/inter-node hops).
#include <string>

#include "engine/layout/rank_layout.h"

namespace hcpsim {

// {"world_size":N,"order":"..","groups":{"tp":[[..]],...},"ranks":[{"rank":0,...},...]};
// hcp_a2a / hcp_p2p appear only with hierarchical sizes. Compact, one line.
std::string layout_to_json(const RankLayout& L);

// Text view. Prints at most `max_groups` groups per kind and `max_nodes` nodes / rings in full and
// summarises the rest, so 4096-rank worlds stay short.
std::string layout_to_text(const RankLayout& L, int max_groups = 16, int max_nodes = 8);

// One ring in the text form: "r0(n0) -> r4(n0) -> r8(n1) -> r0   [1 intra, 2 inter hops]".
std::string ring_to_text(const RankLayout& L, const std::vector<int>& ring);

}  // namespace hcpsim
