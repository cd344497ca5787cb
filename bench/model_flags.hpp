#pragma once
// The flags `list` and `run` share (which models, at which precisions and pass set), registered
// in one place so their help texts cannot drift apart.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace lb::cli {

// --model, --model-file (alias: its old name --workload), --precision, --pass; returns them.
// `precision_help` says whether one precision or a list is taken and the default, which differ
// between the commands.
inline std::vector<CLI::Option*> add_model_flags(CLI::App& sub, std::vector<std::string>& models,
                                                 std::vector<std::string>& model_files,
                                                 std::string& precisions, std::string& pass,
                                                 const std::string& precision_help) {
  return {
      sub.add_option("--model", models,
                     "Model names (see `layerbench list`); repeatable (default: list every model; "
                     "run the suite's)"),
      sub.add_option("--model-file,--workload", model_files,
                     "Extra model files, same schema as bench/models/*.json "
                     "(bench/models/SCHEMA.md); --workload is its old name"),
      sub.add_option("--precision", precisions, precision_help),
      sub.add_option("--pass", pass,
                     "fwd (forward, inference) or train (forward, backward-data, backward-weights; "
                     "batch norm's training forward too)")};
}

}  // namespace lb::cli
