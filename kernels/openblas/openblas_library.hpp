#pragma once
// OpenBLAS, loaded at run time when the backend is first made, not linked. Its pthread build
// starts its worker threads in its library constructor: linked into layerbench, they would
// start before main blocks SIGINT and SIGTERM (harness/measure/interrupt.hpp), and a Ctrl-C taken
// on one of them would end every run (whatever its backends) without its results file. Loaded from
// main, they inherit the blocked mask. The header is the one CMake found; so is the library,
// with OpenBLAS's soname as the fallback.
#include <cblas.h>

#include <string>

namespace lb::openblas {

struct Library {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&openblas_get_num_threads) get_num_threads = nullptr;
  decltype(&openblas_get_num_procs) get_num_procs = nullptr;
  decltype(&openblas_get_config) get_config = nullptr;
  decltype(&openblas_get_corename) get_corename = nullptr;
  std::string file;  // where it was loaded from
};

// The loaded library (loaded once). Throws std::runtime_error with the loader's messages when
// no OpenBLAS loads or a symbol is missing.
const Library& library();

}  // namespace lb::openblas
