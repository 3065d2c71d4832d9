#include "job_args.hpp"

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "melange/error.hpp"
#include "melange/job_fields.hpp"
#include "list_args.hpp"
#include "suggest.hpp"
#include "parse.hpp"

namespace melange::cli {

void add_card_options(CLI::App* cmd, JobArgs& a) {
  for (const CardParameter* c : card_parameters()) {
    const std::string flag = flag_for(cmd->get_name(), c->param);
    std::string help = takers_of(c->param) + ": " + std::string(c->what) + ", " + std::to_string(c->low) + ".." +
                       std::to_string(c->high);
    if (c->when_not_given) help += " (default " + std::to_string(c->when_not_given) + ")";
    CLI::Option* option = cmd->add_option(flag, a.cards[c->param], help);
    // Left out, it is the row's default; given, it is in range (0 would
    // otherwise read as left out).
    if (c->when_not_given)
      option->check(CLI::Validator(
          [c](std::string& v) {
            char* end = nullptr;
            const long long given = std::strtoll(v.c_str(), &end, 10);
            return end != v.c_str() && *end == '\0' && given == 0
                       ? "takes " + std::to_string(c->low) + " to " + std::to_string(c->high) + " (" +
                             std::string(c->what) + "), not 0"
                       : std::string();
          },
          "", "at least " + std::to_string(c->low)));
  }
}

std::string card_flags(const Job& job) {
  std::string flags;
  const Shape s = shape_of(job);
  for (const CardParameter* c : card_parameters())
    if (takes(job.algorithm, c->param) && s.*(c->field) != 0)
      flags += " " + flag_for("", c->param) + " " + std::to_string(s.*(c->field));
  return flags;
}

std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789-_./,=:+@%") == std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void apply_card_args(const JobArgs& a, Job& job) {
  for (const CardParameter* c : card_parameters()) {
    const auto given = a.cards.find(c->param);
    const int value = given != a.cards.end() && given->second != 0 ? given->second
                                                                    : default_card_parameter(job.algorithm, c->param);
    // Through the job-field row; a negative value comes back as it was
    // (modular conversion), for the check that names it.
    job_field_for(c->param)->set_whole(job, static_cast<std::uint64_t>(value));
  }
}

void add_job_options(CLI::App* cmd, JobArgs& a, JobOptionSet which) {
  cmd->add_option("--algo", a.algo, algorithm_names(" | "))
      ->capture_default_str();
  cmd->add_option("--n", a.n, "items to shuffle")->capture_default_str();
  cmd->add_option("--k", a.k, "partial: deal k of the n items, 1 <= k <= n (the last k positions, in order)")
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.find_first_not_of("0123456789") == std::string::npos && value.find_first_not_of('0') != std::string::npos
                       ? std::string()
                       : "takes 1 <= k <= n, such as --n 52 --k 5; got '" + value + "'";
          },
          "", "K"));
  add_card_options(cmd, a);
  cmd->add_option("--weights", a.weights,
                  "weighted, weighted-int-power: one weight per item, finite and > 0, as '1,2.5,4' or a FILE of them");
  if (which.trials)
    cmd->add_option("--trials", a.trials, "trials to run (1e6 notation works)")
        ->capture_default_str();
  if (which.seed)
    cmd->add_option("--seed", a.seed, "64-bit job seed, decimal or 0x hex (default: fixed, printed)");
  if (which.first)
    cmd->add_option("--first", a.first, "global index of the first trial (trial t uses stream t; 1e6 notation works)")
        ->capture_default_str();
  cmd->add_option("--method", a.method,
                  "bounded-integer method: " + method_names(" | ") +
                      ". batched is the default: the same exactly uniform draws from the fewest words "
                      "(several per word, comparator coins 24 a word); lemire reads one word a draw, "
                      "as melange 0.1 did")
      ->capture_default_str();
  cmd->add_option("--bits", a.bits,
                  "source width in bits, 1..32 (narrow sources show modulo bias; batched needs 32)")
      ->capture_default_str();
  if (which.threads)
    cmd->add_option("--threads", a.threads, "worker threads (default: one per hardware thread)");
  if (which.backend)
    cmd->add_option("--backend", a.backend,
                    backend_choices(" | ") + " (an architecture pins the simd backend to it)")
        ->capture_default_str();
}


