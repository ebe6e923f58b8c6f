// Spreading sweep points over processes without MPI: the shard rule, the shard header, the
// round-robin share, and run_sweep / evaluate_distributed driven by in-process fake ranks (the MPI
// implementation itself is exercised under mpirun by tests/cli/test_sweep_mpi.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/planning/point_distribution.h"
#include "engine/planning/sweep_runner.h"
#include "engine/planning/sweep_shard.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::planning {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("hcpsim-dist-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

SweepSpec grid() {   // 4 x 3 = 12 points
  SweepSpec spec;
  spec.groups.push_back(parse_vary("a=1,2,3,4"));
  spec.groups.push_back(parse_vary("b=10,20,30"));
  return spec;
}

// step_s = a * 100 + b; marks DIR/<index>.ran so a test can tell which points this process ran.
PointEvaluator marking(const fs::path& dir) {
  return [dir](const SweepPoint& p) {
    std::ofstream(dir / (std::to_string(p.index) + ".ran")) << "x";
    PointResult r;
    r.comm_type = "p2p";
    r.metrics.step_s = std::stod(p.labels[0]) * 100 + std::stod(p.labels[1]);
    return r;
  };
}

std::set<std::size_t> ran(const fs::path& dir) {
  std::set<std::size_t> s;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".ran") s.insert(std::stoul(e.path().stem().string()));
  return s;
}

// A rank of a pretend job. Rank 0 is handed, on its first poll, the results that the other ranks
// would compute for their share of the broadcast point list (with `evaluate`), and their "done".
class FakeRanks : public PointDistribution {
 public:
  FakeRanks(int rank, int size, std::vector<SweepPoint> points, std::vector<std::string> columns)
      : rank_(rank), size_(size), points_(std::move(points)), columns_(std::move(columns)) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string broadcast(const std::string& text) override {
    if (rank_ == 0) broadcast_ = text;
    return broadcast_;
  }
  void send_result(const std::string& line) override { sent.push_back(line); }
  void send_done() override { ++done_calls; }
  std::vector<std::string> poll_results() override {
    std::vector<std::string> lines;
    if (rank_ != 0 || finished_ > 0) return lines;
    const std::vector<std::size_t> todo = decode_indices(broadcast_);
    for (int r = 1; r < size_; ++r)
      for (std::size_t i : round_robin_share(todo, r, size_)) {
        PointResult res;
        res.labels = points_[i].labels;
        res.comm_type = "remote";
        res.metrics.step_s = std::stod(res.labels[0]) * 100 + std::stod(res.labels[1]);
        lines.push_back(to_json(res, columns_).dump());
      }
    finished_ = size_ - 1;
    return lines;
  }
  int finished_ranks() const override { return finished_; }

  std::string broadcast_;   // what rank 0 sent (set it by hand for a rank > 0)
  std::vector<std::string> sent;
  int done_calls = 0;

 private:
  int rank_, size_;
  std::vector<SweepPoint> points_;
  std::vector<std::string> columns_;
  int finished_ = 0;
};

TEST(SweepShard, ParsesIOverN) {
  const ShardSpec s = parse_shard("2/3");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(to_string(s), "2/3");
  for (const char* bad : {"0/3", "4/3", "3", "/3", "2/", "a/3", "2/b", "1/0", "2/3/4", " 1/2", "1/1000001"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--shard"), std::string::npos) << e.what();
    }
  }
}

TEST(SweepShard, ShardsPartitionThePointsByIndexModN) {
  const std::vector<SweepPoint> points = expand_points(grid(), {});
  ASSERT_EQ(points.size(), 12u);
  std::vector<int> seen(points.size(), 0);
  for (int i = 1; i <= 5; ++i)
    for (const SweepPoint& p : shard_points(points, {i, 5})) {
      EXPECT_EQ(p.index % 5, static_cast<std::size_t>(i - 1));
      ++seen[p.index];
    }
  for (int n : seen) EXPECT_EQ(n, 1);
  EXPECT_EQ(shard_points(points, {1, 1}).size(), 12u);
  EXPECT_EQ(shard_points(points, {13, 20}).size(), 0u) << "more shards than points: some are empty";
}

