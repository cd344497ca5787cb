#include "harness/doctor/facts.hpp"

#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/doctor/versions.hpp"
#include "harness/doctor/windows_dlls.hpp"
#include "harness/util/data_paths.hpp"
#include "harness/util/json_fields.hpp"
#include "harness/util/json_limits.hpp"

namespace lb::doctor {
namespace {

// The facts files are small tables: an object of arrays of rows, at most four containers deep
// (tensorflow_windows_dlls.json: the file, builds, a build, its dlls).
constexpr JsonLimits facts_file_limits{1 << 20, 4};

// A facts file being read: the path (which its fields' errors name) and the document.
struct FactsFile {
  std::string name;
  nlohmann::json root;

  JsonField top() const { return {root, name}; }
};

// A "MAJOR.MINOR..." version string of `parts` numbers.
std::vector<int> version(const JsonField& field, std::size_t parts) {
  const std::string s = field.string();
  try {
    auto v = dotted(s);
    if (v.size() == parts) return v;
  } catch (const std::invalid_argument&) {
  }
  field.expected("a version with " + std::to_string(parts) + " parts");
}

// A string, or empty for null.
std::string optional_string(const JsonField& field) {
  return field.json().is_null() ? "" : field.string();
}

FactsFile read(const std::filesystem::path& dir, const std::string& name, Facts& facts) {
  const auto path = dir / name;
  FactsFile file{path.string(), read_bounded_json(path, facts_file_limits)};
  file.top().require_object();
  facts.sources.push_back(name + ": " + file.top()["source"].string());
  return file;
}

void load_drivers(const FactsFile& f, Facts& facts) {
  const JsonField rows = f.top()["minimum_driver"];
  for (std::size_t i = 0, n = rows.array("a non-empty array", 1); i < n; ++i) {
    const JsonField row = rows[i];
    DriverMinimum d;
    const JsonField cuda_field = row["cuda"];
    const std::string cuda = cuda_field.string();
    const auto dot = cuda.find('.');
    try {
      d.cuda_major = dotted(cuda.substr(0, dot)).at(0);
      const std::string minor = dot == std::string::npos ? "" : cuda.substr(dot + 1);
      if (minor == "x")
        d.cuda_minor = -1;
      else
        d.cuda_minor = dotted(minor).at(0);
    } catch (const std::invalid_argument&) {
      cuda_field.expected("MAJOR.x or MAJOR.MINOR");
    }
    for (const auto& [key, driver] :
         {std::pair{"linux", &d.linux_driver}, std::pair{"windows", &d.windows_driver}}) {
      const JsonField field = row[key];
      *driver = optional_string(field);
      if (driver->empty()) continue;
      try {
        dotted(*driver);
      } catch (const std::invalid_argument&) {
        field.expected("a driver version such as 525.60.13");
      }
    }
    facts.drivers.push_back(d);
  }
}

void load_tensor_cores(const FactsFile& f, Facts& facts) {
  const JsonField rows = f.top()["precisions"];
  for (std::size_t i = 0, n = rows.array("a non-empty array", 1); i < n; ++i) {
    const JsonField row = rows[i];
    TensorCorePrecision p;
    p.name = row["name"].string();
    const auto cc = version(row["min_compute_capability"], 2);
    p.min_cc_major = cc[0];
    p.min_cc_minor = cc[1];
    if (const auto note = row.optional("note")) p.note = note->string();
    facts.tensor_cores.push_back(p);
  }
}

// A row's inclusive "first".."last" range of TensorFlow major.minor versions, each checked.
void read_version_range(const JsonField& row, std::string& first, std::string& last) {
  version(row["first"], 2);
  version(row["last"], 2);
  first = row["first"].string();
  last = row["last"].string();
}

void load_tensorflow(const FactsFile& f, Facts& facts) {
  const JsonField top = f.top();
  version(top["windows_native_gpu_last"], 2);
  facts.tensorflow_windows_native_last = top["windows_native_gpu_last"].string();
  const JsonField rows = top["builds"];
  for (std::size_t i = 0, n = rows.array("a non-empty array", 1); i < n; ++i) {
    const JsonField row = rows[i];
    TensorflowBuild b;
    read_version_range(row, b.first, b.last);
    const auto cuda = version(row["cuda"], 2);
    b.cuda_version = cuda[0] * 1000 + cuda[1] * 10;
    const auto cudnn = version(row["cudnn"], 2);
    b.cudnn_major = cudnn[0];
    b.cudnn_minor = cudnn[1];
    facts.tensorflow.push_back(b);
  }
}

void load_tensorflow_windows_dlls(const FactsFile& f, Facts& facts) {
  const JsonField rows = f.top()["builds"];
  for (std::size_t i = 0, n = rows.array("a non-empty array", 1); i < n; ++i) {
    const JsonField row = rows[i];
    TensorflowWindowsDlls b;
    read_version_range(row, b.first, b.last);
    const JsonField dlls = row["dlls"];
    for (std::size_t j = 0, m = dlls.array("a non-empty array", 1); j < m; ++j) {
      const JsonField dll = dlls[j];
      if (!dll.json().is_string() || !dll_family(dll.json().get<std::string>()))
        dll.expected("the file name of an NVIDIA DLL the doctor checks, e.g. cudnn64_8.dll");
      b.dlls.push_back(dll.json().get<std::string>());
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
