// melange: shuffle audits on counter-based streams.
//
// Exit status: 0 ran; 1 runtime error; 2 usage error; 3 --fail-on-bias and a
// test failed.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "exit_codes.hpp"
#include "job_args.hpp"
#include "manual.hpp"
#include "melange/error.hpp"
#include "melange/ranks.hpp"
#include "melange/version.hpp"
#include "suggest.hpp"
#include "output.hpp"
#include "signals.hpp"
#include "stdin_check.hpp"
#include "team.hpp"

namespace {

using melange::cli::kExitRuntime;
using melange::cli::kExitUsage;


// The subcommand a command line was aimed at ("" when none).
std::string command_of(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == argv[i]) return sub->get_name();
    break;
  }
  return "";
}

std::string help_hint(const CLI::App& app, int argc, char** argv) {
  const std::string command = command_of(app, argc, argv);
  return command.empty() ? "run 'melange --help'" : "run 'melange " + command + " --help'";
}

// "Did you mean" for the first option the command does not know:
// --trails for --trials, -n for --n.
std::string flag_suggestion(const CLI::App& app, int argc, char** argv) {
  const std::string command = command_of(app, argc, argv);
  if (command.empty()) return "";
  const CLI::App* sub = app.get_subcommand(command);
  std::vector<std::string> flags;
  for (const CLI::Option* o : sub->get_options())
    for (const std::string& name : o->get_lnames()) flags.push_back("--" + name);
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.size() < 2 || word[0] != '-') continue;
    if (const auto eq = word.find('='); eq != std::string::npos) word.resize(eq);
    if (std::find(flags.begin(), flags.end(), word) != flags.end() || word == "--help" || word == "-h") continue;
    // A single dash is a long flag mistyped: -n for --n.
    const std::string as_long = word[1] == '-' ? word : "-" + word;
    if (std::find(flags.begin(), flags.end(), as_long) != flags.end()) return " (did you mean '" + as_long + "'?)";
    return melange::cli::did_you_mean(word, flags);
  }
  return "";
}

// The first word that is not an option, when it names no command.
const char* unknown_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') return nullptr;  // options first: let the parser speak
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == argv[i]) return nullptr;
    return argv[i];
  }
  return nullptr;
}

// A message on one line, every word of it (a value as given, a path) cut
// to kWordChars: a 120 KB bad value is named, not echoed whole.
constexpr std::size_t kWordChars = 80;

std::string one_line(const std::string& text) {
  std::string s;
  std::size_t word = 0;
  for (char c : text) {
    if (c == '\n') c = ' ';
    word = c == ' ' ? 0 : word + 1;
    if (word <= kWordChars) s += c;
    else if (word == kWordChars + 1) s += "...(cut)";
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '.')) s.pop_back();
  return s;
}

// This process's rank as its launcher gives it, before MPI is joined; 0
// when none does.
bool first_rank_by_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* v = std::getenv(name)) return std::strcmp(v, "0") == 0;
  return true;
}

// Whether the command line could mean records on standard input: `audit`
// with no input named and no built-in job of its own (--algo, --trials).
// `audit -` reads them; any other command line leaves them be.
bool may_mean_stdin(const CLI::App& app, const std::string& command) {
  if (command != "audit") return false;
  const CLI::App* audit = app.get_subcommand("audit");
  for (const char* name : {"--input", "file", "--algo", "--trials"})
    if (audit->get_option(name)->count() > 0) return false;
  return true;
}

// The commands that split their work over MPI ranks; the others run in one
// process and are refused under mpirun rather than run once a rank.
bool runs_on_ranks(const std::string& command) { return command == "audit" || command == "predict"; }

// Every command, and what every command's options share: no empty
// values, --quiet, placeholders, examples.
void add_commands(CLI::App& app, melange::cli::Action& action, melange::cli::Team& team) {
  melange::cli::add_stream_commands(app, action);
  melange::cli::add_audit_command(app, action, team);
  melange::cli::add_merge_command(app, action);
  melange::cli::add_bench_command(app, action);
  melange::cli::add_exact_command(app, action);
  melange::cli::add_sample_command(app, action);
  melange::cli::add_reach_command(app, action);
  melange::cli::add_predict_command(app, action, team);
  melange::cli::add_reproduce_command(app, action);
  melange::cli::add_version_command(app, action);
  melange::cli::add_manual_commands(app, action);
  // No option takes an empty value: "--seed ''" is an error, not the default.
  for (CLI::App* sub : app.get_subcommands({}))
    for (CLI::Option* option : sub->get_options())
      if (option->get_type_size() != 0) melange::cli::nonempty(option);

  // --quiet is accepted by every command (a script may pass it to all):
  // where a command prints no progress line it changes nothing.
  for (CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_option_no_throw("--quiet"))
      sub->add_flag("--quiet")->description("accepted for scripts; this command prints no progress line");
  melange::cli::name_placeholders(app);
  melange::cli::add_examples(app);
}

