// melange: shuffle audits on counter-based streams.
//
// Exit status: 0 ran; 1 runtime error; 2 usage error; 3 --fail-on-bias and a
// test failed.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <string>

#include "command.hpp"
#include "exit_codes.hpp"
#include "job_args.hpp"
#include "melange/error.hpp"
#include "melange/version.hpp"
#include "output.hpp"
#include "signals.hpp"

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

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  while (!s.empty() && (s.back() == ' ' || s.back() == '.')) s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  melange::cli::signals::install();
  // Every command prints to standard output; with it closed, a file opened
  // later could take its descriptor and receive the text.
  if (::fcntl(STDOUT_FILENO, F_GETFD) == -1) {
    std::cerr << "melange: standard output is closed; redirect it to a file or a pipe\n";
    return kExitRuntime;
  }
  CLI::App app{
      "melange: millions to trillions of independent small shuffles on Philox4x32-10 streams,\n"
      "turned into permutation histograms, exact distributions and statistical verdicts.\n\n"
      "Bounded draws: --method batched by default (several exactly uniform draws per 32-bit word,\n"
      "the fewest words per shuffle); --method lemire reads a word a draw, as melange 0.1 did.\n\n"
      "Exit status: 0 ran; 1 runtime error; 2 usage error; 3 --fail-on-bias and a test failed;\n"
      "128 + N stopped by signal N (130: SIGINT).",
      "melange"};
  app.set_version_flag("--version", std::string("melange ") + melange::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  melange::cli::Action action;
  melange::cli::add_stream_commands(app, action);
  melange::cli::add_audit_command(app, action);
  melange::cli::add_exact_command(app, action);
  melange::cli::add_sample_command(app, action);
  melange::cli::add_reach_command(app, action);
  melange::cli::add_reproduce_command(app, action);
  melange::cli::add_version_command(app, action);
  // No option takes an empty value: "--seed ''" is an error, not the default.
  for (CLI::App* sub : app.get_subcommands({}))
    for (CLI::Option* option : sub->get_options())
      if (option->get_type_size() != 0) melange::cli::nonempty(option);

  if (const char* word = unknown_command(app, argc, argv)) {
    std::cerr << "melange: unknown command '" << word << "'; run 'melange --help' for the list\n";
    return kExitUsage;
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
    std::cerr << "melange: " << one_line(e.what()) << "; " << help_hint(app, argc, argv) << "\n";
    return kExitUsage;
  }

  try {
    const int status = action ? action() : 0;
    melange::cli::check_stdout();
    return status;
  } catch (const melange::UsageError& e) {
    // The library names its parameters; say them as this command's flags.
    const std::string command = command_of(app, argc, argv);
    const std::string message =
        e.render([&](melange::Param p) { return melange::cli::flag_for(command, p); });
    std::cerr << "melange: " << one_line(message) << "; " << help_hint(app, argc, argv) << "\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "melange: out of memory; ask for fewer trials or a smaller histogram\n";
    return kExitRuntime;
  } catch (const std::exception& e) {
    std::cerr << "melange: " << one_line(e.what()) << "\n";
    return kExitRuntime;
  } catch (...) {
    std::cerr << "melange: internal error (unknown exception)\n";
    return kExitRuntime;
  }
}
