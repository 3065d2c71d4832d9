#include "manual.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <string_view>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/predict/families.hpp"
#include "melange/records.hpp"
#include "melange/version.hpp"
#include "job_args.hpp"
#include "output.hpp"

namespace melange::cli {
namespace {

// ---- option values: their names and what completes them -------------------

enum class Complete : std::uint8_t { none, file, folder, choices };

std::vector<std::string> algorithm_choices() { return names_of(kAllAlgorithms, algorithm_name); }
std::vector<std::string> method_choices() { return names_of(kAllMethods, method_name); }
std::vector<std::string> format_choices() {
  return names_of(kRecordFormats, [](const RecordFormatRow& row) { return row.name; });
}
std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  std::istringstream words(backend_choices(" "));
  for (std::string w; words >> w;) names.push_back(w);
  return names;
}
std::vector<std::string> clock_unit_choices() { return {"s", "ms", "us"}; }

std::vector<std::string> family_choices() {
  std::vector<std::string> names;
  for (const predict::FamilyRow& f : predict::families()) names.emplace_back(f.name);
  return names;
}
std::vector<std::string> shell_choices() { return {"bash", "zsh", "fish"}; }
std::vector<std::string> mode_choices() { return {"audit", "sample"}; }
std::vector<std::string> model_choices() { return {"exact", "plackett-luce"}; }

// What an option's value is called in the help, and how a shell completes
// it. A flag's row serves every command; "bench --n" is bench's own.
struct ValueRow {
  std::string_view flag;
  std::string_view placeholder;
  Complete complete = Complete::none;
  std::vector<std::string> (*choices)() = nullptr;
};
const ValueRow kValueRows[] = {
    {"--algo", "NAME", Complete::choices, algorithm_choices},
    {"bench --algo", "NAME,...", Complete::choices, algorithm_choices},
    {"--n", "N"},
    {"bench --n", "N,..."},
    {"--k", "K"},
    {"--riffles", "K"},
    {"--shelves", "M"},
    {"--passes", "P"},
    {"--deal", "K"},
    {"predict --deal", "SEED"},
    {"predict --seeds", "LO..HI"},
    {"--clock", "FROM..TO"},
    {"--clock-unit", "UNIT", Complete::choices, clock_unit_choices},
    {"--reseed-window", "W"},
    {"--predict-seconds", "S"},
    {"--family", "NAME,...", Complete::choices, family_choices},
    {"--next", "K"},
    {"--weights", "LIST|FILE", Complete::file},
    {"--trials", "COUNT"},
    {"--count", "COUNT"},
    {"--seeds", "COUNT"},
    {"--seed", "SEED"},
    {"--first", "INDEX"},
    {"--stream", "INDEX"},
    {"--range", "N"},
    {"--method", "NAME", Complete::choices, method_choices},
    {"--bits", "BITS"},
    {"--state-bits", "BITS"},
    {"--threads", "COUNT"},
    {"bench --threads", "COUNT,..."},
    {"--backend", "NAME", Complete::choices, backend_names},
    {"bench --backend", "NAME,...", Complete::choices, backend_names},
    {"--model", "exact|plackett-luce|FILE", Complete::file, model_choices},
    {"--memory-cap", "BYTES"},
    {"--weak", "P"},
    {"--fail", "P"},
    {"--alpha", "P"},
    {"--json", "FILE", Complete::file},
    {"--svg", "FILE", Complete::file},
    {"--csv", "FILE", Complete::file},
    {"--output", "FILE", Complete::file},
    {"--report", "DIR", Complete::folder},
    {"--input", "FILE", Complete::file},
    {"file", "FILE", Complete::file},
    {"files", "FILE", Complete::file},
    {"--labels", "cards|LIST|FILE", Complete::file},
    {"--format", "FORMAT", Complete::choices, format_choices},
    {"--base", "0|1"},
    {"--lag", "L"},
    {"--checkpoint", "FILE", Complete::file},
    {"--resume", "FILE", Complete::file},
    {"--checkpoint-every", "SECONDS"},
    {"--seconds", "SECONDS"},
    {"--mode", "MODE", Complete::choices, mode_choices},
    {"shell", "SHELL", Complete::choices, shell_choices},
};

// The option's name as the rows key it: "--algo", or "file" for a positional.
std::string option_key(const CLI::Option& o) {
  return o.get_lnames().empty() ? o.get_name() : "--" + o.get_lnames().front();
}

const ValueRow* value_row(const std::string& command, const CLI::Option& o) {
  const std::string key = option_key(o);
  const ValueRow* shared = nullptr;
  for (const ValueRow& row : kValueRows) {
    if (row.flag == command + " " + key) return &row;
    if (row.flag == key) shared = &row;
  }
  return shared;
}

bool takes_value(const CLI::Option& o) { return o.get_type_size() != 0; }
bool hidden(const CLI::Option& o) { return o.get_group().empty(); }

std::vector<const CLI::App*> commands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty()) out.push_back(sub);
  return out;
}

