// Shares of a trial range, and the launcher check every build has; the MPI
// ranks themselves are in mpi_ranks.cpp, built only with MPI.
#include "melange/ranks.hpp"

#include <cstdlib>

#include "melange/error.hpp"

namespace melange {

Share share_of(std::uint64_t first, std::uint64_t trials, int rank, int ranks) {
  // floor(r * T / K) in 128 bits: r * T overflows 64 bits for large T.
  const auto start = [&](int r) {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(r) * trials / static_cast<unsigned>(ranks));
  };
  const std::uint64_t b = start(rank), e = start(rank + 1);
  return Share{first + b, e - b};
}

bool launched_by_mpi() {
  // Open MPI's mpirun, and PMI/PMIx launchers (Slurm's srun, MPICH's hydra).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

#ifndef MELANGE_HAVE_MPI
bool built_with_mpi() { return false; }

std::unique_ptr<Ranks> join_mpi(int&, char**&) {
  if (!launched_by_mpi()) return nullptr;
  throw Error("this melange was built without MPI, so its ranks would each run the whole job: rebuild with "
              "libopenmpi-dev installed, or run it without mpirun");
}
#endif

}  // namespace melange
