#include "team.hpp"

#include <array>
#include <iostream>

namespace melange::cli {
namespace {

void print(const std::string& message) {
  if (!message.empty()) std::cerr << message << "\n";
}

}  // namespace

void Team::agree(const Fingerprint& fingerprint) {
  if (!ranks_) return;
  // The same collective the failed ranks make in conclude(): the worst
  // status, and which rank failed first.
  std::array<std::int64_t, 2> worst{0, 0};
  ranks_->max_all(worst);
  if (worst[0] != 0) {
    state_ = State::stopped;
    stop_status_ = static_cast<int>(worst[0]);
    throw TeamStop{stop_status_};
  }
  // Every rank passed its own checks; now they check that they run one
  // job. Before this, a rank given another n would reduce tallies of
  // another size (a corrupted heap, a hang), and another seed a mixed result.
  std::vector<std::uint64_t> values(fingerprint.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = fingerprint[i].second;
  ranks_->broadcast(values);
  std::size_t differs = fingerprint.size();
  for (std::size_t i = 0; i < fingerprint.size() && differs == fingerprint.size(); ++i)
    if (values[i] != fingerprint[i].second) differs = i;
  const int size = ranks_->size(), rank = ranks_->rank();
  // The lowest rank that differs says so, naming the first field.
  std::array<std::int64_t, 1> speaker{differs < fingerprint.size() ? size - rank : 0};
  ranks_->max_all(speaker);
  if (speaker[0] != 0) {
    state_ = State::stopped;
    stop_status_ = 2;
    if (size - rank == speaker[0])
      print("melange: the MPI ranks were given different jobs: rank " + std::to_string(rank) + " has " +
            fingerprint[differs].first + " " + std::to_string(fingerprint[differs].second) + " where rank 0 has " +
            std::to_string(values[differs]) + "; give every rank the same command line");
    throw TeamStop{stop_status_};
  }
  state_ = State::agreed;
}

int Team::conclude(int status, const std::string& message) {
  if (!ranks_ || ranks_->broken()) {
    // One process; or ranks that already know together that one failed,
    // where only the failed one has a message.
    print(message);
    return status;
  }
  switch (state_) {
    case State::stopped:
      return stop_status_;
    case State::checking: {
      // This rank failed before the work (every rank that did comes here);
      // the others wait in agree().
      const int size = ranks_->size(), rank = ranks_->rank();
      std::array<std::int64_t, 2> worst{status, status != 0 ? size - rank : 0};
      ranks_->max_all(worst);
      if (status != 0 && size - rank == worst[1]) print(message);
      return static_cast<int>(worst[0]);
    }
    case State::agreed: {
      std::array<std::uint64_t, 1> root_status{static_cast<std::uint64_t>(status)};
      ranks_->broadcast(root_status);
      print(message);
      return static_cast<int>(root_status[0]);
    }
  }
  return status;
}

}  // namespace melange::cli
