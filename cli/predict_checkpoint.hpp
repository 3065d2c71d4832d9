// `melange predict --checkpoint FILE` and `--resume FILE`: a long search
// saved as it goes (contract §6's promise for audits, kept for seeds). The
// file names the search (the records, the families and their ranges, what
// is dealt on: the MPI fingerprint) and, for each family, the seeds scanned
// so far, always a prefix of its range, and the matches they gave. A
// resumed search finds what an uninterrupted one finds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "team.hpp"

namespace melange::cli {

struct PredictProgress {
  // By family, in the search's order: the next seed to scan (past the
  // range's end: done) and the seeds found before it.
  struct Family {
    std::uint64_t next = 0;
    bool done = false;
    std::vector<std::uint64_t> found;
  };
  std::vector<Family> families;
};

// Writes the checkpoint atomically (a temporary renamed over the last).
void save_predict_checkpoint(const std::string& path, const Team::Fingerprint& search, const PredictProgress& progress);

// Reads a checkpoint of this very search; throws UsageError naming what
// differs for another search's file, Error for a damaged one.
PredictProgress read_predict_checkpoint(const std::string& path, const Team::Fingerprint& search);

}  // namespace melange::cli