TEST(SweepShard, HeaderIdentifiesTheSweepNotThePathGiven) {
  const SweepSpec spec = grid();
  SweepDescriptionInput in;
  in.file = "sweeps/x.yaml";
  in.file_text = "base: a.yaml\n";
  in.base_text = "model: {}\n";
  in.extra_overrides = {"model.seq_length=4096"};
  const nlohmann::json d = describe_sweep(spec, in);
  EXPECT_EQ(d.at("points"), 12);
  EXPECT_EQ(d.at("overrides"), nlohmann::json({"model.seq_length=4096"}));
  in.file = "/elsewhere/sweeps/x.yaml";
  EXPECT_EQ(sweep_id(describe_sweep(spec, in)), sweep_id(d)) << "the path is for messages only";
  in.extra_overrides = {"model.seq_length=8192"};
  EXPECT_NE(sweep_id(describe_sweep(spec, in)), sweep_id(d));
  in.extra_overrides = {"model.seq_length=4096"};
  in.base_text = "model: {num_layers: 2}\n";
  EXPECT_NE(sweep_id(describe_sweep(spec, in)), sweep_id(d)) << "an edited base scenario is another sweep";

  TempDir t;
  ShardHeader h{{2, 3}, sweep_id(d), d};
  std::ofstream(t.path / "p.csv") << shard_header_line(h, true) << "\na,b,status\n";
  const std::optional<ShardHeader> back = read_shard_header((t.path / "p.csv").string());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->shard.index, 2);
  EXPECT_EQ(back->shard.count, 3);
  EXPECT_EQ(back->sweep, d);
  EXPECT_EQ(expand_points(spec_of_description(back->sweep), {}).size(), 12u);
  // An edited header no longer matches its sweep_id.
  std::string line = shard_header_line(h, false);
  line.replace(line.find("4096"), 4, "2048");
  std::ofstream(t.path / "q.jsonl") << line << "\n";
  EXPECT_THROW(read_shard_header((t.path / "q.jsonl").string()), std::runtime_error);
  std::ofstream(t.path / "r.csv") << "a,b,status\n";
  EXPECT_FALSE(read_shard_header((t.path / "r.csv").string()).has_value());
}

TEST(PointDistribution, RoundRobinSharesCoverTheListOnce) {
  const std::vector<std::size_t> todo{3, 4, 7, 8, 9, 11, 12};
  std::vector<std::size_t> all;
  for (int r = 0; r < 3; ++r) {
    const auto mine = round_robin_share(todo, r, 3);
    EXPECT_GE(mine.size(), 2u);
    EXPECT_LE(mine.size(), 3u);
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, todo);
  EXPECT_THROW(round_robin_share(todo, 3, 3), std::invalid_argument);
  EXPECT_EQ(decode_indices(encode_indices(todo)), todo);
  EXPECT_TRUE(decode_indices("").empty());
  EXPECT_THROW(decode_indices("1 x 3"), std::runtime_error);
}

TEST(PointDistribution, RankZeroRunsItsShareAndWritesEveryPointInOrder) {
  TempDir t;
  const SweepSpec spec = grid();
  const auto points = expand_points(spec, {});
  const auto columns = sweep_columns(spec);
  FakeRanks root(0, 3, points, columns);
  SweepRunOptions o;
  o.jobs = 2;
  o.out_path = (t.path / "r.csv").string();
  o.distribution = &root;
  const SweepOutcome out = run_sweep(points, columns, marking(t.path), o);
  EXPECT_EQ(ran(t.path), (std::set<std::size_t>{0, 3, 6, 9})) << "rank 0 evaluates every third point";
  EXPECT_EQ(out.evaluated, 12u);
  const auto rows = read_results_file(o.out_path, columns);
  ASSERT_EQ(rows.size(), 12u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].labels, points[i].labels) << "point order";
    EXPECT_EQ(rows[i].comm_type, i % 3 == 0 ? "p2p" : "remote") << i;
    EXPECT_DOUBLE_EQ(rows[i].metrics.step_s, std::stod(points[i].labels[0]) * 100 + std::stod(points[i].labels[1]));
  }
}

