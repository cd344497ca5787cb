/* TEST STAND-IN, NOT NVIDIA SOFTWARE.
 *
 * tests/windows/wine_doctor.sh builds this file with MinGW into tiny DLLs named as NVIDIA names
 * its DLLs (nvcuda.dll, nvml.dll, cudart64_110.dll, cudnn64_8.dll, ...), so that the doctor's
 * DLL search and version reads run under Wine without NVIDIA's DLLs, which cannot be had here.
 * Each build exports only the version function(s) the doctor calls for that one DLL, selected
 * by -DSTANDIN_<KIND>, and reports the version the test passes in -DSTANDIN_VERSION (test data,
 * not a real library's). Signatures as NVIDIA's headers declare them. */
#include <stddef.h>
#include <string.h>

#define EXPORT __declspec(dllexport)

#if defined(STANDIN_DRIVER) /* nvcuda.dll: cuda.h */
EXPORT int cuDriverGetVersion(int* version) {
  *version = STANDIN_VERSION;
  return 0;
}

#elif defined(STANDIN_NVML) /* nvml.dll: nvml.h; STANDIN_VERSION is the driver's text */
EXPORT int nvmlInit_v2(void) { return 0; }
EXPORT int nvmlShutdown(void) { return 0; }
EXPORT int nvmlSystemGetDriverVersion(char* text, unsigned length) {
  if (length < sizeof STANDIN_VERSION) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  memcpy(text, STANDIN_VERSION, sizeof STANDIN_VERSION);
  return 0;
}

#elif defined(STANDIN_CUDART) /* cudart64_*.dll: cuda_runtime_api.h */
EXPORT int cudaRuntimeGetVersion(int* version) {
  *version = STANDIN_VERSION;
  return 0;
}

#elif defined(STANDIN_CUBLAS) /* cublas64_*.dll: cublasGetProperty(libraryPropertyType, int*) */
EXPORT int cublasGetProperty(int type, int* value) {
  static const int parts[3] = {STANDIN_VERSION}; /* major, minor, patch level */
  if (type < 0 || type > 2) return 7;            /* CUBLAS_STATUS_INVALID_VALUE */
  *value = parts[type];
  return 0;
}

#elif defined(STANDIN_CUBLASLT) /* cublasLt64_*.dll: cublasLt.h */
EXPORT size_t cublasLtGetVersion(void) { return STANDIN_VERSION; }

#elif defined(STANDIN_CUDNN) /* cudnn64_*.dll: cudnn_version.h / cudnn_graph.h */
EXPORT size_t cudnnGetVersion(void) { return STANDIN_VERSION; }

#else
#error "define one STANDIN_<KIND>: the DLL this build stands in for"
#endif
