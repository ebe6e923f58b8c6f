#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "engine/trace/chrome_trace_writer.h"
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
    for (const char* k : {"name", "cat", "pid", "tid", "ts", "dur", "args"}) EXPECT_TRUE(e.contains(k)) << k;
    const auto& a = e["args"];
    for (const char* k : {"task", "layer", "pass"}) EXPECT_TRUE(a.contains(k)) << k;
    // Format 2: kind, rank and stream are the category and the thread, not repeated in args.
    for (const char* k : {"kind", "rank", "stream"}) EXPECT_FALSE(a.contains(k)) << k;
    const int tid = e["tid"].get<int>();
    EXPECT_EQ(e["pid"].get<int>(), tid / kStreamCount / 8);   // one process per node
    if (a["task"] == 7) {   // attention on rank 3, main stream: FLOPs and a step, no bytes or peers
      EXPECT_EQ(tid, 3 * kStreamCount + static_cast<int>(Stream::Main));
      EXPECT_EQ(e["cat"], "attention_forward");
      EXPECT_DOUBLE_EQ(a["flops"].get<double>(), 4.398e12);
      EXPECT_EQ(a["step"], 2);
      EXPECT_FALSE(a.contains("bytes"));
      EXPECT_FALSE(a.contains("peers"));
    } else {   // send/recv on rank 11: bytes and peers, no FLOPs
      EXPECT_EQ(tid, 11 * kStreamCount + static_cast<int>(Stream::NcclP2P));
      EXPECT_EQ(e["cat"], "send_recv");
      EXPECT_DOUBLE_EQ(a["bytes"].get<double>(), 33554432.0);
      EXPECT_EQ(a["peers"], nlohmann::json::array({12}));
      EXPECT_FALSE(a.contains("flops"));
    }
  }
  EXPECT_EQ(j["otherData"]["trace_format"], kChromeTraceFormat);
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
    EXPECT_DOUBLE_EQ(r.events[i].flops, t.events[i].flops);
    EXPECT_NEAR(r.events[i].start_s, t.events[i].start_s, 1e-12);
    EXPECT_NEAR(r.events[i].end_s, t.events[i].end_s, 1e-12);
  }
}

// The writer formats in place in a buffer of about a megabyte: events that cross its hand-over
// points, one event larger than the whole buffer (a collective of 200,000 peers) and names with
// characters JSON must escape all come back as written.
TEST(ChromeTrace, LargeEventsAndEscapedNamesRoundTrip) {
  Trace t = sample();
  t.scenario = std::string("tab\there, newline\nthere, control \x01, backslash \\");
  const TraceEvent base = t.events[1];
  t.events.clear();
  for (int i = 0; i < 20000; ++i) {
    TraceEvent e = base;
    e.task = static_cast<TaskId>(i);
    e.start_s = 1e-6 * i;
    e.end_s = e.start_s + 3.25e-6;
    e.name = "L1.bwd.s" + std::to_string(i % 128) + (i % 1000 == 0 ? ".quote\"\\ctl\x1f" : ".send_recv_kv_dkv");
    t.events.push_back(e);
  }
  t.events[12345].peers.resize(200000);
  for (std::size_t k = 0; k < t.events[12345].peers.size(); ++k) t.events[12345].peers[k] = static_cast<std::int32_t>(k * 7919 % 1000003);
  std::ostringstream os;
  write_chrome_trace(t, os);
  const std::string path = write_temp(os.str());
  const Trace r = read_chrome_trace(path);
  std::remove(path.c_str());
  EXPECT_EQ(r.scenario, t.scenario);
  ASSERT_EQ(r.events.size(), t.events.size());
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    ASSERT_EQ(r.events[i].name, t.events[i].name) << "event " << i;
    ASSERT_EQ(r.events[i].peers, t.events[i].peers) << "event " << i;
    ASSERT_EQ(r.events[i].task, t.events[i].task) << "event " << i;
    ASSERT_NEAR(r.events[i].end_s, t.events[i].end_s, 1e-12) << "event " << i;
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

TEST(ChromeTrace, ReadsFormatOneFilesAndNamesABadThread) {
  // Format 1 (files written before otherData.trace_format): every field in args, whatever tid says.
  const std::string v1 = write_temp(
      R"({"traceEvents":[{"ph":"X","name":"x","cat":"send_recv","pid":0,"tid":99,"ts":2,"dur":3,)"
      R"("args":{"task":4,"rank":5,"stream":"nccl:p2p","kind":"send_recv","layer":1,"pass":"backward",)"
      R"("step":0,"bytes":1024,"flops":0,"peers":[6]}}]})");
  const Trace r = read_chrome_trace(v1);
  std::remove(v1.c_str());
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].rank, 5);
  EXPECT_EQ(r.events[0].stream, Stream::NcclP2P);
  EXPECT_EQ(r.events[0].kind, TaskKind::SendRecv);
  EXPECT_EQ(r.events[0].step, 0);
  EXPECT_DOUBLE_EQ(r.events[0].bytes, 1024.0);
  EXPECT_EQ(r.events[0].peers, std::vector<std::int32_t>{6});
  // Format 2 with absent "none" fields: defaults, rank and stream from tid.
  const std::string v2 = write_temp(
      R"({"traceEvents":[{"ph":"X","name":"y","cat":"copy","pid":0,"tid":20,"ts":0,"dur":1,)"
      R"("args":{"task":1,"layer":0,"pass":"forward"}}]})");
  const Trace q = read_chrome_trace(v2);
  std::remove(v2.c_str());
  ASSERT_EQ(q.events.size(), 1u);
  EXPECT_EQ(q.events[0].rank, 20 / kStreamCount);
  EXPECT_EQ(static_cast<int>(q.events[0].stream), 20 % kStreamCount);
  EXPECT_EQ(q.events[0].kind, TaskKind::Copy);
  EXPECT_EQ(q.events[0].step, -1);
  EXPECT_EQ(q.events[0].bytes, 0.0);
  EXPECT_TRUE(q.events[0].peers.empty());
  const std::string bad = write_temp(
      R"({"traceEvents":[{"ph":"X","name":"y","cat":"copy","pid":0,"tid":-3,"ts":0,"dur":1,)"
      R"("args":{"task":1,"layer":0,"pass":"forward"}}]})");
  try {
    (void)read_chrome_trace(bad);
    ADD_FAILURE() << "a negative tid was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("traceEvents[0]: tid must be a non-negative integer"), std::string::npos)
        << e.what();
  }
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace hcpsim
