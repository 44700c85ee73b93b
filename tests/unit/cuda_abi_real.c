/* cuda_abi_real.c - the same facts from the toolkit's cupti.h and
 * cuda_runtime_api.h.  The callback id lists come from cp_cuda_abi.h by name
 * only; their values here are the toolkit's. */
#include <stddef.h>

#include <cuda_runtime_api.h>
#include <cupti.h>

#include "cp_cuda_abi.h"
#include "cuda_abi.h"

#define REAL(label, ours, real) (long)(real),
#define CBID_DRIVER(name, value) (long)CUPTI_DRIVER_TRACE_CBID_##name,
#define CBID_RUNTIME(name, value) (long)CUPTI_RUNTIME_TRACE_CBID_##name,

extern const long cuda_abi_real[];
extern const int cuda_abi_real_version;
const long cuda_abi_real[] = {
    CUDA_ABI_FACTS(REAL) CP_CUPTI_DRIVER_APIS(CBID_DRIVER)
        CP_CUPTI_DRIVER_CAPTURE_APIS(CBID_DRIVER)
            CP_CUPTI_RUNTIME_APIS(CBID_RUNTIME)
                CP_CUPTI_RUNTIME_CAPTURE_APIS(CBID_RUNTIME) 0};
const int cuda_abi_real_version = CUPTI_API_VERSION;
