// How the ranks of an MPI job run one command and end it together (contract
// §6). Every rank parses and checks the same command line; before any
// work they agree that every rank's checks passed, and at the end rank 0's
// exit status is every rank's. At most one line is printed for a failure:
// by rank 0, or by the lowest rank that failed when rank 0 did not.
//
// Without MPI (no Ranks) a Team is one process and changes nothing.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "melange/ranks.hpp"

namespace melange::cli {

// What a rank whose checks passed throws when another rank's did not: it
// ends with the team's status and prints nothing.
struct TeamStop {
  int status = 0;
};

class Team {
 public:
  explicit Team(Ranks* ranks = nullptr) : ranks_(ranks) {}

  Ranks* ranks() const { return ranks_; }
  // True under MPI, whatever the rank count.
  bool many() const { return ranks_ != nullptr; }
  bool root() const { return !ranks_ || ranks_->rank() == 0; }
  int size() const { return ranks_ ? ranks_->size() : 1; }

  // What every rank must run alike, field by field: the fields that define
  // a job's bits and tallies, and those that decide when the ranks meet
  // (checkpoint saves). The same list of names on every rank; the values
  // are compared with rank 0's.
  using Fingerprint = std::vector<std::pair<std::string, std::uint64_t>>;

  // Called by a command when its checks have passed, before any work;
  // throws TeamStop when another rank's failed, or when a rank was given a
  // different `fingerprint` from rank 0's (exit 2 on every rank, one line
  // naming the field).
  void agree(const Fingerprint& fingerprint = {});

  // Ends the command on this rank: prints `message` (a failure, one line)
  // where it falls to this rank to, and returns the status to exit with.
  int conclude(int status, const std::string& message);

 private:
  enum class State { checking, agreed, stopped };
  Ranks* ranks_ = nullptr;
  State state_ = State::checking;
  int stop_status_ = 0;
};

}  // namespace melange::cli
