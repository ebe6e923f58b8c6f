#include "gui/charts/colors.h"

#include <cmath>

namespace hcpsim::gui {

QColor group_kind_color(GroupKind k) {
  switch (k) {
    case GroupKind::TP: return QColor(0x4e, 0x79, 0xa7);       // blue
    case GroupKind::CP: return QColor(0xe1, 0x57, 0x59);       // red
    case GroupKind::DP: return QColor(0x59, 0xa1, 0x4f);       // green
    case GroupKind::PP: return QColor(0xb0, 0x7a, 0xa1);       // purple
    case GroupKind::DP_CP: return QColor(0x76, 0xb7, 0xb2);    // teal
    case GroupKind::TP_CP: return QColor(0xed, 0xc9, 0x48);    // yellow
    case GroupKind::HCP_A2A: return QColor(0xf2, 0x8e, 0x2b);  // orange
    case GroupKind::HCP_P2P: return QColor(0x9c, 0x75, 0x5f);  // brown
    case GroupKind::HP_ULYSSES: return QColor(0xff, 0x9d, 0xa7);    // pink
    case GroupKind::HP_COLOSSAL: return QColor(0x7f, 0x7f, 0x7f);   // dark grey
  }
  return Qt::gray;
}

QColor group_index_color(int n) {
  // Golden-angle hue walk; alternate saturation/value so that hues that come back close differ.
  const double hue = std::fmod(n * 137.50776405, 360.0);
  const int sat = (n % 2 == 0) ? 170 : 230;
  const int val = (n / 2 % 2 == 0) ? 235 : 190;
  return QColor::fromHsv(static_cast<int>(hue), sat, val);
}

QColor task_kind_color(TaskKind k) {
  switch (k) {
    case TaskKind::AttentionForward: return QColor(0xd6, 0x4f, 0x2a);
    case TaskKind::AttentionBackward: return QColor(0x9e, 0x2a, 0x5f);
    case TaskKind::Copy: return QColor(0xa0, 0xa0, 0xa0);
    case TaskKind::LseMerge: return QColor(0xe6, 0xb0, 0x3c);
    case TaskKind::OutCorrection: return QColor(0xc9, 0x8b, 0x1e);
    case TaskKind::SendRecv: return QColor(0x2a, 0x7f, 0xd6);
    case TaskKind::AllToAll: return QColor(0x1f, 0xa8, 0x8f);
    case TaskKind::AllGather: return QColor(0x4c, 0x5f, 0xd0);
    case TaskKind::ReduceScatter: return QColor(0x6a, 0x3f, 0xb5);
    case TaskKind::AllReduce: return QColor(0x33, 0x99, 0xcc);
    case TaskKind::Gemm: return QColor(0x5a, 0x9e, 0x32);
  }
  return Qt::gray;
}

QColor kind_color(MeasuredKind k) {
  switch (k) {
    case MeasuredKind::MemoryBound: return QColor(0xb8, 0xa8, 0x5c);
    case MeasuredKind::Optimizer: return QColor(0x8c, 0x56, 0x3a);
    case MeasuredKind::OtherCommunication: return QColor(0x5c, 0x70, 0x80);
    case MeasuredKind::Other: return QColor(0x70, 0x70, 0x70);
    default: return task_kind_color(static_cast<TaskKind>(k));
  }
}

QColor ring_position_color(int p, int count) {
  if (count < 1) count = 1;
  const int hue = static_cast<int>(std::lround(300.0 * p / std::max(1, count)));  // red .. magenta
  return QColor::fromHsv(hue % 360, 160, 230);
}

QColor background_color() { return QColor(0xfa, 0xfa, 0xf7); }

}  // namespace hcpsim::gui
