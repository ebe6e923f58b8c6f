// Readers of real profiler traces: public PyTorch profiler traces (tests/data/measured/README.md),
// bad files, and Nsight Systems SQLite exports built here with the documented schema.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/measured/kineto_reader.h"
#include "engine/measured/measured_input.h"
#include "tests/support/file_bytes.h"

namespace hcpsim {
namespace {

const std::string kData = std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/hta/";

MeasuredRun read(const std::vector<std::string>& paths, std::vector<KernelRule> extra = {}) {
  return read_measured_run(paths, KernelClassifier(std::move(extra)));
}

std::size_t count_kind(const MeasuredRank& r, MeasuredKind k) {
  std::size_t n = 0;
  for (const auto& x : r.kernels) n += x.kind == k;
  return n;
}

std::string error_of(const std::vector<std::string>& paths) {
  try {
    read(paths);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/hcpsim_measured_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buf[65536];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

TEST(KinetoReader, A100TraceWithDistributedInfoAndSteps) {
  const MeasuredRun run = read({kData + "sampled_rank-1.json.gz"});
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.format, "kineto");
  EXPECT_EQ(run.ranks[0].rank, 1);
  EXPECT_EQ(run.world_size, 128);
  EXPECT_EQ(run.ranks[0].kernels.size(), 1154u);   // 1104 kernels, 40 memcpy, 10 memset
  EXPECT_EQ(run.ranks[0].steps, 2);
  // Expected counts: the built-in rules applied to the file by an independent script.
  EXPECT_EQ(count_kind(run.ranks[0], MeasuredKind::Gemm), 398u);   // cutlass_80_tensorop_*, gemv
  EXPECT_EQ(count_kind(run.ranks[0], MeasuredKind::Copy), 114u);   // memcpy, direct_copy, CatArrayBatchedCopy
  EXPECT_EQ(count_kind(run.ranks[0], MeasuredKind::SendRecv), 10u);   // ncclKernel_SendRecv_RING_SIMPLE
  EXPECT_EQ(count_kind(run.ranks[0], MeasuredKind::Other), 20u);
  for (std::size_t i = 1; i < run.ranks[0].kernels.size(); ++i)
    ASSERT_LE(run.ranks[0].kernels[i - 1].start_s, run.ranks[0].kernels[i].start_s);
}

TEST(KinetoReader, NcclKernelsByCollectiveAndStream) {
  const MeasuredRun run = read({kData + "nccl_allreduce_2rank.json.gz"});
  ASSERT_EQ(run.ranks.size(), 1u);
  const auto& r = run.ranks[0];
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(run.world_size, 2);
  EXPECT_EQ(r.kernels.size(), 1368u);
  EXPECT_EQ(count_kind(r, MeasuredKind::AllReduce), 5u);
  EXPECT_EQ(count_kind(r, MeasuredKind::OtherCommunication), 4u);   // broadcasts
  EXPECT_EQ(count_kind(r, MeasuredKind::Gemm), 179u);
  EXPECT_EQ(r.steps, 2);
  // Stream 7 computes, stream 40 runs NCCL.
  ASSERT_TRUE(r.streams.count(7) && r.streams.count(40));
  EXPECT_EQ(r.streams.at(7), Stream::Main);
  EXPECT_EQ(r.streams.at(40), Stream::NcclTp);
  // All-reduce bytes from "In msg nelems" x Float.
  for (const auto& k : r.kernels) {
    if (k.kind == MeasuredKind::AllReduce) {
      EXPECT_GT(k.bytes, 0);
    }
  }
  // Kernels launched in ProfilerStep#4 (by correlation) are step 0.
  std::size_t step0 = 0;
  for (const auto& k : r.kernels) step0 += k.step == 0;
  EXPECT_EQ(step0, 1258u);
}

TEST(KinetoReader, RocmTraceNeedsARankAndTakesOneAfterThePath) {
  const std::string path = kData + "mi250_minitoy_train_ROCm6_2_kineto.json.gz";
  const std::string e = error_of({path});
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("@3"), std::string::npos) << e;
  const MeasuredRun run = read({path + "@5"});
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].rank, 5);
  EXPECT_EQ(run.world_size, 6);
  EXPECT_EQ(count_kind(run.ranks[0], MeasuredKind::Gemm), 2u);   // hipBLASLt Cijk_*
  EXPECT_EQ(count_kind(run.ranks[0], MeasuredKind::Optimizer), 1u);   // multi_tensor_apply
  EXPECT_EQ(count_kind(run.ranks[0], MeasuredKind::Copy), 3u);
  EXPECT_EQ(run.ranks[0].steps, 2);
}

