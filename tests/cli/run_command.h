#pragma once
// Runs the hcpsim binary through the shell and captures its exit status and output.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace hcpsim::test {

struct RunResult {
  int exit_code = -1;       // process exit status; -1 when it did not exit normally
  int signal = 0;           // terminating signal, 0 when none
  std::string out;          // stdout
  std::string err;          // stderr
};

inline std::string read_file(const std::string& path) {
  std::string s;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) s.append(buf.data(), n);
    std::fclose(f);
  }
  return s;
}

// `args` is appended to the executable path verbatim (quote as for /bin/sh).
inline RunResult run_hcpsim(const std::string& args, const std::string& scratch) {
  const std::string out = scratch + ".out", err = scratch + ".err";
  const std::string cmd = std::string("'") + HCPSIM_EXE + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  RunResult r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (status != -1 && WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

}  // namespace hcpsim::test
