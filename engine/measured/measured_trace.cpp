#include "engine/measured/measured_trace.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

namespace hcpsim {
namespace {

constexpr std::array<const char*, kMeasuredKindCount> kKindNames = {
    "attention_forward", "attention_backward", "copy", "lse_merge", "out_correction",
    "send_recv", "all_to_all", "all_gather", "reduce_scatter", "all_reduce", "gemm",
    "other_communication", "memory_bound", "optimizer", "other"};

}  // namespace

const char* to_string(MeasuredKind k) { return kKindNames[static_cast<std::size_t>(k)]; }

bool parse_measured_kind(std::string_view s, MeasuredKind& out) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (s == kKindNames[i]) {
      out = static_cast<MeasuredKind>(i);
      return true;
    }
  }
  return false;
}

bool is_communication(MeasuredKind k) {
  return k == MeasuredKind::SendRecv || k == MeasuredKind::AllToAll || k == MeasuredKind::AllGather ||
         k == MeasuredKind::ReduceScatter || k == MeasuredKind::AllReduce || k == MeasuredKind::OtherCommunication;
}

MeasuredKind measured_kind_of(TaskKind k) { return static_cast<MeasuredKind>(static_cast<int>(k)); }

const char* to_string(MeasuredPass p) {
  switch (p) {
    case MeasuredPass::Forward: return "forward";
    case MeasuredPass::Backward: return "backward";
    case MeasuredPass::Unknown: break;
  }
  return "unknown";
}

std::uint32_t NameTable::id(std::string_view name) {
  auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(name);
  index_.emplace(std::string(name), id);
  return id;
}

double measured_step_s(const MeasuredRun& run) {
  double slowest = -1;
  for (const auto& r : run.ranks) {
    if (r.steps <= 0) continue;
    std::vector<std::pair<double, double>> span(static_cast<std::size_t>(r.steps),
                                                {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
    for (const auto& k : r.kernels) {
      if (k.step < 0) continue;
      auto& s = span[static_cast<std::size_t>(k.step)];
      s.first = std::min(s.first, k.start_s);
      s.second = std::max(s.second, k.end_s);
    }
    double sum = 0;
    int n = 0;
    for (const auto& s : span) {
      if (!(s.second > s.first)) continue;
      sum += s.second - s.first;
      ++n;
    }
    if (n > 0) slowest = std::max(slowest, sum / n);
  }
  if (slowest < 0)
    throw std::runtime_error("the measured run has no step ranges (ProfilerStep#N from torch.profiler's schedule, or "
                             "NVTX ranges named \"step N\"): its step time is unknown");
  return slowest;
}

void assign_streams(MeasuredRank& r) {
  // Busy time per stream and kind.
  std::map<std::int32_t, std::array<double, kMeasuredKindCount>> busy;
  for (const auto& k : r.kernels) busy[k.stream][static_cast<std::size_t>(k.kind)] += k.end_s - k.start_s;
  std::vector<std::pair<double, std::int32_t>> compute;   // (busy seconds, stream)
  r.streams.clear();
  for (const auto& [stream, per_kind] : busy) {
    double comm = 0, total = 0;
    std::size_t top_comm = static_cast<std::size_t>(MeasuredKind::OtherCommunication);
    for (std::size_t i = 0; i < per_kind.size(); ++i) {
      total += per_kind[i];
      if (!is_communication(static_cast<MeasuredKind>(i))) continue;
      comm += per_kind[i];
      if (per_kind[i] > per_kind[top_comm]) top_comm = i;
    }
    if (comm * 2 <= total) {
      compute.emplace_back(total, stream);
      continue;
    }
    const auto kind = static_cast<MeasuredKind>(top_comm);
    r.streams[stream] = kind == MeasuredKind::SendRecv   ? Stream::NcclP2P
                        : kind == MeasuredKind::AllToAll ? Stream::NcclA2A
                                                         : Stream::NcclTp;
  }
  std::sort(compute.begin(), compute.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (std::size_t i = 0; i < compute.size(); ++i) r.streams[compute[i].second] = i == 0 ? Stream::Main : Stream::Cp;
}

}  // namespace hcpsim
