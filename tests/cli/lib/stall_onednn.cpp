// A library call that never returns, for tests/cli/point_bound.sh. Preloaded (LD_PRELOAD), it
// stands in for oneDNN's dnnl_primitive_execute: convolutions and reorders pass through to
// oneDNN, a matmul primitive blocks its thread forever, as a deadlocked library would. The
// tiny test model's convolutions measure; its linear and bmm points hang inside the call.
#include <dlfcn.h>
#include <unistd.h>

#include "oneapi/dnnl/dnnl.h"

extern "C" dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive,
                                                dnnl_stream_t stream, int nargs,
                                                const dnnl_exec_arg_t* args) {
  using Execute =
      dnnl_status_t (*)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t*);
  static const auto oneDNN_execute =
      reinterpret_cast<Execute>(dlsym(RTLD_NEXT, "dnnl_primitive_execute"));
  const_dnnl_primitive_desc_t descriptor = nullptr;
  dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
  if (dnnl_primitive_get_primitive_desc(primitive, &descriptor) == dnnl_success)
    dnnl_primitive_desc_query(descriptor, dnnl_query_primitive_kind, 0, &kind);
  if (kind == dnnl_matmul)
    for (;;) pause();  // the process's signals are blocked here: nothing wakes it
  return oneDNN_execute(primitive, stream, nargs, args);
}
