#include "gui/models/layout_geometry.h"

#include <QString>
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace hcpsim::gui {

LayoutGeometry LayoutGeometry::build(int nodes, int gpus_per_node) {
  if (nodes < 1 || gpus_per_node < 1)
    throw std::invalid_argument("layout geometry needs nodes >= 1 and gpus_per_node >= 1 (got " +
                                std::to_string(nodes) + ", " + std::to_string(gpus_per_node) + ")");
  LayoutGeometry g;
  g.nodes_ = nodes;
  g.gpus_per_node_ = gpus_per_node;
  // About twice as wide as tall inside a node: 8 GPUs -> 4x2, 72 -> 12x6, 4 -> 3x2.
  g.gpu_cols_ = std::min(gpus_per_node, static_cast<int>(std::ceil(std::sqrt(2.0 * gpus_per_node))));
  g.gpu_rows_ = (gpus_per_node + g.gpu_cols_ - 1) / g.gpu_cols_;
  g.node_w_ = 2 * kNodePad + g.gpu_cols_ * kGpuSize + (g.gpu_cols_ - 1) * kGpuGap;
  g.node_h_ = kNodeHeader + 2 * kNodePad + g.gpu_rows_ * kGpuSize + (g.gpu_rows_ - 1) * kGpuGap;
  // Nodes in a roughly 4:3 landscape block.
  const double ideal = std::sqrt(nodes * (g.node_h_ + kNodeGap) / (g.node_w_ + kNodeGap) * 4.0 / 3.0);
  g.node_cols_ = std::clamp(static_cast<int>(std::ceil(ideal)), 1, nodes);
  return g;
}

QRectF LayoutGeometry::node_rect(int node) const {
  const int col = node % node_cols_;
  const int row = node / node_cols_;
  return QRectF(col * (node_w_ + kNodeGap), row * (node_h_ + kNodeGap), node_w_, node_h_);
}

QRectF LayoutGeometry::gpu_rect(int rank) const {
  const QRectF n = node_rect(rank / gpus_per_node_);
  const int gpu = rank % gpus_per_node_;
  const int col = gpu % gpu_cols_;
  const int row = gpu / gpu_cols_;
  return QRectF(n.x() + kNodePad + col * (kGpuSize + kGpuGap),
                n.y() + kNodeHeader + kNodePad + row * (kGpuSize + kGpuGap), kGpuSize, kGpuSize);
}

QRectF LayoutGeometry::bounds() const {
  const int rows = (nodes_ + node_cols_ - 1) / node_cols_;
  const int cols = std::min(nodes_, node_cols_);
  return QRectF(0, 0, cols * node_w_ + (cols - 1) * kNodeGap, rows * node_h_ + (rows - 1) * kNodeGap);
}

int LayoutGeometry::node_at(QPointF p) const {
  if (p.x() < 0 || p.y() < 0) return -1;
  const int col = static_cast<int>(p.x() / (node_w_ + kNodeGap));
  const int row = static_cast<int>(p.y() / (node_h_ + kNodeGap));
  if (col >= node_cols_) return -1;
  const int node = row * node_cols_ + col;
  if (node >= nodes_) return -1;
  return node_rect(node).contains(p) ? node : -1;
}

int LayoutGeometry::rank_at(QPointF p) const {
  const int node = node_at(p);
  if (node < 0) return -1;
  const QRectF n = node_rect(node);
  const double x = p.x() - n.x() - kNodePad;
  const double y = p.y() - n.y() - kNodeHeader - kNodePad;
  if (x < 0 || y < 0) return -1;
  const int col = static_cast<int>(x / (kGpuSize + kGpuGap));
  const int row = static_cast<int>(y / (kGpuSize + kGpuGap));
  if (col >= gpu_cols_ || row >= gpu_rows_) return -1;
  if (x - col * (kGpuSize + kGpuGap) > kGpuSize || y - row * (kGpuSize + kGpuGap) > kGpuSize) return -1;
  const int gpu = row * gpu_cols_ + col;
  if (gpu >= gpus_per_node_) return -1;
  return node * gpus_per_node_ + gpu;
}

const char* to_string(ColorBy c) {
  static const char* names[] = {"tp", "cp", "dp", "pp", "a2a", "ring"};
  return names[static_cast<int>(c)];
}

bool parse_color_by(const QString& s, ColorBy& out) {
  for (int i = 0; i < kColorByCount; ++i) {
    if (s == QLatin1String(to_string(static_cast<ColorBy>(i)))) {
      out = static_cast<ColorBy>(i);
      return true;
    }
  }
  return false;
}

GroupKind group_kind_for(ColorBy c, const RankLayout& layout) {
  switch (c) {
    case ColorBy::TP: return GroupKind::TP;
    case ColorBy::CP: return GroupKind::CP;
    case ColorBy::DP: return GroupKind::DP;
    case ColorBy::PP: return GroupKind::PP;
    case ColorBy::A2A:   // HyperParallel: the Ulysses all-to-all groups; its Colossal all-gather groups as "rings"
      return layout.hierarchical() ? GroupKind::HCP_A2A : layout.hyperparallel() ? GroupKind::HP_ULYSSES : GroupKind::CP;
    case ColorBy::Ring:
      return layout.hierarchical() ? GroupKind::HCP_P2P : layout.hyperparallel() ? GroupKind::HP_COLOSSAL : GroupKind::CP;
  }
  return GroupKind::CP;
}

std::vector<std::pair<int, int>> ring_edges(const RankLayout& layout) {
  std::vector<std::pair<int, int>> out;
  if (layout.ring_size() < 2) return out;
  out.reserve(static_cast<std::size_t>(layout.world_size()));
  for (int r = 0; r < layout.world_size(); ++r) out.emplace_back(r, layout.ring_next(r));
  return out;
}

std::vector<int> ranks_sharing_a_group(const RankLayout& layout, int rank) {
  std::set<int> s;
  for (int k = 0; k < kGroupKindCount; ++k) {
    const auto kind = static_cast<GroupKind>(k);
    if (layout.groups(kind).empty()) continue;
    for (int r : layout.group_of(kind, rank)) s.insert(r);
  }
  s.insert(rank);
  return {s.begin(), s.end()};
}

}  // namespace hcpsim::gui
