#pragma once
// Each backend's role in a point's identity, as its descriptor declares it: whether it is its
// device's primary library (points keyed by the device id alone) and the `backend` names its
// points record. The CLI sets them from the backend registry at start; until then they are the
// roles of files written before context.backends (reports/results-schema.md, "Point identity").
#include <string>
#include <vector>

namespace lb {

struct BackendRole {
  std::string name;                         // "cuda"
  bool primary = false;                     // its device's primary library
  std::vector<std::string> point_backends;  // "cuda", "cudnn", "cublaslt"
};

const std::vector<BackendRole>& backend_roles();
// Call before any thread starts: the roles are read without a lock.
void set_backend_roles(std::vector<BackendRole> roles);

}  // namespace lb