TEST(PointDistribution, RankZeroResumesAndSharesOnlyThePointsLeft) {
  TempDir t;
  const SweepSpec spec = grid();
  const auto points = expand_points(spec, {});
  const auto columns = sweep_columns(spec);
  SweepRunOptions o;
  o.jobs = 1;
  o.out_path = (t.path / "r.csv").string();
  run_sweep({points[0], points[1], points[5]}, columns, marking(t.path), o);
  for (const auto& e : fs::directory_iterator(t.path))
    if (e.path().extension() == ".ran") fs::remove(e.path());
  FakeRanks root(0, 2, points, columns);
  o.resume = true;
  o.distribution = &root;
  const SweepOutcome out = run_sweep(points, columns, marking(t.path), o);
  EXPECT_EQ(root.broadcast_, "2 3 4 6 7 8 9 10 11");
  EXPECT_EQ(ran(t.path), (std::set<std::size_t>{2, 4, 7, 9, 11}));
  EXPECT_EQ(out.resumed, 3u);
  EXPECT_EQ(out.evaluated, 9u);
  const auto rows = read_results_file(o.out_path, columns);
  ASSERT_EQ(rows.size(), 12u);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].labels, points[i].labels);
}

TEST(PointDistribution, OtherRanksSendTheirShareAndWriteNothing) {
  TempDir t;
  const SweepSpec spec = grid();
  const auto points = expand_points(spec, {});
  const auto columns = sweep_columns(spec);
  FakeRanks worker(1, 3, points, columns);
  worker.broadcast_ = "0 1 2 3 4 5 6 7 8 9 10 11";
  SweepRunOptions o;
  o.jobs = 2;
  o.out_path = (t.path / "r.csv").string();
  o.resume = true;
  o.distribution = &worker;
  run_sweep(points, columns, marking(t.path), o);
  EXPECT_FALSE(fs::exists(o.out_path)) << "only rank 0 touches the output file";
  EXPECT_EQ(ran(t.path), (std::set<std::size_t>{1, 4, 7, 10}));
  EXPECT_EQ(worker.done_calls, 1);
  std::set<std::string> sent;
  for (const std::string& line : worker.sent) sent.insert(point_from_json(nlohmann::json::parse(line), columns).labels[0] +
                                                          "/" + point_from_json(nlohmann::json::parse(line), columns).labels[1]);
  EXPECT_EQ(sent, (std::set<std::string>{"1/20", "2/20", "3/20", "4/20"}));
}

TEST(PointDistribution, EvaluateDistributedGathersEveryItemOnRankZero) {
  // Items 0..5: owner 0 for 0, 3; the fake's other ranks answer nothing, so rank 1's items are sent
  // through a second fake acting as rank 1 and replayed to rank 0.
  const std::vector<int> owner{0, 1, 1, 0, 1, 1};
  std::vector<std::size_t> computed_by_one;
  FakeRanks one(1, 2, {}, {});
  evaluate_distributed(6, owner, [&](const std::vector<std::size_t>& mine) {
    computed_by_one = mine;
    std::vector<PointResult> rs(mine.size());
    for (std::size_t k = 0; k < mine.size(); ++k) rs[k].metrics.step_s = 10.0 * mine[k];
    return rs;
  }, one);
  EXPECT_EQ(computed_by_one, (std::vector<std::size_t>{1, 2, 4, 5}));
  std::size_t lines = 0;
  for (const std::string& batch : one.sent) lines += static_cast<std::size_t>(std::count(batch.begin(), batch.end(), '\n'));
  EXPECT_EQ(lines, 4u) << "one line per item, batched";
  EXPECT_LE(one.sent.size(), 1u) << "a few small lines travel in one message";
  EXPECT_EQ(one.done_calls, 1);

  class Replay : public FakeRanks {
   public:
    Replay(std::vector<std::string> lines) : FakeRanks(0, 2, {}, {}), lines_(std::move(lines)) {}
    std::vector<std::string> poll_results() override {
      done_ = true;
      return std::exchange(lines_, {});
    }
    int finished_ranks() const override { return done_ ? 1 : 0; }
   private:
    std::vector<std::string> lines_;
    bool done_ = false;
  } zero(one.sent);
  std::vector<std::size_t> computed_by_zero;
  const std::vector<PointResult> all = evaluate_distributed(6, owner, [&](const std::vector<std::size_t>& mine) {
    computed_by_zero = mine;
    std::vector<PointResult> rs(mine.size());
    for (std::size_t k = 0; k < mine.size(); ++k) rs[k].metrics.step_s = 10.0 * mine[k];
    return rs;
  }, zero);
  EXPECT_EQ(computed_by_zero, (std::vector<std::size_t>{0, 3}));
  ASSERT_EQ(all.size(), 6u);
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_DOUBLE_EQ(all[i].metrics.step_s, 10.0 * i) << i;
}

}  // namespace
}  // namespace hcpsim::planning
