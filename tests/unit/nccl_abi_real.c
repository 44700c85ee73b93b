/* nccl_abi_real.c - the same facts from the real nccl.h. */
#include <stddef.h>

#include <nccl.h>

#include "nccl_abi.h"

extern const long nccl_abi_real[];
extern const int nccl_abi_real_version;
const long nccl_abi_real[] = {NCCL_ABI_FACTS(NCCL_ABI_VALUE) 0};
const int nccl_abi_real_version = NCCL_VERSION_CODE;
