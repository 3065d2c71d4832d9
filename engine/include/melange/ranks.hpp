// The processes that run one job together (contract §6). A job on
// one process has no Ranks at all (a null pointer); MPI ranks are the one
// implementation, built when CMake finds MPI. Rank r runs its share of the
// trial range; the tallies are summed at rank 0, which alone reports.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "melange/error.hpp"

namespace melange {

// What the ranks that did not fail throw when another one failed during a
// run (which says why itself).
class RanksFailed : public Error {
 public:
  RanksFailed() : Error("another rank failed") {}
};

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank's place among the ranks on its node: which GPU it takes.
  virtual int node_rank() const = 0;

  // At rank 0, total[i] += the sum over every rank of local[i]; `total` is
  // not touched on the other ranks. Collective: every rank calls it.
  virtual void sum_to_root(std::span<const std::uint64_t> local, std::span<std::uint64_t> total) = 0;
  // Every rank gets, element by element, the largest value any rank gave.
  virtual void max_all(std::span<std::int64_t> values) = 0;
  // Every rank gets rank 0's values.
  virtual void broadcast(std::span<std::uint64_t> values) = 0;
  // Each rank sends to_rank[r] to rank r and gets what every rank sent it,
  // in rank order: keys partitioned across the ranks (a cluster holds what
  // one machine cannot). to_rank has size() entries.
  virtual std::vector<std::uint64_t> all_to_all(const std::vector<std::vector<std::uint64_t>>& to_rank) = 0;

  // Set once the ranks know together that one of them failed: no
  // collective call may follow, and each rank ends on its own.
  void mark_broken() { broken_ = true; }
  bool broken() const { return broken_; }

 private:
  bool broken_ = false;
};

// The trials [first, first + trials) of one rank of `ranks`: rank r's share
// starts floor(r * trials / ranks) into the range, so the shares are
// contiguous, in rank order, and cover the range exactly.
struct Share {
  std::uint64_t first = 0;
  std::uint64_t trials = 0;
};
Share share_of(std::uint64_t first, std::uint64_t trials, int rank, int ranks);

// Whether an MPI launcher (mpirun, srun) started this process.
bool launched_by_mpi();
// Whether this build has MPI.
bool built_with_mpi();

// Joins the MPI job this process was launched in (MPI_Init), or returns
// nullptr when no launcher started it. Throws Error when one did but this
// build has no MPI. MPI_Finalize runs when the object goes.
std::unique_ptr<Ranks> join_mpi(int& argc, char**& argv);

}  // namespace melange
