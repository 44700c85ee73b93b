/* cp_steps.c - training steps from the order of one rank's calls (see
 * cp_steps.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_scan.h"
#include "cp_stats.h"
#include "cp_steps.h"

/* The stretch must cover this share of the calls read. */
#define COVERAGE 0.75

/* The longest stretch [*first, *first + return) in which sig[i] ==
 * sig[i + P] for every i: the calls repeat with period P. */
static size_t longest_run(const uint32_t *sig, size_t len, size_t P,
                          size_t *first)
{
    size_t i, run = 0, best = 0, at = 0;

    for (i = 0; i + P < len; i++) {
        if (sig[i] == sig[i + P] && sig[i]) {
            if (run++ == 0)
                at = i;
            if (run > best) {
                best = run;
                *first = at;
            }
        } else {
            run = 0;
        }
    }
    return best;
}

/* The smallest period whose stretch repeats at least twice and covers
 * most calls; 0 when there is none. */
static size_t find_period(const uint32_t *sig, size_t len, size_t *first,
                          size_t *span)
{
    size_t P;

    for (P = 1; P * 2 <= len; P++) {
        size_t at = 0, run = longest_run(sig, len, P, &at);
        if (run >= P && (double)(run + P) >= COVERAGE * (double)len) {
            *first = at;
            *span = run + P;
            return P;
        }
    }
    return 0;
}

void cp_steps_find(const uint32_t *sig, const int64_t *start,
                   const int64_t *end, size_t len, uint64_t total,
                   struct cp_steps_result *out)
{
    size_t P, first = 0, span = 0, i, ng = 0;
    uint32_t *marked = NULL;
    double *gaps = NULL, med = 0, calls;

    memset(out, 0, sizeof *out);
    if (total < len)
        total = len;
    P = find_period(sig, len, &first, &span);
    if (P == 1) {
        /* every call alike: only pauses (the optimizer step and the
         * forward pass between the last call of a step and the first of
         * the next) can mark the steps */
        P = 0;
        if (!start || !end)
            return;
        marked = malloc(len * sizeof *marked);
        gaps = malloc(len * sizeof *gaps);
        if (!marked || !gaps)
            goto out;
        for (i = 1; i < len; i++)
            gaps[ng++] = (double)(start[i] - end[i - 1]);
        if (ng) {
            cp_stats_sort(gaps, ng);
            med = gaps[ng / 2]; /* the upper median */
        }
        for (i = 0; i < len; i++) {
            double gap = i > 0 ? (double)(start[i] - end[i - 1]) : 0;
            int pause = gap > 10 * fmax(med, 0) && gap > 1e6;
            marked[i] = sig[i] ^ (pause ? 0x9e3779b9u : 0);
        }
        P = find_period(marked, len, &first, &span);
        if (P <= 1)
            goto out;
        out->by_pauses = 1;
    }
    if (P == 0)
        goto out;
    calls = (double)span;
    if (first + span >= len) /* the stretch goes on past what was read */
        calls += (double)(total - len);
    out->period = P;
    out->first = first;
    out->steps = (unsigned)fmax(2, floor(calls / (double)P + 0.5));
out:
    free(marked);
    free(gaps);
}

static uint32_t call_signature(const struct cp_rec_call *c)
{
    uint64_t h = c->comm_id * 0x9e3779b97f4a7c15ull;

    h ^= (uint64_t)c->op * 0xff51afd7ed558ccdull + c->count;
    h ^= (uint64_t)c->dtype << 56 ^ (uint64_t)c->redop << 48;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32)) | 1u;
}

int cp_steps_from_log(const char *path, const struct cp_logfile_known *known,
                      uint64_t total, struct cp_steps_result *out,
                      struct cp_error *err)
{
    struct cp_scan *sc = NULL;
    const union cp_rec *r;
    uint32_t *sig = NULL;
    int64_t *start = NULL, *end = NULL;
    size_t len = 0;
    int rc = -1;

    memset(out, 0, sizeof *out);
    sig = malloc(CP_STEPS_CALLS * sizeof *sig);
    start = malloc(CP_STEPS_CALLS * sizeof *start);
    end = malloc(CP_STEPS_CALLS * sizeof *end);
    if (!sig || !start || !end) {
        cp_error_set(err, path, -1, "out of memory");
        goto out;
    }
    sc = known ? cp_scan_reopen_sized(path, known, CP_SCAN_BUFFER, err)
               : cp_scan_open(path, err);
    if (!sc)
        goto out;
    while (len < CP_STEPS_CALLS && (r = cp_scan_next(sc)) != NULL) {
        const struct cp_rec_call *c = &r->call;
        if (r->kind != CP_REC_CALL)
            continue;
        if (c->result != 0 && c->result != 7) /* success, in progress */
            continue;
        sig[len] = call_signature(c);
        start[len] = (int64_t)c->start_ns;
        end[len] = (int64_t)c->end_ns;
        len++;
    }
    cp_steps_find(sig, start, end, len, total, out);
    rc = 0;
out:
    if (sc)
        cp_scan_close(sc);
    free(sig);
    free(start);
    free(end);
    return rc;
}
