#include "harness/doctor/facts.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "harness/data_paths.hpp"
#include "harness/doctor/versions.hpp"
#include "harness/doctor/windows_dlls.hpp"

namespace lb::doctor {
namespace {

using nlohmann::json;

// A facts file being read: every error names the file and the field.
struct FactsFile {
  std::string name;
  json root;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::runtime_error("facts file " + name + ": field '" + field + "' " + what);
  }
  const json& member(const json& object, const std::string& key, const std::string& field) const {
    if (!object.is_object() || !object.contains(key)) fail(field, "is missing");
    return object.at(key);
  }
  std::string string(const json& object, const std::string& key, const std::string& field) const {
    const json& v = member(object, key, field);
    if (!v.is_string()) fail(field, "must be a string");
    return v.get<std::string>();
  }
  // A string, or empty for null.
  std::string optional_string(const json& object, const std::string& key,
                              const std::string& field) const {
    if (object.contains(key) && object.at(key).is_null()) return "";
    return string(object, key, field);
  }
  const json& array(const json& object, const std::string& key, const std::string& field) const {
    const json& v = member(object, key, field);
    if (!v.is_array() || v.empty()) fail(field, "must be a non-empty array");
    return v;
  }
  std::vector<int> version(const json& object, const std::string& key, const std::string& field,
                           std::size_t parts) const {
    const std::string s = string(object, key, field);
    try {
      auto v = dotted(s);
      if (v.size() == parts) return v;
    } catch (const std::invalid_argument&) {
    }
    fail(field, "must be a version with " + std::to_string(parts) + " parts, not \"" + s + "\"");
  }
};

FactsFile read(const std::filesystem::path& dir, const std::string& name, Facts& facts) {
  const auto path = dir / name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("facts file " + path.string() + " cannot be opened");
  FactsFile file{path.string(), {}};
  try {
    file.root = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error("facts file " + file.name + " is not valid JSON: " + e.what());
  }
  facts.sources.push_back(name + ": " + file.string(file.root, "source", "source"));
  return file;
}

void load_drivers(const FactsFile& f, Facts& facts) {
  const json& rows = f.array(f.root, "minimum_driver", "minimum_driver");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "minimum_driver[" + std::to_string(i) + "].";
    DriverMinimum d;
    const std::string cuda = f.string(rows[i], "cuda", at + "cuda");
    const auto dot = cuda.find('.');
    try {
      d.cuda_major = dotted(cuda.substr(0, dot)).at(0);
      const std::string minor = dot == std::string::npos ? "" : cuda.substr(dot + 1);
      if (minor == "x")
        d.cuda_minor = -1;
      else
        d.cuda_minor = dotted(minor).at(0);
    } catch (const std::invalid_argument&) {
      f.fail(at + "cuda", "must be MAJOR.x or MAJOR.MINOR, not \"" + cuda + "\"");
    }
    d.linux_driver = f.optional_string(rows[i], "linux", at + "linux");
    d.windows_driver = f.optional_string(rows[i], "windows", at + "windows");
    for (const auto& [driver, field] :
         {std::pair{d.linux_driver, "linux"}, {d.windows_driver, "windows"}}) {
      if (driver.empty()) continue;
      try {
        dotted(driver);
      } catch (const std::invalid_argument&) {
        f.fail(at + field, "must be a driver version such as 525.60.13, not \"" + driver + "\"");
      }
    }
    facts.drivers.push_back(d);
  }
}

void load_tensor_cores(const FactsFile& f, Facts& facts) {
  const json& rows = f.array(f.root, "precisions", "precisions");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "precisions[" + std::to_string(i) + "].";
    TensorCorePrecision p;
    p.name = f.string(rows[i], "name", at + "name");
    const auto cc = f.version(rows[i], "min_compute_capability", at + "min_compute_capability", 2);
    p.min_cc_major = cc[0];
    p.min_cc_minor = cc[1];
    if (rows[i].contains("note")) p.note = f.string(rows[i], "note", at + "note");
    facts.tensor_cores.push_back(p);
  }
}

