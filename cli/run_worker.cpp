#include "cli/run_worker.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace hcpsim::cli {

std::string run_worker_path(const CliContext& ctx) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec || self.empty()) self = fs::absolute(ctx.argv0, ec);
  return (self.parent_path() / "hcpsim-mpi").string();
}

int exec_run_worker(const CliContext& ctx) {
  const std::string path = run_worker_path(ctx);
  std::vector<char*> args;
  args.push_back(const_cast<char*>(path.c_str()));
  for (int i = 1; i < ctx.argc; ++i) args.push_back(ctx.argv[i]);
  args.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv(path.c_str(), args.data());
  std::cerr << "hcpsim run: error: cannot start " << path << " (the multi-process runner, built with MPI): "
            << std::strerror(errno) << '\n';
  return 1;
}

}  // namespace hcpsim::cli