std::vector<const CLI::Option*> shown_options(const CLI::App& command) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : command.get_options())
    if (!hidden(*o)) out.push_back(o);
  return out;
}

// ---- examples ----------------------------------------------------------------

// Each runs as written in a folder holding deals.txt (records of 4 items,
// one a line): tests/manual_test.sh runs them all.
struct Example {
  std::string_view command;
  std::string_view line;
  std::string_view what;
};
const Example kExamples[] = {
    {"words", "melange words --count 8", "the default stream's first 8 words"},
    {"words", "melange words --seed 0 --stream 7 --count 4 --json -", "stream 7 of seed 0, as JSON"},
    {"bounded", "melange bounded --range 52 --count 10", "ten draws from 0..51"},
    {"bounded", "melange bounded --range 6 --count 12 --method lemire", "dice, one word a draw"},
    {"audit", "melange audit deals.txt", "audit a file of shuffles (n, base and format read from it)"},
    {"audit", "cat deals.txt | melange audit -", "the same records from a pipe"},
    {"audit", "melange audit --algo naive-swap --n 4 --trials 1e6", "the classic broken shuffle: FAIL"},
    {"audit", "melange audit --algo partial --n 52 --k 5 --hands --trials 1e5 --json deals.json",
     "poker deals, with hands and categories"},
    {"merge",
     "melange audit --n 5 --trials 1e5 --json a.json && melange audit --n 5 --trials 1e5 --first 1e5 --json b.json "
     "&& melange merge a.json b.json",
     "two halves of one job, merged"},
    {"bench", "melange bench --algo fisher-yates --n 52 --seconds 2", "shuffles/s beside std::shuffle"},
    {"bench", "melange bench --algo riffle --riffles 7 --n 52 --mode sample --seconds 2",
     "seven riffles of a deck, written as rows"},
    {"exact", "melange exact --algo naive-swap --n 4", "every order's exact probability"},
    {"exact", "melange exact --algo naive-swap --n 5 --json naive5.json && melange audit --algo naive-swap --n 5 --model naive5.json",
     "test runs against the exact law"},
    {"sample", "melange sample --n 52 --count 3", "three shuffled decks"},
    {"sample", "melange sample --n 10 --count 1e5 --format npy --output perms.npy", "a NumPy array of permutations"},
    {"reach", "melange reach --n 52 --state-bits 64 --deal 5", "what a 64-bit generator can deal"},
    {"predict", "melange predict --family java --deal 42 --next 2 > deals.txt && melange predict deals.txt --seeds 0..1000",
     "whose seed dealt these: every family, seeds 0 to 1000 (without --seeds, each family's whole space)"},
    {"predict", "melange predict --family java --deal 42 --next 3",
     "the three decks Collections.shuffle deals from new Random(42)"},
    {"predict", "melange predict deals.txt --family java --clock 2024-12-04..2024-12-05 --clock-unit ms",
     "Java dealers seeded from a millisecond clock on one day"},
    {"reproduce", "melange reproduce", "check the article's claims"},
    {"version", "melange version --json -", "the version, stream contract and backends"},
    {"completion", "source <(melange completion bash)", "tab completion in this bash"},
    {"man", "melange man | man -l -", "read this manual"},
};

// ---- roff ------------------------------------------------------------------

std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  // A line that starts with . or ' is a request.
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// Text whose own lines keep their breaks (a footer).
std::string roff_lines(const std::string& text) {
  std::string out = ".nf\n";
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out += roff(line) + "\n";
  return out + ".fi\n";
}

std::string option_synopsis(const std::string& command, const CLI::Option& o) {
  std::string name = o.get_name(false, true);
  if (!takes_value(o)) return name;
  const ValueRow* row = value_row(command, o);
  return name + " " + (row ? std::string(row->placeholder) : o.get_type_name());
}

// ---- shells ----------------------------------------------------------------

std::string joined(const std::vector<std::string>& words, const std::string& between = " ") {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : between) + w;
  return out;
}

std::vector<std::string> flags_of(const CLI::App& command) {
  std::vector<std::string> out;
  for (const CLI::Option* o : shown_options(command))
    for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
  return out;
}

