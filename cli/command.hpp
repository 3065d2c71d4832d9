// Each subcommand registers its options on the app and, when chosen, leaves
// the work to do in `action`. Commands only parse and print; the work is done
// by the library.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace melange::cli {

using Action = std::function<int()>;

// Refuses an empty value ("--seed ''"): an empty option is never the same as
// one left out.
inline CLI::Option* nonempty(CLI::Option* option) {
  return option->check(CLI::Validator(
      [](std::string& value) { return value.empty() ? std::string("needs a value, got ''") : std::string(); },
      "", "NONEMPTY"));
}

void add_stream_commands(CLI::App& app, Action& action);   // words, bounded
void add_version_command(CLI::App& app, Action& action);   // version
class Team;
void add_audit_command(CLI::App& app, Action& action, Team& team);
void add_merge_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_exact_command(CLI::App& app, Action& action);
void add_sample_command(CLI::App& app, Action& action);
void add_reach_command(CLI::App& app, Action& action);
void add_predict_command(CLI::App& app, Action& action, Team& team);
void add_reproduce_command(CLI::App& app, Action& action);

}  // namespace melange::cli
