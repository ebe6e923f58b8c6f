// hcpsim_fuzz: a seeded mutational fuzzer for loader -> validate -> graph -> analytic backend.
// Each input runs in a forked child with a time limit (a hang is a failure) and a memory limit
// (RLIMIT_AS, or under AddressSanitizer the child's peak RSS); a crash, a sanitizer report, a hang,
// too much memory or a broken contract (fuzz_target.h) is saved to --crash-dir and makes the exit
// status 1. Same seed and corpus: same inputs. Usage: docs/testing.md "Fuzzing".
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "mutator.h"

#if defined(__SANITIZE_ADDRESS__)
#define HCPSIM_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HCPSIM_FUZZ_ASAN 1
#endif
#endif

namespace fs = std::filesystem;
using namespace hcpsim::fuzz;

namespace {

struct Options {
  long long count = 1000;
  unsigned long long seed = 1;
  double timeout_s = 20;
  long long memory_mib = 3072;
  double max_tasks = 200000;
  std::string crash_dir = "fuzz-crashes";
  std::vector<std::string> corpus_paths;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "hcpsim_fuzz: " << why
            << "\nusage: hcpsim_fuzz [--count N] [--seed S] [--timeout-s T] [--memory-mib M] [--max-tasks N]"
               " [--crash-dir DIR] CORPUS_FILE_OR_DIR...\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--count") o.count = std::stoll(value());
      else if (a == "--seed") o.seed = std::stoull(value());
      else if (a == "--timeout-s") o.timeout_s = std::stod(value());
      else if (a == "--memory-mib") o.memory_mib = std::stoll(value());
      else if (a == "--max-tasks") o.max_tasks = std::stod(value());
      else if (a == "--crash-dir") o.crash_dir = value();
      else if (!a.empty() && a[0] == '-') usage("unknown option " + a);
      else o.corpus_paths.push_back(a);
    } catch (const std::logic_error&) {
      usage("bad value for " + a);
    }
  }
  if (o.corpus_paths.empty()) usage("no corpus given");
  if (o.count < 0 || o.timeout_s <= 0 || o.memory_mib <= 0) usage("count, timeout and memory must be positive");
  return o;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> load_corpus(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.emplace_back(p);
    } else {
      usage("corpus path " + p + " does not exist");
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(slurp(f));
  if (out.empty()) usage("the corpus holds no .yaml file");
  std::cerr << "fuzz: corpus of " << out.size() << " files\n";
  return out;
}

struct ChildResult {
  std::string failure;   // empty: fine
  Outcome outcome = Outcome::Rejected;
};

ChildResult run_in_child(const std::string& input, const std::vector<std::string>& overrides, const Options& o) {
  int fds[2];
  if (::pipe(fds) != 0) {
    std::perror("pipe");
    std::exit(2);
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(2);
  }
  if (pid == 0) {
    ::close(fds[0]);
#ifndef HCPSIM_FUZZ_ASAN
    const rlim_t bytes = static_cast<rlim_t>(o.memory_mib) << 20;
    const rlimit lim{bytes, bytes};
    ::setrlimit(RLIMIT_AS, &lim);
#endif
    // SIGALRM (default action: terminate) after timeout_s of wall time.
    itimerval t{};
    t.it_value.tv_sec = static_cast<long>(o.timeout_s);
    t.it_value.tv_usec = static_cast<long>((o.timeout_s - static_cast<double>(t.it_value.tv_sec)) * 1e6);
    ::setitimer(ITIMER_REAL, &t, nullptr);
    std::string why;
    TargetOptions to;
    to.max_tasks = o.max_tasks;
    Outcome out = Outcome::ContractBroken;
    try {
      out = run_target(input, overrides, to, why);
    } catch (const std::exception& e) {
      why = std::string("exception escaped the target: ") + e.what();
    }
    const std::string msg = std::to_string(static_cast<int>(out)) + " " + why;
    (void)!::write(fds[1], msg.data(), msg.size());
    ::close(fds[1]);
    std::_Exit(0);
  }
  ::close(fds[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    msg.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  ChildResult r;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    r.failure = sig == SIGALRM ? "hang: no result after " + std::to_string(o.timeout_s) + " s"
                               : std::string("crash: signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
    return r;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || msg.empty()) {
    r.failure = "crash: exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                " without a result (a sanitizer report above?)";
    return r;
  }
  if (ru.ru_maxrss > o.memory_mib * 1024) {
    r.failure = "memory: peak RSS " + std::to_string(ru.ru_maxrss / 1024) + " MiB > " + std::to_string(o.memory_mib) + " MiB";
    return r;
  }
  const int code = std::atoi(msg.c_str());
  r.outcome = static_cast<Outcome>(code);
  if (r.outcome == Outcome::ContractBroken) {
    const auto sp = msg.find(' ');
    r.failure = "contract: " + (sp == std::string::npos ? std::string("?") : msg.substr(sp + 1));
  }
  return r;
}

void save(const Options& o, long long index, const std::string& input, const std::vector<std::string>& overrides,
          const std::string& failure) {
  fs::create_directories(o.crash_dir);
  const fs::path base = fs::path(o.crash_dir) / ("fuzz-" + std::to_string(o.seed) + "-" + std::to_string(index));
  std::ofstream(base.string() + ".yaml", std::ios::binary) << input;
  std::ofstream info(base.string() + ".txt");
  info << failure << "\n";
  for (const auto& ov : overrides) info << "override: " << ov << "\n";
  std::cerr << "fuzz: input " << index << ": " << failure << "\n  saved to " << base.string() << ".yaml\n";
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Mutator m(load_corpus(o.corpus_paths), o.seed);
  const auto t0 = std::chrono::steady_clock::now();
  long long counts[4] = {0, 0, 0, 0};
  long long failures = 0;
  for (long long i = 0; i < o.count; ++i) {
    const std::string input = m.next();
    const std::vector<std::string> overrides = m.next_overrides();
    const ChildResult r = run_in_child(input, overrides, o);
    if (!r.failure.empty()) {
      ++failures;
      save(o, i, input, overrides, r.failure);
    } else {
      ++counts[static_cast<int>(r.outcome)];
    }
    if ((i + 1) % 1000 == 0)
      std::cerr << "fuzz: " << i + 1 << "/" << o.count << " inputs, " << failures << " failures, "
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fuzz: seed %llu, %lld inputs in %.1f s: %lld rejected with a position, %lld accepted and simulated, "
              "%lld accepted (graph above --max-tasks, not simulated), %lld failures\n",
              o.seed, o.count, wall, counts[0], counts[1], counts[2], failures);
  return failures == 0 ? 0 : 1;
}
