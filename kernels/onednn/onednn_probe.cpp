#include "kernels/onednn/onednn_probe.hpp"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <cctype>
#include <string>

namespace lb::onednn {

LibraryInfo probe() {
  LibraryInfo info;
  const dnnl_version_t* v = dnnl_version();
  info.version =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  // The highest ISA oneDNN may use on this CPU, after DNNL_MAX_CPU_ISA: its JIT kernels are
  // generated for this ISA. dnnl_cpu_isa2str names it like "cpu_isa_avx2"; keep "avx2".
  std::string isa = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());
  if (const std::string prefix = "cpu_isa_"; isa.rfind(prefix, 0) == 0) isa.erase(0, prefix.size());
  info.isa = isa;
  return info;
}

}  // namespace lb::onednn
