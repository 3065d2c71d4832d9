// `melange version`: the build, the stream contract and the backends.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "melange/report/format.hpp"
#include "melange/backend_table.hpp"
#include "melange/stream.hpp"
#include "melange/version.hpp"
#include "output.hpp"

namespace melange::cli {

void add_version_command(CLI::App& app, Action& action) {
  auto json = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("version", "Show the version, stream contract and backends");
  cmd->add_option("--json", *json, "write as JSON to FILE ('-' = stdout)");
  cmd->callback([json, &action] {
    action = [json] {
      Outputs outputs;
      outputs.declare("--json", *json);
      auto doc = json_header("version");
      doc["backends"] = nlohmann::ordered_json::array();
      for (const BackendInfo& b : backend_inventory())
      {
        nlohmann::ordered_json row = {{"name", b.name}, {"compiled", b.compiled}, {"available", b.available}};
        if (!b.available) row["reason"] = b.reason;
        row["archs"] = b.archs;
        if (!b.device.empty()) row["device"] = b.device;
        doc["backends"].push_back(row);
      }
      if (!json->empty()) write_json(outputs.open(*json), doc);
      if (*json != "-") {
        std::cout << "melange " << kVersion << " (stream version " << kStreamVersion << ")\n";
        for (const BackendInfo& b : backend_inventory())
          std::cout << "  backend " << b.name << ": "
                    << (b.compiled ? (b.available ? "available" : "compiled, not available here: " + b.reason)
                                   : "not compiled")
                    << (b.archs.empty() ? "" : " (" + join(b.archs, ", ") + ")")
                    << (b.device.empty() ? "" : ", " + b.device) << "\n";
      }
      outputs.commit();
      return 0;
    };
  });
}

}  // namespace melange::cli
