// Options shared by the commands that run shuffles (audit, sample, exact).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "melange/backend_table.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/job.hpp"

namespace melange::cli {

struct JobArgs {
  std::string algo = "fisher-yates";
  int n = 4;
  int k = 0;  // partial: items dealt (0: not given)
  std::string weights;  // the weighted orders: "1,2.5,4" or a file of them
  // The card shuffles' parameters (card_parameters(): --riffles,
  // --shelves, --passes), each as given; 0: not given.
  std::map<Param, int> cards;
  std::string trials = "1e6";
  std::string seed;   // empty: kDefaultSeed
  std::string first = "0";
  std::string method = "batched";
  int bits = 32;
  std::string threads;  // empty: one per hardware thread
  std::string backend = "auto";
  std::string json;
};

// Adds --algo, --n, --seed, --method, --bits; the others only when asked.
struct JobOptionSet {
  bool trials = true, seed = true, first = true, threads = true, backend = true;
};
void add_job_options(CLI::App* cmd, JobArgs& a, JobOptionSet which = {});
// Adds a flag for each card parameter of the algorithm table (--riffles,
// --shelves, --passes) alone (add_job_options adds them too).
void add_card_options(CLI::App* cmd, JobArgs& a);
// A card shuffle's parameters as flags: " --riffles K", " --shelves M
// --passes P"; empty for every other algorithm.
std::string card_flags(const Job& job);
// A word for a "reproduce with" line: as it is where it holds only what
// no shell reads, else in single quotes.
std::string shell_word(const std::string& s);
// Sets the job's card parameters from the flags, each one left out as the
// algorithm's row says (a shelf machine makes one pass).
void apply_card_args(const JobArgs& a, Job& job);

// The names of a table's values (kAllAlgorithms, kAllMethods), for "did
// you mean" and for the completions.
template <class Values, class Name>
std::vector<std::string> names_of(const Values& values, Name name) {
  std::vector<std::string> names;
  for (auto v : values) names.emplace_back(name(v));
  return names;
}

Algorithm parse_algorithm_arg(const std::string& name);
BoundedSpec parse_spec_args(const JobArgs& a);
// --weights as written: the list's entries, or a file's (commas, spaces or
// lines between them). Empty when not given.
std::vector<std::string> weight_texts(const JobArgs& a);
// The same as exact rationals, each checked (a number, above 0).
std::vector<Rational> weight_rationals(const JobArgs& a);

// The job described by the arguments, not yet validated.
Job make_job(const JobArgs& a, const std::string& trials_flag = "--trials");
int thread_count(const JobArgs& a);
// --threads as given by a command that takes no job (empty: every hardware thread).
int thread_count(const std::string& threads);
// The --backend value, checked against the engine's backend table.
std::string backend_arg(const JobArgs& a);

// The flag that sets a library parameter in `command` ("--count" for the
// trials of `sample`), for the library's error messages.
std::string flag_for(const std::string& command, Param p);

}  // namespace melange::cli
