#include "harness/plan/backend_roles.hpp"

namespace lb {
namespace {

std::vector<BackendRole>& roles() {
  static std::vector<BackendRole> current = {
      {"onednn", true, {"onednn"}},
      {"cuda", true, {"cuda", "cudnn", "cublaslt"}},
  };
  return current;
}

}  // namespace

const std::vector<BackendRole>& backend_roles() { return roles(); }

void set_backend_roles(std::vector<BackendRole> new_roles) { roles() = std::move(new_roles); }

}  // namespace lb
