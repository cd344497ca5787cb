// libFuzzer target: every parser of text from outside the program, fed the same input: the
// --batch and --precision lists, --pass, --device, `doctor --for` (and the facts lookup it leads
// to), and the version strings the doctor reads (dotted versions, CUDA versions, the driver's
// module text).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "harness/api/device_id.hpp"
#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/versions.hpp"
#include "harness/plan/plan.hpp"

namespace {
// Each parser either returns or throws std::invalid_argument with its message.
template <class Parse>
void parse(Parse&& parse) {
  try {
    parse();
  } catch (const std::invalid_argument&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lb;
  using namespace lb::doctor;
  static const Facts facts = load_facts();
  const std::string text(reinterpret_cast<const char*>(data), size);
  parse([&] { parse_batch_list(text); });
  parse([&] { parse_precision_list(text); });
  (void)parse_pass_set(text);
  // --device: a device id that parses is written back as itself or its canonical spelling.
  if (const auto id = parse_device_id(text)) {
    const auto again = parse_device_id(to_string(*id));
    if (!again || again->kind != id->kind || again->index != id->index) std::abort();
  }
  parse([&] { tensorflow_build(facts, parse_framework_target(text).version); });
  parse([&] { parse_cuda_version(text); });
  (void)driver_version_from_module_text(text);
  // Two versions compared, as the doctor compares the driver with the facts' minimum.
  const auto half = text.size() / 2;
  parse([&] { version_at_least(text.substr(0, half), text.substr(half)); });
  return 0;
}
