// `melange reach`: can a generator with B bits of state reach every order?
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "command.hpp"
#include "melange/report/format.hpp"
#include "melange/error.hpp"
#include "melange/reach.hpp"
#include "output.hpp"

namespace melange::cli {
namespace {

struct ReachArgs {
  int n = 52, bits = 128;
  std::optional<int> deal;
  std::string json;
};

// A count as digits while a double holds it exactly, else as a power of ten.
std::string count_text(double v) {
  return v < 9007199254740992.0 ? grouped(static_cast<std::uint64_t>(v)) : general(v, 4);
}

int run_reach(const ReachArgs& a) {
  if (a.deal && (*a.deal < 1 || *a.deal > a.n))
    throw UsageError("--deal must be a card count from 1 to --n (" + std::to_string(a.n) + "), got " +
                     std::to_string(*a.deal));
  Outputs outputs;
  outputs.declare("--json", a.json);
  const Reach r = reach(a.n, a.bits);
  Json j = json_header("reach");
  j["n"] = r.n;
  j["state_bits"] = r.state_bits;
  j["log2_orders"] = r.log2_orders;
  j["orders"] = std::exp2(r.log2_orders);
  j["reaches_every_order"] = r.reaches_every_order;
  j["reachable_fraction"] = r.fraction;
  j["log10_reachable_fraction"] = r.log10_fraction;
  std::ostringstream o;
  o << "melange reach: n " << r.n << ", " << r.state_bits << "-bit state\n"
    << "  orders: n! = " << general(std::exp2(r.log2_orders), 4) << " = 2^" << fixed(r.log2_orders, 2)
    << "\n  every order reachable: " << (r.reaches_every_order ? "yes" : "no")
    << "\n  reachable fraction at most: " << general(r.fraction, 3) << " (10^"
    << fixed(r.log10_fraction, 2) << ")\n";
  if (a.deal) {
    const Deal d = deal(a.n, *a.deal, a.bits);
    j["deal"] = {{"k", d.k}, {"ordered_deals", d.ordered}, {"hands", d.hands},
                 {"states_per_deal", d.states_per_deal}};
    o << "  " << d.k << "-card deals: " << count_text(d.ordered) << " ordered, "
      << count_text(d.hands) << " hands, about "
      << general(d.states_per_deal, 3) << " generator states behind each ordered deal\n";
  }
  if (!a.json.empty()) write_json(outputs.open(a.json), j);
  if (a.json != "-") std::cout << o.str();
  outputs.commit();
  return 0;
}

}  // namespace

void add_reach_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ReachArgs>();
  auto* cmd = app.add_subcommand("reach", "How many of the n! orders a B-bit generator can reach");
  cmd->add_option("--n", a->n, "items (cards)")->capture_default_str();
  cmd->add_option("--state-bits", a->bits, "bits of generator state")->capture_default_str();
  cmd->add_option("--deal", a->deal, "also count k-card deals and the states behind each");
  cmd->add_option("--json", a->json, "write the result as JSON to FILE ('-': JSON on stdout only)");
  cmd->callback([a, &action] { action = [a] { return run_reach(*a); }; });
}

}  // namespace melange::cli
