/* simtest_util.h - shared by the rank programs of simnccl's tests: the rank
 * facts simrun exports, and the unique id passed through SIMNCCL_IDDIR. */
#ifndef SIMNCCL_SIMTEST_UTIL_H
#define SIMNCCL_SIMTEST_UTIL_H

#include "collprof/cp_nccl.h"

/* An integer from the environment, fallback when unset or malformed. */
int simtest_env_int(const char *name, int fallback);

/* Seconds on CLOCK_MONOTONIC. */
double simtest_now(void);

/* Rank 0 (SIMNCCL_RANK) makes a unique id and publishes it as the file
 * <SIMNCCL_IDDIR>/<tag>; the other ranks wait for that file and read it.
 * Returns 0, or -1 with a message on stderr. */
int simtest_share_id(ncclUniqueId *id, const char *tag);

/* ncclCommInitRank for SIMNCCL_RANK of SIMNCCL_NRANKS: rank 0 makes the id
 * and publishes it as the file <SIMNCCL_IDDIR>/<tag> (written aside, then
 * renamed, so nobody reads half of it); the others wait for the file.
 * Returns the NCCL result; on an id-passing failure ncclSystemError with a
 * message on stderr. */
ncclResult_t simtest_init(ncclComm_t *comm, const char *tag);

#endif
