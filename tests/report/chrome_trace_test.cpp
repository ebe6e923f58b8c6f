#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "engine/trace/trace.h"

namespace hcpsim {
namespace {

Trace sample() {
  Trace t;
  t.scenario = "demo \"quoted\"";
  t.backend = "analytic";
  t.world_size = 16;
  t.gpus_per_node = 8;
  TraceEvent a;
  a.task = 7;
  a.rank = 3;
  a.stream = Stream::Main;
  a.kind = TaskKind::AttentionForward;
  a.start_s = 1e-3;
  a.end_s = 1.5e-3;
  a.flops = 4.398e12;
  a.step = 2;
  a.name = "L0.fwd.s2.attn";
  TraceEvent b = a;
  b.task = 8;
  b.rank = 11;
  b.stream = Stream::NcclP2P;
  b.kind = TaskKind::SendRecv;
  b.pass = Pass::Backward;
  b.layer = 1;
  b.bytes = 33554432;
  b.flops = 0;
  b.peers = {12};
  b.name = "L1.bwd.s2.send_recv_kv_dkv";
  t.events = {a, b};
  return t;
}

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/hcpsim_trace_XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::ofstream(name) << text;
  return name;
}

TEST(ChromeTrace, SchemaOfWrittenFile) {
  std::ostringstream os;
  write_chrome_trace(sample(), os);
  const auto j = nlohmann::json::parse(os.str());
  ASSERT_TRUE(j["traceEvents"].is_array());
  bool node1 = false, rank3 = false;
  int complete = 0;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph"));
    if (e["ph"] == "M") {
      if (e["name"] == "process_name" && e["args"]["name"] == "node 1") node1 = true;
      if (e["name"] == "thread_name" && e["args"]["name"] == "rank 3 main") rank3 = true;
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    ++complete;
    for (const char* k : {"name", "pid", "tid", "ts", "dur", "args"}) EXPECT_TRUE(e.contains(k)) << k;
    for (const char* k : {"task", "bytes", "flops", "step", "peers", "layer", "pass", "kind", "rank", "stream"})
      EXPECT_TRUE(e["args"].contains(k)) << k;
    EXPECT_EQ(e["pid"].get<int>(), e["args"]["rank"].get<int>() / 8);   // one process per node
  }
  EXPECT_EQ(complete, 2);
  EXPECT_TRUE(node1);
  EXPECT_TRUE(rank3);
  const auto& first = j["traceEvents"][j["traceEvents"].size() - 2];
  EXPECT_NEAR(first["ts"].get<double>(), 1000.0, 1e-6);   // microseconds
  EXPECT_NEAR(first["dur"].get<double>(), 500.0, 1e-6);
}

TEST(ChromeTrace, RoundTrip) {
  std::ostringstream os;
  const Trace t = sample();
  write_chrome_trace(t, os);
  const std::string path = write_temp(os.str());
  const Trace r = read_chrome_trace(path);
  std::remove(path.c_str());
  EXPECT_EQ(r.scenario, t.scenario);
  EXPECT_EQ(r.world_size, 16);
  ASSERT_EQ(r.events.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.events[i].task, t.events[i].task);
    EXPECT_EQ(r.events[i].rank, t.events[i].rank);
    EXPECT_EQ(r.events[i].stream, t.events[i].stream);
    EXPECT_EQ(r.events[i].kind, t.events[i].kind);
    EXPECT_EQ(r.events[i].pass, t.events[i].pass);
    EXPECT_EQ(r.events[i].layer, t.events[i].layer);
    EXPECT_EQ(r.events[i].step, t.events[i].step);
    EXPECT_EQ(r.events[i].peers, t.events[i].peers);
    EXPECT_EQ(r.events[i].name, t.events[i].name);
    EXPECT_DOUBLE_EQ(r.events[i].bytes, t.events[i].bytes);
    EXPECT_NEAR(r.events[i].start_s, t.events[i].start_s, 1e-12);
    EXPECT_NEAR(r.events[i].end_s, t.events[i].end_s, 1e-12);
  }
}

TEST(ChromeTrace, ReadErrorsNameTheProblem) {
  auto message = [](const std::string& text) {
    const std::string path = write_temp(text);
    std::string msg = "no error";
    try {
      read_chrome_trace(path);
    } catch (const std::runtime_error& e) {
      msg = e.what();
    }
    std::remove(path.c_str());
    return msg;
  };
  EXPECT_NE(message("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(message("{\"events\":[]}").find("traceEvents"), std::string::npos);
  const std::string missing = message(
      R"({"traceEvents":[{"ph":"M"},{"ph":"X","name":"a","ts":0,"dur":1,"args":{"rank":0}}]})");
  EXPECT_NE(missing.find("traceEvents[1]"), std::string::npos) << missing;
  EXPECT_NE(missing.find("args.task"), std::string::npos) << missing;
  const std::string kind = message(
      R"({"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":1,"args":{"task":0,"rank":0,"stream":"main","kind":"bogus","pass":"forward","layer":0,"step":-1,"bytes":0,"flops":0}}]})");
  EXPECT_NE(kind.find("'bogus' is not a task kind"), std::string::npos) << kind;
  EXPECT_NE(message("").find("not valid JSON"), std::string::npos);
  EXPECT_THROW(read_chrome_trace("/nonexistent/trace.json"), std::runtime_error);
}

}  // namespace
}  // namespace hcpsim
