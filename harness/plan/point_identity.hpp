#pragma once
// A point's identity, which the plan names its benchmarks by and the results file keys its points
// by (reports/results-schema.md, "Point identity").
#include <string>
#include <string_view>

namespace lb {

struct PlannedPoint;  // harness/plan/plan.hpp

// The device part of a point's identity: the device id ("cpu", "gpu:0"), followed by "@backend"
// ("cpu@openblas") unless the backend is its device's primary one (backend_roles.hpp), whose
// points keep the key they always had.
std::string keyed_device(const std::string& device, std::string_view backend);

// "model/op/bB/precision/pass/device[@backend]": a point's identity, also its benchmark name;
// `device` is keyed_device()'s.
std::string point_key(const std::string& model, const std::string& op, int batch,
                      std::string_view precision, std::string_view pass, const std::string& device);

// A planned point's key, the same as its Point's: its benchmark name in the run.
std::string point_key(const PlannedPoint& planned);

}  // namespace lb
