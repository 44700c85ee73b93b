/* cuda_abi_ours.c - the CUPTI/cudart ABI facts as preload/cp_cuda_abi.h
 * states them. */
#include "config.h"

#include <stddef.h>

#include "cp_cuda_abi.h"
#include "cuda_abi.h"

#define OURS(label, ours, real) (long)(ours),
#define NAME(label, ours, real) #label,
#define CBID_OURS(name, value) (long)(value),
#define CBID_DRIVER_NAME(name, value) "driver cbid " #name,
#define CBID_RUNTIME_NAME(name, value) "runtime cbid " #name,

extern const long cuda_abi_ours[];
extern const char *const cuda_abi_names[];
const long cuda_abi_ours[] = {
    CUDA_ABI_FACTS(OURS) CP_CUPTI_DRIVER_APIS(CBID_OURS)
        CP_CUPTI_DRIVER_CAPTURE_APIS(CBID_OURS) CP_CUPTI_RUNTIME_APIS(CBID_OURS)
            CP_CUPTI_RUNTIME_CAPTURE_APIS(CBID_OURS) 0};
const char *const cuda_abi_names[] = {
    CUDA_ABI_FACTS(NAME) CP_CUPTI_DRIVER_APIS(CBID_DRIVER_NAME)
        CP_CUPTI_DRIVER_CAPTURE_APIS(CBID_DRIVER_NAME)
            CP_CUPTI_RUNTIME_APIS(CBID_RUNTIME_NAME)
                CP_CUPTI_RUNTIME_CAPTURE_APIS(CBID_RUNTIME_NAME) NULL};