// Single quotes for the shells, with ' itself closed and reopened.
std::string shell_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string bash_script(const CLI::App& app) {
  std::ostringstream o;
  std::vector<std::string> names;
  for (const CLI::App* c : commands(app)) names.push_back(c->get_name());
  o << "# bash completion for melange (made by 'melange completion bash')\n"
    << "_melange() {\n"
    << "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
    << "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
    << "    COMPREPLY=($(compgen -W " << shell_quoted(joined(names) + " --help --version") << " -- \"$cur\"))\n"
    << "    return\n  fi\n"
    << "  case \"${COMP_WORDS[1]}\" in\n";
  for (const CLI::App* c : commands(app)) {
    const std::string name = c->get_name();
    o << "    " << name << ")\n      case \"$prev\" in\n";
    std::string positional = "";
    for (const CLI::Option* opt : shown_options(*c)) {
      const ValueRow* row = value_row(name, *opt);
      if (!takes_value(*opt) || !row) continue;
      if (opt->get_lnames().empty()) {
        positional = row->complete == Complete::choices
                         ? "COMPREPLY=($(compgen -W " + shell_quoted(joined(row->choices())) + " -- \"$cur\"))"
                         : "COMPREPLY=($(compgen -f -- \"$cur\"))";
        continue;
      }
      std::string action;
      if (row->complete == Complete::choices)
        action = "COMPREPLY=($(compgen -W " + shell_quoted(joined(row->choices())) + " -- \"$cur\"))";
      if (row->complete == Complete::file)
        action = row->choices ? "COMPREPLY=($(compgen -W " + shell_quoted(joined(row->choices())) +
                                    " -- \"$cur\") $(compgen -f -- \"$cur\"))"
                              : "COMPREPLY=($(compgen -f -- \"$cur\"))";
      if (row->complete == Complete::folder) action = "COMPREPLY=($(compgen -d -- \"$cur\"))";
      if (row->complete == Complete::none) action = "COMPREPLY=()";
      o << "        " << option_key(*opt) << ") " << action << "; return ;;\n";
    }
    o << "      esac\n";
    if (!positional.empty()) o << "      if [[ \"$cur\" != -* ]]; then " << positional << "; return; fi\n";
    o << "      COMPREPLY=($(compgen -W " << shell_quoted(joined(flags_of(*c))) << " -- \"$cur\"))\n      ;;\n";
  }
  o << "  esac\n}\ncomplete -o filenames -F _melange melange\n";
  return o.str();
}

std::string zsh_script(const CLI::App& app) {
  std::ostringstream o;
  o << "#compdef melange\n# zsh completion for melange (made by 'melange completion zsh')\n"
    << "_melange() {\n  local -a commands\n  commands=(\n";
  for (const CLI::App* c : commands(app))
    o << "    " << shell_quoted(c->get_name() + ":" + first_line(c->get_description())) << "\n";
  o << "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n    return\n  fi\n"
    << "  local command=${words[2]}\n  shift words\n  (( CURRENT-- ))\n  case $command in\n";
  for (const CLI::App* c : commands(app)) {
    o << "    " << c->get_name() << ")\n      _arguments";
    for (const CLI::Option* opt : shown_options(*c)) {
      const ValueRow* row = value_row(c->get_name(), *opt);
      std::string action;
      if (takes_value(*opt)) {
        const std::string placeholder = row ? std::string(row->placeholder) : "VALUE";
        action = ":" + placeholder + ":";
        if (row && row->complete == Complete::choices) action += "(" + joined(row->choices()) + ")";
        else if (row && row->complete == Complete::file) action += "_files";
        else if (row && row->complete == Complete::folder) action += "_files -/";
        else action += " ";
      }
      std::string help = first_line(opt->get_description());
      std::replace(help.begin(), help.end(), ']', ')');
      std::replace(help.begin(), help.end(), '[', '(');
      std::replace(help.begin(), help.end(), ':', ',');
      if (opt->get_lnames().empty()) {
        o << " \\\n        " << shell_quoted("*" + action);
        continue;
      }
      for (const std::string& l : opt->get_lnames())
        o << " \\\n        " << shell_quoted("--" + l + "[" + help + "]" + action);
    }
    o << "\n      ;;\n";
  }
  o << "  esac\n}\n_melange \"$@\"\n";
  return o.str();
}