// Runs the parsed command; its exit status and what to say (empty: nothing).
std::pair<int, std::string> run_command(const CLI::App& app, melange::cli::Action& action, melange::cli::Team& team,
                                        const std::string& command, int argc, char** argv) {
  int status = 0;
  std::string message;
  try {
    if (team.many() && !runs_on_ranks(command))
      throw melange::UsageError("'melange " + command + "' runs in one process (audit splits its trials over MPI "
                                "ranks, predict its seeds): run it without mpirun");
    if (may_mean_stdin(app, command)) melange::cli::refuse_piped_stdin();
    status = action ? action() : 0;
    melange::cli::check_stdout();
  } catch (const melange::cli::TeamStop& stop) {
    status = stop.status;  // another rank failed its checks and says why
  } catch (const melange::RanksFailed&) {
    status = kExitRuntime;  // another rank failed during the run and says why
  } catch (const melange::UsageError& e) {
    // The library names its parameters; say them as this command's flags.
    const std::string text = e.render([&](melange::Param p) { return melange::cli::flag_for(command, p); });
    status = kExitUsage;
    message = "melange: " + one_line(text) + "; " + help_hint(app, argc, argv);
  } catch (const std::bad_alloc&) {
    status = kExitRuntime;
    message = "melange: out of memory; ask for fewer trials or a smaller histogram";
  } catch (const melange::Error& e) {
    status = kExitRuntime;
    message = "melange: " + one_line(e.render([&](melange::Param p) { return melange::cli::flag_for(command, p); }));
  } catch (const std::exception& e) {
    status = kExitRuntime;
    message = "melange: " + one_line(e.what());
  } catch (...) {
    status = kExitRuntime;
    message = "melange: internal error (unknown exception)";
  }
  return {status, message};
}

}  // namespace

int main(int argc, char** argv) {
  melange::cli::signals::install();
  melange::cli::use_stdout_buffer();
  // Every command prints to standard output; with it closed, a file opened
  // later could take its descriptor and receive the text.
  if (::fcntl(STDOUT_FILENO, F_GETFD) == -1) {
    std::cerr << "melange: standard output is closed; redirect it to a file or a pipe\n";
    return kExitRuntime;
  }
  // Under mpirun every rank joins first: MPI may take its own arguments.
  std::unique_ptr<melange::Ranks> ranks;
  try {
    ranks = melange::join_mpi(argc, argv);
  } catch (const std::exception& e) {
    if (first_rank_by_launcher()) std::cerr << "melange: " << one_line(e.what()) << "\n";
    return kExitUsage;
  }
  melange::cli::Team team(ranks.get());

  CLI::App app{
      "melange: millions to trillions of independent small shuffles on Philox4x32-10 streams,\n"
      "turned into permutation histograms, exact distributions and statistical verdicts.\n\n"
      "Bounded draws: --method batched by default (several exactly uniform draws per 32-bit word,\n"
      "the fewest words per shuffle); --method lemire reads a word a draw, as melange 0.1 did.\n\n"
      "Exit status: 0 ran; 1 runtime error; 2 usage error; 3 --fail-on-bias and a test failed;\n"
      "128 + N stopped by signal N (130: SIGINT, 143: SIGTERM).",
      "melange"};
  app.set_version_flag("--version", std::string("melange ") + melange::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  melange::cli::Action action;
  add_commands(app, action, team);

  if (const char* word = unknown_command(app, argc, argv)) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
    const std::string message = "melange: unknown command '" + std::string(word) + "'" +
                                melange::cli::did_you_mean(word, commands) + "; run 'melange --help' for the list";
    return team.conclude(kExitUsage, message);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return team.conclude(kExitUsage,
                         "melange: " + one_line(e.what()) + flag_suggestion(app, argc, argv) + "; " +
                             help_hint(app, argc, argv));
  }

  const std::string command = command_of(app, argc, argv);
  const auto [status, message] = run_command(app, action, team, command, argc, argv);
  return team.conclude(status, message);
}