Algorithm parse_algorithm_arg(const std::string& name) {
  if (auto a = parse_algorithm(name)) return *a;
  throw UsageError("unknown --algo '" + name + "'" + did_you_mean(name, names_of(kAllAlgorithms, algorithm_name)) + ": use " +
                   algorithm_names(", "));
}

BoundedSpec parse_spec_args(const JobArgs& a) {
  const auto m = parse_method(a.method);
  if (!m)
    throw UsageError("unknown --method '" + a.method + "'" + did_you_mean(a.method, names_of(kAllMethods, method_name)) +
                     ": use " + method_names(", "));
  return BoundedSpec{*m, a.bits};
}

std::vector<std::string> weight_texts(const JobArgs& a) {
  if (a.weights.empty()) return {};
  // One weight an item, each a short decimal: a larger file is no list of
  // weights, and is refused before it is read.
  const std::size_t most = static_cast<std::size_t>(max_items(Algorithm::weighted));
  constexpr std::uint64_t kBytesAWeight = 64;
  std::string list = a.weights;
  std::error_code ec;
  if (std::filesystem::is_regular_file(a.weights, ec)) {
    list = read_list_file(a.weights, "--weights", most * kBytesAWeight);
  } else if (a.weights.find_first_of(",0123456789") == std::string::npos) {
    throw UsageError("--weights '" + a.weights + "' is neither a list such as 1,2.5,4 nor a file");
  }
  std::vector<std::string> out = split_list(list, "--weights", most, true);
  if (out.empty()) throw UsageError("--weights is empty: give one weight per item, such as 1,2,3,4");
  return out;
}

std::vector<Rational> weight_rationals(const JobArgs& a) {
  std::vector<Rational> out;
  for (const std::string& t : weight_texts(a)) {
    try {
      out.push_back(decimal_rational(t));
    } catch (const UsageError&) {
      throw UsageError("--weights entry '" + t + "' is not a number above 0 (such as 2.5 or 1e-3): fix it");
    }
  }
  return out;
}

Job make_job(const JobArgs& a, const std::string& trials_flag) {
  Job job;
  job.algorithm = parse_algorithm_arg(a.algo);
  job.spec = parse_spec_args(a);
  job.n = a.n;
  job.k = a.k;
  apply_card_args(a, job);
  for (const Rational& w : weight_rationals(a)) {
    const double v = static_cast<double>(w);
    if (!std::isfinite(v) || v <= 0) throw UsageError("--weights entry " + w.str() + " is out of a double's range: "
                                                      "scale the weights");
    job.weights.push_back(v);
  }
  job.seed = a.seed.empty() ? kDefaultSeed : parse_seed(a.seed);
  job.first = parse_index(a.first, "--first");
  job.trials = parse_count(a.trials, trials_flag, ~std::uint64_t{0});
  return job;
}

int thread_count(const JobArgs& a) { return thread_count(a.threads); }

int thread_count(const std::string& threads) {
  if (threads.empty()) return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string must = "--threads must be a whole number from 1 to " + std::to_string(kMaxThreads) +
                           ", got '" + threads + "'";
  std::uint64_t k = 0;
  try {
    k = parse_count(threads, "--threads", kMaxThreads);
  } catch (const UsageError&) {
    throw UsageError(must);
  }
  if (k < 1) throw UsageError(must);
  return static_cast<int>(k);
}

std::string backend_arg(const JobArgs& a) {
  for (const std::string& choice : backend_choice_list())
    if (choice == a.backend) return a.backend;
  throw UsageError("unknown --backend '" + a.backend + "': use " + backend_choices(", "));
}

std::string flag_for(const std::string& command, Param p) {
  if (p == Param::trials && command == "sample") return "--count";
  if (p == Param::position_matrix) return "--position";
  if (p == Param::hand_histogram) return "--hands";
  if (p == Param::algorithm) return "--algo";
  if (p == Param::lags) return "--lag";
  std::string flag = "--" + std::string(param_name(p));
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

}  // namespace melange::cli
