// The help's conventions, the man page and the shell completions, made from
// the option tables the commands register: a flag added to a command shows
// up in all of them without being listed again.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "command.hpp"

namespace melange::cli {

// Names each option's value in the help and the man page (N, COUNT,
// BYTES, FILE: kValueRows in manual.cpp). An option without a row keeps
// CLI11's TEXT or INT, which tests/manual_test.sh looks for.
void name_placeholders(CLI::App& app);

// Appends "Examples:" to each command's help (kExamples in manual.cpp).
void add_examples(CLI::App& app);

// Every command's examples, as shell lines ("melange audit deals.txt").
std::vector<std::string> example_lines();

// `melange completion bash|zsh|fish` and `melange man`, which describe
// `app` as it stands when they run.
void add_manual_commands(CLI::App& app, Action& action);

// The man page of `app`, in roff, and a completion script for `shell`.
std::string man_page(const CLI::App& app);
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace melange::cli
