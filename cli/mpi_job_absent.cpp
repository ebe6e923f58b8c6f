// join_mpi_job() for builds without MPI (HCPSIM_WITH_MPI=OFF or MPI not found).
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cli/mpi_job.h"

namespace hcpsim::cli {

bool launched_as_mpi_rank() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

std::unique_ptr<MpiJob> join_mpi_job(const std::string& command) {
  if (!launched_as_mpi_rank()) return nullptr;
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size == nullptr) size = std::getenv("PMI_SIZE");
  if (size != nullptr && std::atoi(size) <= 1) return nullptr;   // one rank: a plain run
  throw std::runtime_error("hcpsim " + command + " was started as one of several MPI ranks, but this hcpsim "
                           "was built without MPI, so every rank would run the whole " + command +
                           " and write the same files; rebuild with MPI (apt install libopenmpi-dev, cmake "
                           "-DHCPSIM_WITH_MPI=ON) or run it without mpirun");
}

int run_in_mpi_job(const std::string& command, const std::function<int(MpiJob*)>& body) {
  (void)join_mpi_job(command);   // refuses several ranks; one rank or none is a plain run
  return body(nullptr);
}

}  // namespace hcpsim::cli
