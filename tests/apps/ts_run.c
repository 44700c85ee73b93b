/* ts_run.c - per-process state of train_sim (see ts_run.h). */
#include "ts_run.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
ts_run_init(struct ts_run *run, int rank, int nranks)
{
    memset(run, 0, sizeof *run);
    run->rank = rank;
    run->nranks = nranks;
    run->step = TS_RUN_STEP_INIT;
}

void
ts_run_release(struct ts_run *run)
{
    free(run->faults); /* a call still held back by swap is never made */
    run->faults = NULL;
    for (int slot = 0; slot < TS_RUN_SCRATCH_SLOTS; slot++) {
        free(run->scratch[slot]);
        run->scratch[slot] = NULL;
        run->scratch_bytes[slot] = 0;
    }
}

void *
ts_run_scratch(struct ts_run *run, int slot, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (run->scratch_bytes[slot] < bytes) {
        void *grown = realloc(run->scratch[slot], bytes);
        if (grown == NULL)
            ts_run_fail(run, "cannot allocate %zu bytes", bytes);
        run->scratch[slot] = grown;
        run->scratch_bytes[slot] = bytes;
    }
    return run->scratch[slot];
}

const char *
ts_run_phase(const struct ts_run *run, char *buf, size_t len)
{
    if (run->step == TS_RUN_STEP_INIT)
        snprintf(buf, len, "init");
    else if (run->step == TS_RUN_STEP_FINAL)
        snprintf(buf, len, "final");
    else
        snprintf(buf, len, "step %d", run->step);
    return buf;
}

void
ts_run_fail(const struct ts_run *run, const char *fmt, ...)
{
    char phase[32];
    char message[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    /* one fprintf, so that lines of different ranks do not interleave */
    fprintf(stderr, "%s: rank %d %s %s\n", TS_RUN_PROGRAM, run->rank,
            ts_run_phase(run, phase, sizeof phase), message);
    fflush(stderr);
    exit(1);
}