TEST(KinetoReader, RankWithoutWorldSizeAndNoSteps) {
  const MeasuredRun run = read({kData + "alexnet_benchmark_result_trace.json.gz"});
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].rank, 0);
  EXPECT_EQ(run.world_size, 1);
  EXPECT_EQ(run.ranks[0].steps, 0);
  EXPECT_EQ(run.ranks[0].kernels.size(), 98u);
}

TEST(KinetoReader, RankFromFileName) {
  EXPECT_EQ(rank_from_file_name("/x/rank-3.Dec_01_12_00_00.4245.pt.trace.json.gz"), 3);
  EXPECT_EQ(rank_from_file_name("rank_12.json"), 12);
  EXPECT_EQ(rank_from_file_name("trace_rank7.json"), 7);
  EXPECT_EQ(rank_from_file_name("/ranks/trace.json"), -1);
  // The file name's rank is used when the JSON has none.
  std::string text = gunzip(kData + "mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  const auto path = temp_file("rank_4.json", text);
  const MeasuredRun run = read({path});
  EXPECT_EQ(run.ranks.at(0).rank, 4);
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_NE(run.notes[0].find("file name"), std::string::npos);
}

TEST(KinetoReader, BadFilesGetAClearError) {
  const std::string whole = gunzip(kData + "sampled_rank-1.json.gz");
  const auto truncated = temp_file("truncated.json", whole.substr(0, whole.size() / 2));
  std::string e = error_of({truncated});
  EXPECT_NE(e.find(truncated), std::string::npos) << e;
  EXPECT_NE(e.find("not a complete JSON document"), std::string::npos) << e;

  const std::string gz = test::file_bytes(kData + "sampled_rank-1.json.gz");
  const auto cut_gz = temp_file("cut.json.gz", gz.substr(0, gz.size() / 3));
  e = error_of({cut_gz});
  EXPECT_NE(e.find(cut_gz), std::string::npos) << e;

  const auto foreign = temp_file("foreign.json", R"({"name": "not a trace", "values": [1, 2, 3]})");
  e = error_of({foreign});
  EXPECT_NE(e.find("traceEvents"), std::string::npos) << e;

  const auto binary = temp_file("binary.json", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  e = error_of({binary});
  EXPECT_NE(e.find("not a trace"), std::string::npos) << e;

  const auto empty = temp_file("empty.json", "");
  e = error_of({empty});
  EXPECT_NE(e.find(empty), std::string::npos) << e;

  e = error_of({kData + "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"});
  EXPECT_NE(e.find("no GPU work"), std::string::npos) << e;

  e = error_of({kData + "sampled_rank-1.json.gz", kData + "sampled_rank-1.json.gz"});
  EXPECT_NE(e.find("rank 1 is also in"), std::string::npos) << e;

  e = error_of({::testing::TempDir() + "/hcpsim_no_such_trace.json"});
  EXPECT_NE(e.find("no such file or folder"), std::string::npos) << e;

  e = error_of({kData + "sampled_rank-1.json.gz@x"});
  EXPECT_NE(e.find("rank number"), std::string::npos) << e;
}

TEST(KinetoReader, FolderOfRanks) {
  const std::string dir = ::testing::TempDir() + "/hcpsim_measured_folder";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kData + "sampled_rank-1.json.gz", dir + "/a.json.gz");
  std::filesystem::copy_file(kData + "nccl_allreduce_2rank.json.gz", dir + "/b.json.gz");
  std::ofstream(dir + "/notes.txt") << "not a trace";
  const MeasuredRun run = read({dir});
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].rank, 0);
  EXPECT_EQ(run.ranks[1].rank, 1);
  EXPECT_EQ(run.world_size, 128);
  const std::string empty_dir = dir + "/empty";
  std::filesystem::create_directories(empty_dir);
  EXPECT_NE(error_of({empty_dir}).find("holds no trace"), std::string::npos);
}

