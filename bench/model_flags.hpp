#pragma once
// The flags `list` and `run` share (which models, at which precisions and pass set), registered
// in one place so their help texts cannot drift apart.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace lb::cli {

// --model, --workload, --precision, --pass. `precision_help` says whether one precision or a
// list is taken and the default, which differ between the commands.
inline void add_model_flags(CLI::App& sub, std::vector<std::string>& models,
                            std::vector<std::string>& workloads, std::string& precisions,
                            std::string& pass, const std::string& precision_help) {
  sub.add_option("--model", models,
                 "Model names (see `layerbench list`); repeatable (default: list every model; "
                 "run the suite's)");
  sub.add_option("--workload", workloads,
                 "Extra model files, same schema as bench/models/*.json (bench/models/SCHEMA.md)");
  sub.add_option("--precision", precisions, precision_help);
  sub.add_option("--pass", pass,
                 "fwd (forward, inference) or train (forward, backward-data, backward-weights; "
                 "batch norm's training forward too)");
}

}  // namespace lb::cli
