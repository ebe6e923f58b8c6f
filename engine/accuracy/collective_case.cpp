// kind: collective — one NCCL operation over the first `ranks` GPUs of the case's cluster, built the
// way the schedule builders build theirs (ScheduleContext::add_nccl + add_comm) and run by a backend.
#include <filesystem>
#include <string>

#include "engine/accuracy/case_loader.h"
#include "engine/accuracy/case_prediction.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"
#include "engine/schedule/schedule_context.h"
#include "engine/validate/validate.h"

namespace hcpsim::accuracy {

Scenario collective_scenario(const AccuracyCase& c, const PredictOptions& options) {
  const YAML::Node doc = case_document(c);
  YAML::Node root(YAML::NodeType::Map);
  root["name"] = c.name;
  YAML::Node model(YAML::NodeType::Map);   // a trivial model: only the cluster matters
  model["num_layers"] = 1;
  model["hidden_size"] = 128;
  model["num_attention_heads"] = 1;
  model["seq_length"] = 2;
  model["tensor_model_parallel_size"] = 1;
  model["context_parallel_size"] = 1;
  root["model"] = model;
  root["cluster"] = doc["cluster"];        // the case's own section, with its marks
  YAML::Node sim(YAML::NodeType::Map);
  sim["backend"] = c.backend;
  sim["layers"] = 1;
  root["simulation"] = sim;

  const Scenario s = load_assembled_scenario(c, root, options, "cluster", "cluster", "the case's cluster");
  if (c.collective.ranks > s.world_size())
    throw_case_error(c, "collective.ranks",
                     "ranks (" + std::to_string(c.collective.ranks) + ") exceeds the GPUs of the cluster (" +
                         std::to_string(s.cluster.nodes) + " nodes x " + std::to_string(s.cluster.gpus_per_node) +
                         " = " + std::to_string(s.world_size()) + ")",
                     {"raise cluster.nodes"});
  return s;
}

TaskGraph collective_graph(const AccuracyCase& c, const Scenario& s) {
  const auto& spec = c.collective;
  const int n = spec.ranks;
  const RankLayout layout = RankLayout::from_scenario(s);
  GraphOptions opt;
  opt.backward = false;
  TaskGraph g;
  g.world_size = s.world_size();
  g.scenario_name = s.name;
  schedule::ScheduleContext ctx(g, s, layout, opt);
  CommOp op;
  op.kind = spec.op;
  op.group = GroupKind::DP;   // ranks 0..n-1 in order; the backends use the member list, not the group
  // nccl-tests' "size" -> the engine's CommOp fields (task_graph.h) and the bytes each rank sends.
  double sent = 0;
  switch (spec.op) {
    case TaskKind::SendRecv:        // each rank sends `size` to the next and receives from the previous
      sent = spec.bytes;
      break;
    case TaskKind::AllToAll:        // size: each rank's whole send buffer; (n-1)/n of it leaves the rank
      op.bytes_per_rank = spec.bytes;
      sent = spec.bytes * (n - 1) / n;
      break;
    case TaskKind::AllGather:       // size: the whole output; a rank's shard is size/n
    case TaskKind::ReduceScatter:   // size: the whole input; a rank's output shard is size/n
      op.bytes_per_rank = spec.bytes / n;
      sent = (n - 1) * op.bytes_per_rank;
      break;
    case TaskKind::AllReduce:       // size: the buffer
      op.bytes_per_rank = spec.bytes;
      sent = 2.0 * (n - 1) / n * spec.bytes;
      break;
    default:
      throw std::logic_error("collective case " + c.name + ": not a communication op");
  }
  for (int r = 0; r < n; ++r) {
    const TaskId t = ctx.add_nccl(r, spec.op, Stream::NcclCp, Stream::Main, "nccl_test", -1, sent);
    op.ranks.push_back(r);
    op.tasks.push_back(t);
    if (spec.op == TaskKind::SendRecv) op.transfers.push_back({r, (r + 1) % n, spec.bytes});
  }
  ctx.add_comm(std::move(op));
  return g;
}

double bus_bandwidth_factor(TaskKind op, int n) {
  switch (op) {
    case TaskKind::AllReduce: return 2.0 * (n - 1) / n;
    case TaskKind::AllGather:
    case TaskKind::ReduceScatter:
    case TaskKind::AllToAll: return static_cast<double>(n - 1) / n;
    default: return 1.0;
  }
}

}  // namespace hcpsim::accuracy
