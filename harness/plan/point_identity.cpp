#include "harness/plan/point_identity.hpp"

#include <algorithm>

#include "harness/plan/backend_roles.hpp"
#include "harness/plan/plan.hpp"

namespace lb {

std::string keyed_device(const std::string& device, std::string_view backend) {
  if (backend.empty()) return device;  // a point naming no backend: its device's primary one's
  for (const BackendRole& role : backend_roles())
    if (role.primary &&
        (role.name == backend || std::find(role.point_backends.begin(), role.point_backends.end(),
                                           backend) != role.point_backends.end()))
      return device;
  return device + "@" + std::string(backend);
}

std::string point_key(const std::string& model, const std::string& op, int batch,
                      std::string_view precision, std::string_view pass,
                      const std::string& device) {
  return model + "/" + op + "/b" + std::to_string(batch) + "/" + std::string(precision) + "/" +
         std::string(pass) + "/" + device;
}

std::string point_key(const PlannedPoint& pp) {
  return point_key(pp.model->name, pp.op->id, pp.batch, name(pp.precision), name(pp.pass),
                   keyed_device(pp.device, pp.backend));
}

}  // namespace lb
