#pragma once
// Where each node and GPU of the layout view sits, and which GPU is under a point (hit-testing in
// O(1), so hover stays cheap at 4,096 GPUs). Scene units are pixels at zoom 1.
//
//   +- node 0 ---------+  +- node 1 ---------+
//   | [0] [1] [2] [3]  |  | [8] [9] [10][11] |     GPUs of a node in a grid of gpu_columns,
//   | [4] [5] [6] [7]  |  | [12][13][14][15] |     nodes in a grid of node_columns.
//   +------------------+  +------------------+
#include <QPointF>
#include <QRectF>
#include <utility>
#include <vector>

#include "engine/layout/rank_layout.h"

namespace hcpsim::gui {

class LayoutGeometry {
 public:
  static constexpr double kGpuSize = 26;      // side of one GPU cell
  static constexpr double kGpuGap = 6;        // gap between GPU cells
  static constexpr double kNodePad = 8;       // padding inside a node frame
  static constexpr double kNodeHeader = 16;   // label strip at the top of a node
  static constexpr double kNodeGap = 18;      // gap between node frames

  // nodes >= 1, gpus_per_node >= 1; throws std::invalid_argument otherwise.
  static LayoutGeometry build(int nodes, int gpus_per_node);

  int nodes() const { return nodes_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int gpu_columns() const { return gpu_cols_; }
  int node_columns() const { return node_cols_; }
  QRectF node_rect(int node) const;        // frame of a node, label strip included
  QRectF gpu_rect(int rank) const;         // cell of a global rank
  QPointF gpu_center(int rank) const { return gpu_rect(rank).center(); }
  QRectF bounds() const;                   // all nodes
  // Global rank whose cell contains p, or -1 (gaps, padding and labels hit nothing).
  int rank_at(QPointF p) const;
  // Node whose frame contains p, or -1.
  int node_at(QPointF p) const;

 private:
  int nodes_ = 1, gpus_per_node_ = 1, gpu_cols_ = 1, gpu_rows_ = 1, node_cols_ = 1;
  double node_w_ = 0, node_h_ = 0;
};

// What the layout view colours GPUs by.
enum class ColorBy { TP, CP, DP, PP, A2A, Ring };
constexpr int kColorByCount = 6;
const char* to_string(ColorBy c);                  // "tp", "cp", "dp", "pp", "a2a", "ring"
bool parse_color_by(const QString& s, ColorBy& out);
// The group kind behind a colouring: A2A -> HCP_A2A (CP without hierarchical sizes), Ring ->
// HCP_P2P (CP without hierarchical sizes).
GroupKind group_kind_for(ColorBy c, const RankLayout& layout);

// Directed ring hops (rank -> ring_next(rank)) for every ring of the layout; empty when the ring
// size is 1. One edge per rank that is in a ring of size >= 2.
std::vector<std::pair<int, int>> ring_edges(const RankLayout& layout);

// Every rank that shares at least one group with `rank` (any kind), rank itself included, sorted.
std::vector<int> ranks_sharing_a_group(const RankLayout& layout, int rank);

}  // namespace hcpsim::gui
