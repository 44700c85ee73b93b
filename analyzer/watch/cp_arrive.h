/* cp_arrive.h - who arrived last at the recent instances of each
 * communicator's collectives, from several reporters (collprof watch).
 *
 * A reporter is what sees some of an instance's ranks: a rank's own log (a
 * watcher following every log), or a node (the lead watcher, fed by the
 * nodes' states).  Each reports, per instance (communicator, sequence), the
 * latest of its ranks' arrivals (which rank, when) and the earliest.  An
 * instance is complete when as many reporters have reported it as the
 * most that reported any instance of its communicator: all of them, once
 * every reporter has been heard.  Bounded: per communicator the
 * CP_ARRIVE_KEEP newest instances, and CP_ARRIVE_COMMS communicators.
 * Arrivals are each reporter's clock: a suspicion only, which the analysis
 * (with clocks aligned) confirms or not.  Never prints.
 */
#ifndef COLLPROF_CP_ARRIVE_H
#define COLLPROF_CP_ARRIVE_H

#include <stddef.h>
#include <stdint.h>

#define CP_ARRIVE_KEEP 128   /* instances kept per communicator */
#define CP_ARRIVE_COMMS 4096 /* communicators kept */

struct cp_arrive;

struct cp_arrive *cp_arrive_new(void);
void cp_arrive_free(struct cp_arrive *a);

/* One reporter's arrivals at instance seq of comm (nranks ranks): its
 * latest arrival (rank last_rank at last_ns) and its earliest (first_ns).
 * 0, or -1 when out of memory or past CP_ARRIVE_COMMS (dropped). */
int cp_arrive_add(struct cp_arrive *a, uint64_t comm, uint32_t nranks,
                  uint32_t seq, int last_rank, uint64_t first_ns,
                  uint64_t last_ns);

/* Each complete instance not taken before, oldest first, at most max per
 * communicator (the newest of them; the older ones are marked taken too):
 * fn(arg, comm, nranks, seq, last_rank, first_ns, last_ns). */
typedef void (*cp_arrive_fn)(void *arg, uint64_t comm, uint32_t nranks,
                             uint32_t seq, int last_rank, uint64_t first_ns,
                             uint64_t last_ns);
void cp_arrive_take(struct cp_arrive *a, size_t max, cp_arrive_fn fn,
                    void *arg);

/* The rank last at the most of a communicator's `window` newest complete
 * instances.  Per communicator: *rank, how many of them (*last_of out of
 * *complete), and the median spread of those (latest minus earliest
 * arrival).  fn gets each communicator of 3 ranks or more with at least one
 * complete instance. */
struct cp_arrive_last {
    uint64_t comm;
    uint32_t nranks;
    int rank;
    unsigned last_of, complete;
    uint64_t spread_ns; /* the median, over the instances it was last at */
};
void cp_arrive_lasts(const struct cp_arrive *a, size_t window,
                     void (*fn)(void *arg, const struct cp_arrive_last *l),
                     void *arg);

#endif
