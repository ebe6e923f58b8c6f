#include "engine/measured/nsys_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "engine/measured/gzip_stream.h"
#include "engine/measured/kineto_reader.h"
#include "engine/measured/profiled_ranges.h"

namespace hcpsim {
namespace {

// Owns an open database and its prepared statements' errors.
class Database {
 public:
  explicit Database(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw std::runtime_error(path + ": cannot open as SQLite: " + msg);
    }
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  std::set<std::string> columns(const std::string& table) {
    std::set<std::string> out;
    query("PRAGMA table_info(" + table + ")", [&](sqlite3_stmt* s) {
      out.insert(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
    });
    return out;
  }
  template <class Row>
  void query(const std::string& sql, Row&& row) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      const std::string msg = sqlite3_errmsg(db_);
      sqlite3_finalize(st);
      throw std::runtime_error(path_ + ": " + msg + " (in: " + sql + "): not an Nsight Systems SQLite export?");
    }
    int rc = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
    const std::string msg = sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) throw std::runtime_error(path_ + ": reading failed: " + msg);
  }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

struct ProcessData {
  MeasuredRank rank;
  std::int64_t device = 0;
  std::vector<std::int64_t> correlation;
  std::vector<ProfiledRange> ranges;
  LaunchTimes launches;
};

constexpr std::int64_t kPidMask = ~std::int64_t{0xFFFFFF};   // globalTid -> globalPid

std::string text(sqlite3_stmt* s, int col) {
  const auto* t = sqlite3_column_text(s, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}

void read_gpu_table(Database& db, const std::string& path, const std::string& table, const std::string& name_sql,
                    const KernelClassifier& cls, NameTable& names, std::vector<std::int8_t>& cache,
                    std::map<std::int64_t, ProcessData>& procs) {
  const auto cols = db.columns(table);
  for (const char* c : {"start", "end", "deviceId", "streamId"})
    if (!cols.count(c)) throw std::runtime_error(path + ": table " + table + " has no column '" + c + "' (an nsys SQLite export has it)");
  const std::string pid = cols.count("globalPid") ? "t.globalPid" : "0";
  const std::string corr = cols.count("correlationId") ? "t.correlationId" : "-1";
  db.query("SELECT t.start, t.end, t.deviceId, t.streamId, " + corr + ", " + pid + ", " + name_sql + " FROM " + table + " t",
           [&](sqlite3_stmt* s) {
             auto& p = procs[sqlite3_column_int64(s, 5)];
             p.device = sqlite3_column_int64(s, 2);
             MeasuredKernel k;
             k.start_s = static_cast<double>(sqlite3_column_int64(s, 0)) * 1e-9;
             k.end_s = static_cast<double>(sqlite3_column_int64(s, 1)) * 1e-9;
             k.stream = static_cast<std::int32_t>(sqlite3_column_int64(s, 3));
             const std::string name = text(s, 6);
             k.name = names.id(name);
             if (cache.size() <= k.name) cache.resize(k.name + 1, -1);
             if (cache[k.name] < 0) cache[k.name] = static_cast<std::int8_t>(cls.classify(name));
             k.kind = static_cast<MeasuredKind>(cache[k.name]);
             p.rank.kernels.push_back(k);
             p.correlation.push_back(sqlite3_column_int64(s, 4));
           });
}

void read_host_side(Database& db, std::map<std::int64_t, ProcessData>& procs, const std::set<std::string>& tables) {
  if (tables.count("CUPTI_ACTIVITY_KIND_RUNTIME")) {
    db.query("SELECT start, correlationId, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME", [&](sqlite3_stmt* s) {
      auto it = procs.find(sqlite3_column_int64(s, 2) & kPidMask);
      if (it == procs.end() && procs.size() == 1) it = procs.begin();
      if (it != procs.end()) it->second.launches[sqlite3_column_int64(s, 1)] = static_cast<double>(sqlite3_column_int64(s, 0)) * 1e-9;
    });
  }
  if (!tables.count("NVTX_EVENTS")) return;
  const auto cols = db.columns("NVTX_EVENTS");
  const std::string txt = cols.count("textId") ? "COALESCE(n.text, (SELECT value FROM StringIds WHERE id = n.textId))" : "n.text";
  db.query("SELECT n.start, n.end, " + txt + ", n.globalTid FROM NVTX_EVENTS n WHERE n.end IS NOT NULL", [&](sqlite3_stmt* s) {
    ProfiledRange r;
    if (!parse_profiled_range(text(s, 2), r)) return;
    r.start_s = static_cast<double>(sqlite3_column_int64(s, 0)) * 1e-9;
    r.end_s = static_cast<double>(sqlite3_column_int64(s, 1)) * 1e-9;
    auto it = procs.find(sqlite3_column_int64(s, 3) & kPidMask);
    if (it == procs.end() && procs.size() == 1) it = procs.begin();
    if (it != procs.end()) it->second.ranges.push_back(r);
  });
}

}  // namespace

bool is_sqlite_file(const std::string& path) {
  try {
    return read_file_head(path, 16) == std::string("SQLite format 3\0", 16);
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<MeasuredRank> read_nsys_sqlite(const std::string& path, int rank_hint, const KernelClassifier& classifier,
                                           NameTable& names, std::vector<std::int8_t>& kind_cache) {
  Database db(path);
  std::set<std::string> tables;
  db.query("SELECT name FROM sqlite_master WHERE type = 'table'", [&](sqlite3_stmt* s) { tables.insert(text(s, 0)); });
  if (!tables.count("CUPTI_ACTIVITY_KIND_KERNEL") || !tables.count("StringIds"))
    throw std::runtime_error(path + ": expected an Nsight Systems SQLite export (`nsys export --type sqlite`) with tables "
                             "CUPTI_ACTIVITY_KIND_KERNEL and StringIds; this database has neither or one (profiled "
                             "without --trace=cuda?)");
  const auto kcols = db.columns("CUPTI_ACTIVITY_KIND_KERNEL");
  const char* name_col = kcols.count("demangledName") ? "demangledName" : kcols.count("shortName") ? "shortName" : nullptr;
  if (!name_col) throw std::runtime_error(path + ": table CUPTI_ACTIVITY_KIND_KERNEL has neither demangledName nor shortName");
  std::map<std::int64_t, ProcessData> procs;
  read_gpu_table(db, path, "CUPTI_ACTIVITY_KIND_KERNEL", std::string("(SELECT value FROM StringIds WHERE id = t.") + name_col + ")",
                 classifier, names, kind_cache, procs);
  if (tables.count("CUPTI_ACTIVITY_KIND_MEMCPY"))
    read_gpu_table(db, path, "CUPTI_ACTIVITY_KIND_MEMCPY", "'Memcpy'", classifier, names, kind_cache, procs);
  if (tables.count("CUPTI_ACTIVITY_KIND_MEMSET"))
    read_gpu_table(db, path, "CUPTI_ACTIVITY_KIND_MEMSET", "'Memset'", classifier, names, kind_cache, procs);
  if (procs.empty()) throw std::runtime_error(path + ": the profile holds no GPU kernels");
  read_host_side(db, procs, tables);
  int first = rank_hint >= 0 ? rank_hint : rank_from_file_name(path);
  if (first < 0 && procs.size() == 1)
    throw std::runtime_error(path + ": which rank is this? An nsys profile does not record it: name the file like "
                             "rank-3.sqlite, or give the rank after the path: " + path + "@3");
  first = std::max(first, 0);
  std::vector<ProcessData*> order;
  for (auto& [pid, p] : procs) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const ProcessData* a, const ProcessData* b) { return a->device < b->device; });
  std::vector<MeasuredRank> out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    ProcessData& p = *order[i];
    p.rank.rank = first + static_cast<int>(i);
    p.rank.source = path;
    sort_kernels_by_start(p.rank.kernels, p.correlation);
    assign_profiled_ranges(p.rank, std::move(p.ranges), p.correlation, p.launches);
    assign_streams(p.rank);
    out.push_back(std::move(p.rank));
  }
  return out;
}

}  // namespace hcpsim
