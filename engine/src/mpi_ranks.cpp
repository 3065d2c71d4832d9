// Ranks over MPI_COMM_WORLD. MPI is called from the main thread only (the
// threads of a rank are the engine's workers), so MPI_THREAD_FUNNELED is
// all this asks for.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "melange/backend_table.hpp"
#include "melange/error.hpp"
#include "melange/ranks.hpp"

namespace melange {
namespace {

// Elements a single MPI call carries: MPI counts are ints, and pieces of
// this size keep rank 0's scratch at 8 MiB whatever the histogram (n = 10's
// 3,628,800 bins go in four).
constexpr std::size_t kPiece = std::size_t{1} << 20;
static_assert(kPiece <= static_cast<std::size_t>(INT_MAX));

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw Error(std::string("MPI ") + what + " failed");
}

class MpiRanks final : public Ranks {
 public:
  MpiRanks(int& argc, char**& argv) {
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "initialization");
    // Errors come back as codes, turned into exceptions, rather than ending
    // the job from inside the library.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "node split");
    MPI_Comm_rank(node, &node_rank_);
    MPI_Comm_free(&node);
  }
  ~MpiRanks() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int node_rank() const override { return node_rank_; }

  void sum_to_root(std::span<const std::uint64_t> local, std::span<std::uint64_t> total) override {
    std::vector<std::uint64_t> sum(rank_ == 0 ? std::min(kPiece, local.size()) : 0);
    for (std::size_t at = 0; at < local.size(); at += kPiece) {
      const std::size_t count = std::min(kPiece, local.size() - at);
      check(MPI_Reduce(local.data() + at, sum.data(), static_cast<int>(count), MPI_UINT64_T, MPI_SUM, 0,
                       MPI_COMM_WORLD),
            "reduce");
      if (rank_ == 0)
        for (std::size_t i = 0; i < count; ++i) total[at + i] += sum[i];
    }
  }

  void max_all(std::span<std::int64_t> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MAX,
                        MPI_COMM_WORLD),
          "allreduce");
  }

  void broadcast(std::span<std::uint64_t> values) override {
    check(MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD), "broadcast");
  }

  std::vector<std::uint64_t> all_to_all(const std::vector<std::vector<std::uint64_t>>& to_rank) override {
    // The counts first, then the words; MPI's counts and offsets are ints.
    std::vector<std::uint64_t> send_counts(static_cast<std::size_t>(size_)), recv_counts(send_counts.size());
    for (std::size_t r = 0; r < send_counts.size(); ++r) send_counts[r] = to_rank[r].size();
    check(MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, recv_counts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD),
          "all-to-all");
    std::vector<int> sc, sd, rc, rd;
    std::vector<std::uint64_t> send;
    std::uint64_t sent = 0, received = 0;
    for (std::size_t r = 0; r < send_counts.size(); ++r) {
      sc.push_back(static_cast<int>(send_counts[r]));
      sd.push_back(static_cast<int>(sent));
      rc.push_back(static_cast<int>(recv_counts[r]));
      rd.push_back(static_cast<int>(received));
      sent += send_counts[r];
      received += recv_counts[r];
      send.insert(send.end(), to_rank[r].begin(), to_rank[r].end());
    }
    if (sent > INT_MAX || received > INT_MAX)
      throw Error("MPI all-to-all of " + std::to_string(std::max(sent, received)) +
                  " words: more than one message carries; lower --memory-cap or add ranks");
    std::vector<std::uint64_t> out(received);
    check(MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_UINT64_T, out.data(), rc.data(), rd.data(),
                        MPI_UINT64_T, MPI_COMM_WORLD),
          "all-to-all");
    return out;
  }

 private:
  int rank_ = 0, size_ = 1, node_rank_ = 0;
};

}  // namespace

bool built_with_mpi() { return true; }

std::unique_ptr<Ranks> join_mpi(int& argc, char**& argv) {
  if (!launched_by_mpi()) return nullptr;
  auto ranks = std::make_unique<MpiRanks>(argc, argv);
  // Ranks on one node take its devices in turn.
  for (const BackendRow& row : backend_table())
    if (row.compiled) row.bind_node_rank(ranks->node_rank());
  return ranks;
}

}  // namespace melange