// A row's inclusive "first".."last" range of TensorFlow major.minor versions, each checked.
void read_version_range(const FactsFile& f, const json& row, const std::string& at,
                        std::string& first, std::string& last) {
  f.version(row, "first", at + "first", 2);
  f.version(row, "last", at + "last", 2);
  first = f.string(row, "first", "");
  last = f.string(row, "last", "");
}

void load_tensorflow(const FactsFile& f, Facts& facts) {
  f.version(f.root, "windows_native_gpu_last", "windows_native_gpu_last", 2);
  facts.tensorflow_windows_native_last = f.string(f.root, "windows_native_gpu_last", "");
  const json& rows = f.array(f.root, "builds", "builds");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "builds[" + std::to_string(i) + "].";
    TensorflowBuild b;
    read_version_range(f, rows[i], at, b.first, b.last);
    const auto cuda = f.version(rows[i], "cuda", at + "cuda", 2);
    b.cuda_version = cuda[0] * 1000 + cuda[1] * 10;
    const auto cudnn = f.version(rows[i], "cudnn", at + "cudnn", 2);
    b.cudnn_major = cudnn[0];
    b.cudnn_minor = cudnn[1];
    facts.tensorflow.push_back(b);
  }
}

void load_tensorflow_windows_dlls(const FactsFile& f, Facts& facts) {
  const json& rows = f.array(f.root, "builds", "builds");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "builds[" + std::to_string(i) + "].";
    TensorflowWindowsDlls b;
    read_version_range(f, rows[i], at, b.first, b.last);
    const json& dlls = f.array(rows[i], "dlls", at + "dlls");
    for (std::size_t j = 0; j < dlls.size(); ++j) {
      const std::string field = at + "dlls[" + std::to_string(j) + "]";
      if (!dlls[j].is_string() || !dll_family(dlls[j].get<std::string>()))
        f.fail(field,
               "must be the file name of an NVIDIA DLL the doctor checks, e.g. cudnn64_8.dll");
      b.dlls.push_back(dlls[j].get<std::string>());
    }
    facts.tensorflow_windows_dlls.push_back(b);
  }
}

// The row of `rows` whose first..last range holds `version` ("2.15" or "2.15.1").
template <typename Row>
const Row* row_for_version(const std::vector<Row>& rows, const std::string& version) {
  auto v = dotted(version);
  v.resize(2);  // 2.15.1 is a 2.15 release
  for (const auto& row : rows)
    if (dotted(row.first) <= v && v <= dotted(row.last)) return &row;
  return nullptr;
}

}  // namespace

Facts load_facts(const std::filesystem::path& facts_dir) {
  Facts facts;
  load_drivers(read(facts_dir, "cuda_drivers.json", facts), facts);
  load_tensor_cores(read(facts_dir, "tensor_cores.json", facts), facts);
  load_tensorflow(read(facts_dir, "tensorflow_builds.json", facts), facts);
  load_tensorflow_windows_dlls(read(facts_dir, "tensorflow_windows_dlls.json", facts), facts);
  return facts;
}

Facts load_facts() { return load_facts(data_dir() / "facts"); }

const DriverMinimum* minimum_driver(const Facts& facts, int cuda_version) {
  const int major = cuda_version / 1000, minor = cuda_version % 1000 / 10;
  const DriverMinimum* any_minor = nullptr;
  for (const auto& d : facts.drivers) {
    if (d.cuda_major != major) continue;
    if (d.cuda_minor == minor) return &d;
    if (d.cuda_minor < 0) any_minor = &d;
  }
  return any_minor;
}

std::vector<std::string> tensor_core_precisions(const Facts& facts, int cc_major, int cc_minor) {
  std::vector<std::string> names;
  for (const auto& p : facts.tensor_cores)
    if (std::pair{cc_major, cc_minor} >= std::pair{p.min_cc_major, p.min_cc_minor})
      names.push_back(p.name);
  return names;
}

const TensorflowBuild* tensorflow_build(const Facts& facts, const std::string& version) {
  return row_for_version(facts.tensorflow, version);
}

const TensorflowWindowsDlls* tensorflow_windows_dlls(const Facts& facts,
                                                     const std::string& version) {
  return row_for_version(facts.tensorflow_windows_dlls, version);
}

}  // namespace lb::doctor
