/* sim_error.h - the error text behind ncclGetLastError.
 *
 * Every failing path of the library records one sentence per thread (NCCL's
 * own last error is per thread too) and returns an ncclResult_t.  Nothing is
 * printed unless SIMNCCL_DEBUG is set, or NCCL_DEBUG asks for warnings; then
 * each message also goes to stderr, prefixed "simnccl:".
 */
#ifndef SIMNCCL_SIM_ERROR_H
#define SIMNCCL_SIM_ERROR_H

#include "collprof/cp_nccl.h"

/* Record the message and return result, so callers can write
 * `return sim_error(ncclInvalidArgument, "...")`. */
ncclResult_t sim_error(ncclResult_t result, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The calling thread's last message, "" when none.  Thread-local storage,
 * valid until the thread's next failing call. */
const char *sim_error_last(void);

#endif
