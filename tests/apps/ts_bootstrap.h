/* ts_bootstrap.h - who this process is, and the one ncclUniqueId exchange.
 *
 * Rank and world size come from the launcher: SIMNCCL_RANK/SIMNCCL_NRANKS
 * (simrun), else SLURM_PROCID/SLURM_NTASKS (srun), else RANK/WORLD_SIZE
 * (torchrun and friends).
 *
 * Rank 0 publishes the id of the world communicator in a file of a
 * directory every rank sees (SIMNCCL_IDDIR, else TRAIN_SIM_IDDIR), written
 * under a temporary name and renamed into place so that a reader never sees
 * half of it; the others poll for it.  The name is ncclid.<job>.<step>
 * under Slurm (unique per job step), else ncclid.  The others give up after
 * 60 s (TRAIN_SIM_ID_TIMEOUT overrides).
 *
 * Every function returns 0, or -1 with a message (no program name) in
 * err[errlen]; none prints.
 */
#ifndef TS_BOOTSTRAP_H
#define TS_BOOTSTRAP_H

#include <stddef.h>

#include <collprof/cp_nccl.h>

int ts_bootstrap_rank(int *rank, int *nranks, char *err, size_t errlen);

/* How long ranks other than 0 wait for the id file: TRAIN_SIM_ID_TIMEOUT
 * seconds where set, else 60. */
int ts_bootstrap_id_timeout(double *seconds, char *err, size_t errlen);

/* The id file's path, in path[len]. */
int ts_bootstrap_id_path(char *path, size_t len, char *err, size_t errlen);

/* Rank 0: ncclGetUniqueId, then publish it at path.  Other ranks: wait up to
 * timeout_s seconds for the file, then read it. */
int ts_bootstrap_exchange_id(int rank, const char *path, double timeout_s,
                             ncclUniqueId *id, char *err, size_t errlen);

/* Rank 0, once every rank has certainly read the id (after the first
 * collective on the world): remove the file, so that a later run using
 * the same directory cannot pick up a stale id. */
int ts_bootstrap_remove_id(const char *path, char *err, size_t errlen);

#endif
