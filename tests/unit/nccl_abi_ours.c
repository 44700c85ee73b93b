/* nccl_abi_ours.c - the ABI facts as collprof's own header states them. */
#include "config.h"

#include <stddef.h>

#include "collprof/cp_nccl.h"
#include "nccl_abi.h"

extern const long nccl_abi_ours[];
extern const char *const nccl_abi_names[];
const long nccl_abi_ours[] = {NCCL_ABI_FACTS(NCCL_ABI_VALUE) 0};
const char *const nccl_abi_names[] = {NCCL_ABI_FACTS(NCCL_ABI_NAME) NULL};
