/* cp_prof_next.h - a second profiler plugin behind collprof's
 * (COLLPROF_NEXT_PROFILER=lib.so): NCCL loads one profiler plugin; collprof's
 * loads the next one and hands it every event it asks for, in the layout of
 * the newest version both know (at most the one NCCL took from collprof).
 * The core (cp_prof.c) keeps the pair of handles; this module speaks the
 * next plugin's version. */
#ifndef COLLPROF_CP_PROF_NEXT_H
#define COLLPROF_CP_PROF_NEXT_H

#include "cp_prof.h"

/* Once, at the first init: dlopen COLLPROF_NEXT_PROFILER when set and find
 * its table.  Returns 1 when a next profiler is loaded; says why not through
 * warn (one line) when it was asked for and cannot be. */
int cp_next_load(unsigned api, void (*warn)(const char *line));

/* Its init for one communicator; *mask: the events it asks for. */
ncclResult_t cp_next_init(void **ctx, int *mask, const struct cp_prof_init *in);

/* One event in its layout (parents already its own handles); its handle,
 * NULL when it gave none. */
void *cp_next_start(void *ctx, const struct cp_prof_event *ev);
void cp_next_stop(void *handle);
/* args: NCCL's state arguments in the layout of the version NCCL took. */
void cp_next_state(void *handle, int state, uint64_t trans_size,
                   uint64_t ptimer, void *args);
void cp_next_finalize(void *ctx);

#endif