// A database with the tables and columns of `nsys export --type sqlite`.
void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << " in " << sql;
}

std::string make_nsys(const std::string& name, bool with_kernels) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  exec(db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
  exec(db, "INSERT INTO StringIds VALUES (1, 'ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)'), "
           "(2, 'cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0'), "
           "(3, 'step 7'), (4, 'cudaLaunchKernel')");
  if (with_kernels) {
    exec(db, "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, "
             "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, "
             "shortName INTEGER, gridX INTEGER)");
    // Two processes (ranks): pid 0x1000000 on GPU 1, pid 0x2000000 on GPU 0.
    exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000000, 1400000, 1, 1, 7, 11, 16777216, 2, 2, 132), "
             "(1500000, 1700000, 1, 1, 21, 12, 16777216, 1, 1, 4), (2000000, 2300000, 0, 1, 7, 11, 33554432, 2, 2, 132)");
    exec(db, "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, "
             "correlationId INTEGER, nameId INTEGER)");
    exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900000, 910000, 0, 16777216 + 5, 11, 4), "
             "(1400000, 1410000, 0, 16777216 + 5, 12, 4)");
    exec(db, "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER, rangeId INTEGER, "
             "category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER)");
    exec(db, "INSERT INTO NVTX_EVENTS VALUES (800000, 1450000, 59, NULL, NULL, NULL, NULL, 16777216 + 5, NULL, 3)");
  }
  sqlite3_close(db);
  return path;
}

TEST(NsysReader, OneRankPerProcessWithNvtxSteps) {
  const std::string path = make_nsys("rank-2.sqlite", true);
  EXPECT_EQ(detect_trace_format(path), TraceFormat::Nsys);
  const MeasuredRun run = read({path});
  EXPECT_EQ(run.format, "nsys");
  ASSERT_EQ(run.ranks.size(), 2u);
  // GPU 0's process is the first rank (2, from the file name), GPU 1's the second.
  EXPECT_EQ(run.ranks[0].rank, 2);
  EXPECT_EQ(run.ranks[0].kernels.size(), 1u);
  const auto& r = run.ranks[1];
  EXPECT_EQ(r.rank, 3);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].kind, MeasuredKind::AttentionForward);
  EXPECT_NEAR(r.kernels[0].end_s - r.kernels[0].start_s, 400e-6, 1e-12);
  EXPECT_EQ(r.kernels[1].kind, MeasuredKind::SendRecv);
  EXPECT_EQ(r.steps, 1);
  EXPECT_EQ(r.kernels[0].step, 0);   // launched at 0.9 ms, inside "step 7"
  EXPECT_EQ(r.kernels[1].step, 0);   // launched at 1.4 ms, inside; runs after the range ends
  EXPECT_EQ(r.streams.at(21), Stream::NcclP2P);
}

TEST(NsysReader, RealExportFromPerlmutter) {
  const std::string path = std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";
  EXPECT_NE(error_of({path}).find("@3"), std::string::npos);   // one process, no rank in the name
  const MeasuredRun run = read({path + "@0"});
  ASSERT_EQ(run.ranks.size(), 1u);
  const auto& r = run.ranks[0];
  EXPECT_EQ(r.kernels.size(), 20u);
  EXPECT_EQ(count_kind(r, MeasuredKind::Copy), 15u);    // memcpys
  EXPECT_EQ(count_kind(r, MeasuredKind::Other), 5u);    // saxpy(double*, ...): no rule
  EXPECT_EQ(r.steps, 0);
  for (const auto& k : r.kernels) EXPECT_GT(k.end_s, k.start_s);
  EXPECT_NE(std::find(run.names.begin(), run.names.end(), "saxpy(double *, double *, double *, double, int)"), run.names.end());
}

TEST(NsysReader, ForeignDatabaseIsRefused) {
  const std::string path = make_nsys("no_kernels.sqlite", false);
  const std::string e = error_of({path});
  EXPECT_NE(e.find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos) << e;
  EXPECT_NE(e.find(path), std::string::npos) << e;
}

}  // namespace
}  // namespace hcpsim