std::string fish_script(const CLI::App& app) {
  std::ostringstream o;
  o << "# fish completion for melange (made by 'melange completion fish')\n"
    << "complete -c melange -f\n";
  for (const CLI::App* c : commands(app))
    o << "complete -c melange -n __fish_use_subcommand -a " << c->get_name() << " -d "
      << shell_quoted(first_line(c->get_description())) << "\n";
  for (const CLI::App* c : commands(app)) {
    const std::string when = "-n " + shell_quoted("__fish_seen_subcommand_from " + c->get_name());
    for (const CLI::Option* opt : shown_options(*c)) {
      const ValueRow* row = value_row(c->get_name(), *opt);
      std::string values;
      if (row && row->complete == Complete::choices) values = " -x -a " + shell_quoted(joined(row->choices()));
      else if (row && (row->complete == Complete::file || row->complete == Complete::folder)) values = " -r -F";
      else if (takes_value(*opt)) values = " -x";
      if (opt->get_lnames().empty()) {
        o << "complete -c melange " << when << (values.empty() ? " -F" : values) << "\n";
        continue;
      }
      for (const std::string& l : opt->get_lnames())
        o << "complete -c melange " << when << " -l " << l << values << " -d "
          << shell_quoted(first_line(opt->get_description()).substr(0, 80)) << "\n";
    }
  }
  return o.str();
}

}  // namespace

void name_placeholders(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({}))
    for (CLI::Option* o : sub->get_options())
      if (const ValueRow* row = value_row(sub->get_name(), *o); row && takes_value(*o))
        o->type_name(std::string(row->placeholder));
}

void add_examples(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    std::string text;
    for (const Example& e : kExamples)
      if (e.command == sub->get_name()) text += "\n  " + std::string(e.line) + "\n      " + std::string(e.what);
    const std::string footer = sub->get_footer();
    if (!text.empty()) sub->footer("Examples:" + text + (footer.empty() ? "" : "\n\n" + footer));
  }
}

std::vector<std::string> example_lines() {
  std::vector<std::string> lines;
  for (const Example& e : kExamples) lines.emplace_back(e.line);
  return lines;
}

std::string man_page(const CLI::App& app) {
  std::ostringstream o;
  o << ".TH MELANGE 1 \"\" \"melange " << kVersion << "\" \"User Commands\"\n"
    << ".SH NAME\nmelange \\- shuffle audits on counter\\-based Philox4x32\\-10 streams\n"
    << ".SH SYNOPSIS\n.B melange\n.I command\n.RI [ options ]\n"
    << ".SH DESCRIPTION\n" << roff_lines(app.get_description()) << ".SH COMMANDS\n";
  for (const CLI::App* c : commands(app)) {
    o << ".SS \"melange " << c->get_name() << "\"\n" << roff(c->get_description()) << "\n";
    for (const CLI::Option* opt : shown_options(*c)) {
      o << ".TP\n.B " << roff(option_synopsis(c->get_name(), *opt)) << "\n" << roff(opt->get_description());
      if (!opt->get_default_str().empty()) o << " (default: " << roff(opt->get_default_str()) << ")";
      o << "\n";
    }
    if (!c->get_footer().empty()) o << ".PP\n" << roff_lines(c->get_footer());
  }
  o << ".SH FILES\nA run writes its outputs (\\-\\-json, \\-\\-csv, \\-\\-svg, \\-\\-report) whole or not at all: "
       "each goes to a temporary file renamed into place at the end.\n"
    << ".SH SEE ALSO\nThe README and docs/ of the melange sources.\n";
  return o.str();
}

std::string completion_script(const CLI::App& app, const std::string& shell) {
  if (shell == "bash") return bash_script(app);
  if (shell == "zsh") return zsh_script(app);
  if (shell == "fish") return fish_script(app);
  throw UsageError("unknown shell '" + shell + "': use bash, zsh or fish");
}

namespace {

// Standard output, or FILE whole or not at all (contract §7).
int print_or_write(const std::string& output, const std::string& text) {
  if (output.empty()) {
    std::cout << text;
    return 0;
  }
  Outputs outputs;
  outputs.declare("--output", output);
  outputs.write(output, text);
  outputs.commit();
  return 0;
}

}  // namespace

void add_manual_commands(CLI::App& app, Action& action) {
  auto shell = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto* completion = app.add_subcommand("completion", "Print a shell completion script for melange");
  completion->add_option("shell", *shell, "bash | zsh | fish")->required();
  completion->add_option("--output", *output, "write it to FILE instead of standard output");
  completion->callback([shell, output, &app, &action] {
    action = [shell, output, &app] { return print_or_write(*output, completion_script(app, *shell)); };
  });
  auto* man = app.add_subcommand("man", "Print this manual as a man page (roff)");
  man->add_option("--output", *output, "write it to FILE instead of standard output");
  man->callback([output, &app, &action] { action = [output, &app] { return print_or_write(*output, man_page(app)); }; });
}

}  // namespace melange::cli
