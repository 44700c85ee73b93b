/* cp_prof.c - the core of the NCCL profiler plugin (see cp_prof.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "collprof/cp_clockns.h"
#include "cp_config.h"
#include "cp_logwrite.h"
#include "cp_prof.h"
#include "cp_prof_next.h"

#define POOL_TASKS 4096u
#define POOL_PROXIES 8192u
#define POOL_STEPS 16384u
#define POOL_KCH 8192u
#define POOL_PHASES 16384u
#define POOL_FWD 65536u
#define PROBE_MAX 64u
/* A stopped task whose kernel channels never all came is written out
 * anyway when its entry is needed again this much later. */
#define TASK_STALE_NS UINT64_C(1000000000)
/* Peers a task keeps link evidence for (CP_STEPS_LINKS): a ring sends to
 * one, a tree to three, p2p to one; a send to a peer past these is
 * written as a record of its own. */
#define TASK_LINKS 8u
#define P2P_PEERS_V3 4096
/* A calibration pair is written when the offset estimate improves by more
 * than this. */
#define CALIB_STEP_NS 1000

enum ev_kind {
    EV_FREE = 0,
    EV_SENTINEL, /* group, API, launch events: nothing to record */
    EV_API_PLAIN,
    EV_API_GRAPH,
    EV_TASK,
    EV_PROXY,
    EV_STEP,
    EV_KCH,
    EV_PHASE,
    EV_FWD
};

struct ctx;

struct sentinel {
    uint8_t kind;
};

/* One call's sends to one peer (CP_STEPS_LINKS), summed over its proxy
 * operations as each stops; written when the last reference to the task
 * goes.  Fields are atomic: operations of several channels may stop on
 * different proxy threads. */
struct link_acc {
    uint64_t key; /* atomic: 0 free, else link_key(dir, peer) */
    uint64_t bytes, busy_ns, first_ns, last_ns;
    uint32_t steps, channels, min_step_ns, max_step_ns;
};

struct task {
    uint8_t kind;     /* EV_TASK; the entry is taken while busy != 0 */
    int busy;         /* atomic */
    int pending;      /* atomic: stop + expected kernel channels not yet in */
    int refs;         /* atomic: 1 until finished, + 1 per proxy operation
                         holding its link evidence; the last one out writes
                         the links and frees the entry */
    struct ctx *ctx;
    uint64_t slot;    /* the call record */
    union cp_rec *rec;
    uint64_t stopped_ns; /* atomic; 0 while running */
    uint64_t gpu_min, gpu_max; /* atomic min / max of kernel-channel times */
    uint32_t kch_seen;         /* atomic */
    uint32_t kch_damaged;      /* atomic: channels with a GPU time 0 or
                                  running backwards */
    struct cp_rec_nccl info;   /* filled at start, written at the end */
    struct link_acc links[TASK_LINKS]; /* CP_STEPS_LINKS */
};

struct proxy {
    uint8_t kind; /* EV_PROXY */
    int busy;
    uint64_t slot;
    union cp_rec *rec; /* NULL in CP_STEPS_LINKS: no record of its own */
    struct cp_rec_proxy p; /* accumulated on the proxy thread */
    int chunk_size;
    /* CP_STEPS_LINKS: the task it adds to (holding a reference; NULL: its
     * parent was not seen), and what kind 7 does not keep */
    struct task *task;
    uint64_t first_ns, last_ns;
    uint32_t steps, max_step_ns;
};

struct step {
    uint8_t kind; /* EV_STEP */
    int busy;
    struct proxy *op;
    struct cp_rec_step s;
    int got_data; /* recv: the data arrived (flush or GPU wait began) */
};

struct kch {
    uint8_t kind; /* EV_KCH */
    int busy;
    struct task *task;
    uint64_t start_raw, stop_raw;
    int damaged; /* v4+: a start time 0 */
};

/* A kernel phase (v7): written at its stop, with its call's slot as it was
 * at the phase's start (the task entry may be reused by then). */
struct phase {
    uint8_t kind; /* EV_PHASE */
    int busy;
    struct cp_rec_phase p;
};

/* With a next profiler: the handle NCCL gets, holding collprof's handle and
 * the next profiler's. */
struct fwd {
    uint8_t kind; /* EV_FWD */
    int busy;
    void *mine, *theirs;
};

struct ctx {
    uint64_t comm_id;
    int rank, nranks;
    int comm_written; /* atomic */
    const char *name;
    char name_buf[CP_COMM_NAME_LEN + 1];
    uint32_t coll_seq; /* atomic */
    uint32_t *p2p_seq; /* [2 * npeers]: send counters, then recv counters */
    int npeers;
    struct sentinel api_plain, api_graph;
    void *next_ctx; /* the next profiler's context; NULL: none */
    int next_mask;  /* the events it asked for */
};

/* ---- process-wide state --------------------------------------------------- */

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cp_log the_log;
static int log_state; /* 0 not tried, 1 open, -1 failed (atomic) */
static int contexts;  /* under open_lock */
static unsigned api_taken;
static uint64_t dropped;      /* atomic: events not recorded */
static uint64_t steps_left;   /* atomic: per-step budget */
static uint64_t steps_over;   /* atomic: steps beyond the budget */
static unsigned step_mode;    /* enum cp_step_mode asked for */
static int64_t gpu_offset;    /* atomic: realtime - GPU timer, best so far */
static int have_offset;       /* atomic */
static struct sentinel sentinel = {EV_SENTINEL};

static struct task tasks[POOL_TASKS];
static struct proxy proxies[POOL_PROXIES];
static struct step steps[POOL_STEPS];
static struct kch kchs[POOL_KCH];
static struct phase phases[POOL_PHASES];
static struct fwd fwds[POOL_FWD];
static uint32_t next_task, next_proxy, next_step, next_kch; /* atomic */
static uint32_t next_phase, next_fwd;                       /* atomic */
static int next_loaded; /* under open_lock: 0 not tried, 1 loaded, -1 none */

static uint64_t realtime_ns(void)
{
    return cp_clock_ns(CLOCK_REALTIME);
}

static uint64_t monotonic_ns(void)
{
    return cp_clock_ns(CLOCK_MONOTONIC);
}

static void warn_line(const char *what)
{
    /* The SPANK boundary and main() print; the plugin is a boundary too:
     * NCCL gives it no other channel to the user.  One line, once. */
    fprintf(stderr, "collprof: %s\n", what);
}

static int take(int *busy)
{
    int zero = 0;
    return __atomic_compare_exchange_n(busy, &zero, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

static void release(int *busy)
{
    __atomic_store_n(busy, 0, __ATOMIC_RELEASE);
}

static void drop(void)
{
    __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
}

/* Atomic minimum and maximum of the field at `at` (64 or 32 bits: its own
 * type); a minimum of 0 is "none yet". */
#define ATOMIC_MIN(at, v)                                                    \
    do {                                                                     \
        __typeof__(*(at)) cur_ = __atomic_load_n((at), __ATOMIC_RELAXED),    \
                          v_ = (v);                                          \
        while ((cur_ == 0 || v_ < cur_) &&                                   \
               !__atomic_compare_exchange_n((at), &cur_, v_, 0,              \
                                            __ATOMIC_RELAXED,                \
                                            __ATOMIC_RELAXED))               \
            ;                                                                \
    } while (0)
#define ATOMIC_MAX(at, v)                                                    \
    do {                                                                     \
        __typeof__(*(at)) cur_ = __atomic_load_n((at), __ATOMIC_RELAXED),    \
                          v_ = (v);                                          \
        while (v_ > cur_ &&                                                  \
               !__atomic_compare_exchange_n((at), &cur_, v_, 0,              \
                                            __ATOMIC_RELAXED,                \
                                            __ATOMIC_RELAXED))               \
            ;                                                                \
    } while (0)

/* ---- names NCCL passes as strings ------------------------------------------ */

static unsigned op_code(const char *func)
{
    if (!func)
        return CP_OP_NONE;
#define CP_X_MATCH(fn, code, name)                                             \
    if (strcasecmp(func, #fn) == 0)                                            \
        return code;
    CP_OP_TABLE(CP_X_MATCH)
#undef CP_X_MATCH
    return CP_OP_NONE;
}

static unsigned dtype_code(const char *dt)
{
    unsigned i;

    if (!dt)
        return CP_DTYPE_NONE;
    if (strncasecmp(dt, "nccl", 4) == 0)
        dt += 4;
    for (i = 0; i < 12; i++)
        if (strcasecmp(dt, cp_dtype_name(i)) == 0)
            return i;
    /* NCCL's older spellings */
    if (strcasecmp(dt, "half") == 0)
        return 6;
    if (strcasecmp(dt, "float") == 0)
        return 7;
    if (strcasecmp(dt, "double") == 0)
        return 8;
    return CP_DTYPE_NONE;
}

static uint8_t algo_code(const char *s)
{
    if (!s)
        return 0;
#define CP_X_MATCH(c, name)                                                    \
    if (strcasecmp(s, name) == 0)                                              \
        return c;
    CP_NCCL_ALGO_TABLE(CP_X_MATCH)
#undef CP_X_MATCH
    return 0;
}

static uint8_t proto_code(const char *s)
{
    if (!s)
        return 0;
#define CP_X_MATCH(c, name)                                                    \
    if (strcasecmp(s, name) == 0)                                              \
        return c;
    CP_NCCL_PROTO_TABLE(CP_X_MATCH)
#undef CP_X_MATCH
    return 0;
}

/* ---- the log ---------------------------------------------------------------- */

static const char *env_get(const char *name)
{
    return getenv(name);
}

/* COLLPROF_PLUGIN_STEPS: unset, empty or "links" per call and peer (kind
 * 11, the default); "1" or "all" every step (kinds 7 and 8); "0" or "none"
 * per proxy operation (kind 7); N >= 2 per step until N step records,
 * then per operation. */
static void read_step_mode(void)
{
    const char *v = getenv("COLLPROF_PLUGIN_STEPS");
    char *end;
    unsigned long long n;

    step_mode = CP_STEPS_LINKS;
    steps_left = 0;
    if (!v || !*v || strcmp(v, "links") == 0)
        return;
    if (strcmp(v, "all") == 0 || strcmp(v, "1") == 0) {
        step_mode = CP_STEPS_ALL;
        steps_left = UINT64_MAX;
        return;
    }
    if (strcmp(v, "none") == 0 || strcmp(v, "0") == 0) {
        step_mode = CP_STEPS_AGGREGATE;
        return;
    }
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno || *end || v[0] < '0' || v[0] > '9') {
        warn_line("COLLPROF_PLUGIN_STEPS must be links, all (or 1), none "
                  "(or 0) or a number of step records from 2; using the "
                  "default (links)");
        return;
    }
    if (n < 2) { /* 00, 01 */
        step_mode = n ? CP_STEPS_ALL : CP_STEPS_AGGREGATE;
        steps_left = n ? UINT64_MAX : 0;
        return;
    }
    step_mode = CP_STEPS_BUDGET;
    steps_left = n;
}

/* Open the log at the first communicator.  Returns 1 when open. */
static int open_log(unsigned api)
{
    static struct cp_config cfg;
    struct cp_log_ident id;
    struct cp_error err;
    int version = 0;
    ncclResult_t (*get_version)(int *);

    cp_config_read(&cfg, env_get, 1u << CP_TIMER_HOST);
    if (cfg.disabled)
        return 0;
    if (cfg.problem[0]) {
        /* a bad setting (COLLPROF_LOG_FORMAT=5 ...): its default, said */
        char line[400];
        snprintf(line, sizeof line, "%s; the NCCL profiler plugin goes on",
                 cfg.problem);
        warn_line(line);
    }
    read_step_mode();
    *(void **)&get_version = dlsym(RTLD_DEFAULT, "ncclGetVersion");
    if (!get_version || get_version(&version) != ncclSuccess)
        version = 0;
    memset(&id, 0, sizeof id);
    id.global_rank = cfg.global_rank;
    id.world_size = cfg.world_size;
    id.local_rank = cfg.local_rank;
    id.nccl_version = version;
    id.timer = CP_TIMER_KERNEL_CH;
    id.source = CP_SOURCE_PLUGIN;
    id.node = cfg.node;
    id.hostname = cfg.hostname;
    id.job_id = cfg.job_id;
    id.step_id = cfg.step_id;
    id.timer_reason = api >= 4 ? "plugin: kernel-channel GPU timer"
                               : "plugin v3: kernel channels seen by the proxy";
    id.program = program_invocation_short_name;
    /* format 4 unless COLLPROF_LOG_FORMAT=3, as the shim's */
    id.format = cfg.log_format;
    id.ring_slots = cfg.ring_slots;
    /* the capture policy (docs/capture-policy.md) as the shim's: a call
     * outside the detail windows folded with every record about it */
    id.policy = cfg.policy_on ? &cfg.policy : NULL;
    if (cp_log_open(&the_log, cfg.dir, &id, &err) < 0) {
        char line[640];
        snprintf(line, sizeof line,
                 "%s; the NCCL profiler plugin records nothing", err.text);
        warn_line(line);
        return 0;
    }
    the_log.hdr->plugin_api = api;
    the_log.hdr->steps = step_mode;
    api_taken = api;
    return 1;
}

/* A slot of the log, zeroed: in format 4 a slot is a cell of the ring,
 * reused round and round, which still holds an older record.  NULL (and
 * counted dropped by the caller) when the log has no room. */
static union cp_rec *log_slot(uint64_t *slot)
{
    union cp_rec *r = cp_log_slot(&the_log, slot);

    if (r)
        memset(r, 0, sizeof *r);
    return r;
}

static void write_clock(uint64_t real, uint64_t gpu)
{
    uint64_t slot;
    union cp_rec *r = log_slot(&slot);

    if (!r) {
        drop();
        return;
    }
    r->clock.realtime_ns = real;
    r->clock.monotonic_ns = monotonic_ns();
    r->clock.gpu_ns = gpu;
    cp_log_commit(r, CP_REC_CLOCK);
}

/* A GPU timestamp delivered at host time `real`: the GPU event happened
 * before, so real - gpu bounds the offset from above; the smallest such
 * bound is the estimate (within the proxy's polling delay). */
static void calibrate(uint64_t real, uint64_t gpu)
{
    int64_t cand = (int64_t)(real - gpu);
    int64_t cur = __atomic_load_n(&gpu_offset, __ATOMIC_RELAXED);
    int first = !__atomic_load_n(&have_offset, __ATOMIC_ACQUIRE);

    if (!first && cand >= cur)
        return;
    if (first) {
        int zero = 0;
        if (__atomic_compare_exchange_n(&have_offset, &zero, 2, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            __atomic_store_n(&gpu_offset, cand, __ATOMIC_RELEASE);
            __atomic_store_n(&have_offset, 1, __ATOMIC_RELEASE);
            write_clock(real, gpu);
            return;
        }
        cur = __atomic_load_n(&gpu_offset, __ATOMIC_RELAXED);
    }
    while (cand < cur) {
        if (__atomic_compare_exchange_n(&gpu_offset, &cur, cand, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            if (cur - cand > CALIB_STEP_NS)
                write_clock(real, gpu);
            return;
        }
    }
}

/* ---- tasks ------------------------------------------------------------------ */

static void write_comm(struct ctx *c)
{
    uint64_t slot;
    union cp_rec *r;

    if (__atomic_exchange_n(&c->comm_written, 1, __ATOMIC_ACQ_REL))
        return;
    r = log_slot(&slot);
    if (!r) {
        drop();
        return;
    }
    r->comm.how = CP_COMM_INIT_RANK;
    r->comm.cuda_dev = -1;
    r->comm.comm_id = c->comm_id;
    r->comm.nranks = c->nranks > 0 ? (uint32_t)c->nranks : 0;
    r->comm.rank = (uint32_t)c->rank;
    r->comm.color = -1;
    r->comm.key = -1;
    r->comm.time_ns = realtime_ns();
    memcpy(r->comm.name, c->name_buf, CP_COMM_NAME_LEN);
    cp_log_commit(r, CP_REC_COMM);
}

/* ---- link evidence (CP_STEPS_LINKS) ------------------------------------ */

static uint64_t link_key(unsigned dir, int32_t peer)
{
    return UINT64_C(1) << 40 | (uint64_t)(dir & 0xffu) << 32 | (uint32_t)peer;
}

/* Write a's kind 11 record; call_slot: its call record (UINT64_MAX: not
 * seen). */
static void write_link(const struct link_acc *a, uint64_t call_slot,
                       uint64_t comm_id)
{
    struct cp_rec_link l;
    uint64_t slot;
    union cp_rec *r = log_slot(&slot);

    if (!r) {
        drop();
        return;
    }
    memset(&l, 0, sizeof l);
    l.dir = (uint8_t)(a->key >> 32);
    l.channels = (uint8_t)(a->channels > 255 ? 255 : a->channels);
    l.peer = (int32_t)(uint32_t)a->key;
    l.comm_id = comm_id;
    l.back = call_slot < slot && slot - call_slot <= UINT32_MAX
                 ? (uint32_t)(slot - call_slot)
                 : 0;
    l.steps = a->steps;
    l.bytes = a->bytes;
    l.first_ns = a->first_ns;
    l.last_ns = a->last_ns;
    l.busy_ns = a->busy_ns;
    l.min_step_ns = a->min_step_ns;
    l.max_step_ns = a->max_step_ns;
    memcpy((char *)r + 1, (const char *)&l + 1, sizeof l - 1);
    cp_log_commit(r, CP_REC_LINK);
}

/* What proxy operation p adds to a link's evidence. */
static void link_of_op(struct link_acc *a, const struct proxy *p)
{
    memset(a, 0, sizeof *a);
    a->key = link_key(p->p.dir, p->p.peer);
    a->bytes = p->p.bytes;
    a->busy_ns = p->p.busy_ns;
    a->first_ns = p->first_ns;
    a->last_ns = p->last_ns;
    a->steps = p->steps;
    a->channels = 1;
    a->min_step_ns = p->p.min_step_ns;
    a->max_step_ns = p->max_step_ns;
}

/* Add stopped operation p to its task's evidence for its peer: 0 when
 * the task keeps TASK_LINKS other peers already. */
static int link_add(struct task *t, const struct proxy *p)
{
    struct link_acc op;
    unsigned i;

    link_of_op(&op, p);
    for (i = 0; i < TASK_LINKS; i++) {
        struct link_acc *a = &t->links[i];
        uint64_t k = __atomic_load_n(&a->key, __ATOMIC_ACQUIRE);
        if (k == 0 &&
            __atomic_compare_exchange_n(&a->key, &k, op.key, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            k = op.key;
        if (k != op.key)
            continue;
        __atomic_add_fetch(&a->bytes, op.bytes, __ATOMIC_RELAXED);
        __atomic_add_fetch(&a->busy_ns, op.busy_ns, __ATOMIC_RELAXED);
        __atomic_add_fetch(&a->steps, op.steps, __ATOMIC_RELAXED);
        __atomic_add_fetch(&a->channels, 1, __ATOMIC_RELAXED);
        if (op.first_ns)
            ATOMIC_MIN(&a->first_ns, op.first_ns);
        ATOMIC_MAX(&a->last_ns, op.last_ns);
        if (op.min_step_ns)
            ATOMIC_MIN(&a->min_step_ns, op.min_step_ns);
        ATOMIC_MAX(&a->max_step_ns, op.max_step_ns);
        return 1;
    }
    return 0;
}

/* A reference to a task that is not finished or still has operations
 * open: 0 when it has neither (its entry may be free or taken again). */
static int task_ref(struct task *t)
{
    int r = __atomic_load_n(&t->refs, __ATOMIC_ACQUIRE);

    while (r > 0)
        if (__atomic_compare_exchange_n(&t->refs, &r, r + 1, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 1;
    return 0;
}

/* The last reference out writes the task's links and frees its entry. */
static void task_unref(struct task *t)
{
    unsigned i;

    if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (step_mode == CP_STEPS_LINKS)
        for (i = 0; i < TASK_LINKS; i++)
            if (t->links[i].key)
                write_link(&t->links[i], t->slot, t->info.comm_id);
    release(&t->busy);
}

/* The task's kind 6 record and, when kernel channels came, its kind 5. */
static void task_finish(struct task *t)
{
    uint64_t slot;
    union cp_rec *r;
    uint64_t lo = __atomic_load_n(&t->gpu_min, __ATOMIC_RELAXED);
    uint64_t hi = __atomic_load_n(&t->gpu_max, __ATOMIC_RELAXED);
    uint32_t seen = __atomic_load_n(&t->kch_seen, __ATOMIC_RELAXED);
    uint32_t bad = __atomic_load_n(&t->kch_damaged, __ATOMIC_RELAXED);

    t->info.kernel_channels =
        (uint16_t)(seen + bad > 65535 ? 65535 : seen + bad);
    if (bad) {
        /* a damaged GPU time is no time: no interval from any channel */
        t->info.flags |= CP_NCCL_DAMAGED_TIME;
        seen = 0;
    }
    if (seen && hi >= lo) {
        t->info.gpu_start_raw = lo;
        t->info.gpu_end_raw = hi;
    } else {
        t->info.flags |= CP_NCCL_NO_KERNEL;
    }
    /* The call ends when its kernel does (a blocking call's end, as the
     * shim's host timer has it); without kernel channels, at its stop. */
    if (seen && hi >= lo &&
        __atomic_load_n(&have_offset, __ATOMIC_ACQUIRE) == 1) {
        int64_t off = __atomic_load_n(&gpu_offset, __ATOMIC_RELAXED);
        uint64_t end = (uint64_t)((int64_t)hi + off);
        if (end > t->rec->call.end_ns)
            t->rec->call.end_ns = end;
        cp_log_commit(t->rec, CP_REC_CALL);
        r = log_slot(&slot);
        if (r) {
            r->gpu.timer = CP_TIMER_KERNEL_CH;
            r->gpu.slot = t->slot;
            r->gpu.start_ns = (uint64_t)((int64_t)lo + off);
            r->gpu.end_ns = end;
            cp_log_commit(r, CP_REC_GPU);
        } else {
            drop();
        }
    } else {
        cp_log_commit(t->rec, CP_REC_CALL);
    }
    r = log_slot(&slot);
    if (r) {
        memcpy((char *)r + 1, (const char *)&t->info + 1, sizeof t->info - 1);
        cp_log_commit(r, CP_REC_NCCL);
    } else {
        drop();
    }
    __atomic_store_n(&t->stopped_ns, 0, __ATOMIC_RELAXED);
    task_unref(t);
}

/* One of the task's expected events came; the last one finishes it. */
static void task_put(struct task *t)
{
    if (__atomic_sub_fetch(&t->pending, 1, __ATOMIC_ACQ_REL) == 0)
        task_finish(t);
}

/* A task entry still busy long after its stop: its remaining kernel
 * channels are not coming (or come too late to be told apart): finish it. */
static void task_reclaim(struct task *t, uint64_t now)
{
    uint64_t stopped = __atomic_load_n(&t->stopped_ns, __ATOMIC_ACQUIRE);
    int p;

    if (!stopped || now - stopped < TASK_STALE_NS)
        return;
    p = __atomic_load_n(&t->pending, __ATOMIC_ACQUIRE);
    while (p > 0) {
        if (__atomic_compare_exchange_n(&t->pending, &p, 0, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            task_finish(t);
            return;
        }
    }
}

static struct task *task_get(uint64_t now)
{
    unsigned i;

    for (i = 0; i < PROBE_MAX; i++) {
        uint32_t k = __atomic_fetch_add(&next_task, 1, __ATOMIC_RELAXED);
        struct task *t = &tasks[k % POOL_TASKS];
        if (take(&t->busy))
            return t;
        task_reclaim(t, now);
    }
    return NULL;
}

/* The kind 9 record of a v7 task: its user tag and kernel variant. */
static void write_tag(const struct task *t, const struct cp_prof_event *ev,
                      int ce)
{
    uint64_t slot;
    union cp_rec *r = log_slot(&slot);

    if (!r) {
        drop();
        return;
    }
    r->tag.flags = (uint8_t)((ev->sym_coll ? CP_TAG_SYMMETRIC : 0) |
                             (ce ? CP_TAG_CE : 0));
    r->tag.seq = t->info.seq;
    r->tag.slot = t->slot;
    r->tag.user_tag = ev->user_tag;
    memset(r->tag.kernel_variant, 0, sizeof r->tag.kernel_variant);
    if (ev->kernel_variant)
        memcpy(r->tag.kernel_variant, ev->kernel_variant,
               strnlen(ev->kernel_variant, sizeof r->tag.kernel_variant));
    cp_log_commit(r, CP_REC_TAG);
}

static void start_task(struct ctx *c, void **handle,
                       const struct cp_prof_event *ev)
{
    uint64_t now = realtime_ns();
    struct task *t;
    union cp_rec *r;
    unsigned op = op_code(ev->func);
    int p2p = cp_op_is_p2p(op);
    int ce = ev->type == ncclProfileCeColl;
    uint32_t seq = UINT32_MAX;

    if (c->comm_id == 0 && ev->comm_hash)
        c->comm_id = ev->comm_hash; /* v3 */
    if (c->comm_id == 0 || op == CP_OP_NONE) {
        drop();
        return;
    }
    write_comm(c);
    t = task_get(now);
    if (!t) {
        drop();
        return;
    }
    r = log_slot(&t->slot);
    if (!r) {
        release(&t->busy);
        drop();
        return;
    }
    if (p2p) {
        int peer = ev->root_or_peer;
        if (peer >= 0 && peer < c->npeers)
            seq = __atomic_fetch_add(
                &c->p2p_seq[(op == CP_OP_Recv ? c->npeers : 0) + peer], 1,
                __ATOMIC_RELAXED);
    } else {
        seq = __atomic_fetch_add(&c->coll_seq, 1, __ATOMIC_RELAXED);
    }
    t->kind = EV_TASK;
    t->ctx = c;
    t->rec = r;
    t->gpu_min = UINT64_MAX;
    t->gpu_max = 0;
    t->kch_seen = 0;
    t->stopped_ns = 0;
    t->kch_damaged = 0;
    if (step_mode == CP_STEPS_LINKS)
        memset(t->links, 0, sizeof t->links);
    __atomic_store_n(&t->refs, 1, __ATOMIC_RELEASE);
    /* the stop, and one per channel whose kernel-channel event may come (a
     * copy-engine collective has none: its stop ends it) */
    t->pending = 1 + (ce ? 0 : (int)(ev->nchannels ? ev->nchannels : 1));
    memset(&t->info, 0, sizeof t->info);
    t->info.kind = CP_REC_NCCL;
    t->info.algo = p2p ? 0 : algo_code(ev->algo);
    t->info.proto = p2p ? 0 : proto_code(ev->proto);
    t->info.nchannels = (uint8_t)(ev->nchannels > 255 ? 255 : ev->nchannels);
    t->info.nwarps = (uint8_t)(ev->nwarps > 255 ? 255 : ev->nwarps);
    t->info.api = (uint8_t)api_taken;
    t->info.flags = (uint16_t)((p2p ? CP_NCCL_P2P : 0) |
                               (ce ? CP_NCCL_CE : 0) |
                               (ev->graph_captured ? CP_NCCL_GRAPH : 0));
    t->info.slot = t->slot;
    t->info.comm_id = c->comm_id;
    t->info.nccl_seq = p2p ? UINT64_MAX : ev->nccl_seq;
    t->info.seq = seq;
    t->info.op = (uint8_t)op;
    t->info.bytes = cp_call_bytes(ev->count, dtype_code(ev->datatype));

    r->call.op = (uint8_t)op;
    r->call.dtype = (uint8_t)dtype_code(ev->datatype);
    r->call.redop = CP_REDOP_NONE; /* NCCL does not tell the plugin */
    r->call.result = 0;
    r->call.timer = CP_TIMER_HOST;
    r->call.flags = ev->graph_captured ? CP_CALL_CAPTURED : 0;
    r->call.comm_id = c->comm_id;
    r->call.count = ev->count;
    r->call.seq = seq;
    r->call.peer = (p2p || op == CP_OP_Broadcast || op == CP_OP_Reduce ||
                    op == CP_OP_Gather || op == CP_OP_Scatter)
                       ? ev->root_or_peer
                       : -1;
    /* the rank init gave (NCCL has sent API events with rank 0 on every
     * rank); v3's init gives none: the event's */
    r->call.rank = (uint32_t)(c->rank >= 0 ? c->rank
                              : ev->rank >= 0 ? ev->rank : 0);
    r->call.nranks = c->nranks > 0 ? (uint32_t)c->nranks : 0;
    r->call.start_ns = now;
    if (api_taken >= 7)
        write_tag(t, ev, ce);
    *handle = t;
}

static void stop_task(struct task *t)
{
    uint64_t now = realtime_ns();

    t->rec->call.end_ns = now; /* committed when its kernel ended */
    __atomic_store_n(&t->stopped_ns, now, __ATOMIC_RELEASE);
    task_put(t);
}

/* ---- proxy operations and steps ------------------------------------------- */

static void start_proxy(struct ctx *c, void **handle,
                        const struct cp_prof_event *ev)
{
    struct task *parent = ev->parent;
    struct proxy *p = NULL;
    int links = step_mode == CP_STEPS_LINKS;
    unsigned i;

    if (links && !ev->is_send) {
        /* a receive is the same transfer its sender's log holds */
        *handle = &sentinel;
        return;
    }
    for (i = 0; i < PROBE_MAX && !p; i++) {
        uint32_t k = __atomic_fetch_add(&next_proxy, 1, __ATOMIC_RELAXED);
        if (take(&proxies[k % POOL_PROXIES].busy))
            p = &proxies[k % POOL_PROXIES];
    }
    if (!p) {
        drop();
        return;
    }
    p->rec = NULL;
    if (!links && !(p->rec = log_slot(&p->slot))) {
        release(&p->busy);
        drop();
        return;
    }
    p->kind = EV_PROXY;
    memset(&p->p, 0, sizeof p->p);
    p->p.dir = ev->is_send ? CP_PROXY_SEND : CP_PROXY_RECV;
    p->p.channel = (uint8_t)ev->channel;
    p->p.peer = ev->peer;
    p->p.comm_id = c->comm_id;
    p->p.slot = UINT64_MAX;
    p->task = NULL;
    p->first_ns = p->last_ns = 0;
    p->steps = p->max_step_ns = 0;
    /* links: a reference keeps the task's entry (and its evidence) until
     * this operation stopped; a parent not seen, or finished and left,
     * gets a record of its own */
    if (parent && parent->kind == EV_TASK &&
        __atomic_load_n(&parent->busy, __ATOMIC_ACQUIRE) && parent->ctx == c &&
        (!links || task_ref(parent))) {
        p->p.slot = parent->slot;
        if (!p->p.comm_id)
            p->p.comm_id = parent->info.comm_id;
        if (links)
            p->task = parent;
    }
    p->p.nsteps = (uint16_t)(ev->nsteps > 65535 ? 65535
                             : ev->nsteps < 0 ? 0
                                              : ev->nsteps);
    p->p.start_ns = realtime_ns();
    p->chunk_size = ev->chunk_size;
    *handle = p;
}

static void stop_proxy(struct proxy *p)
{
    struct task *t = p->task;

    p->p.end_ns = realtime_ns();
    if (p->rec) {
        memcpy((char *)p->rec + 1, (const char *)&p->p + 1, sizeof p->p - 1);
        cp_log_commit(p->rec, CP_REC_PROXY);
    } else if (!t || !link_add(t, p)) {
        /* no task, or its peers are full: a record of this one */
        struct link_acc a;
        link_of_op(&a, p);
        write_link(&a, p->p.slot, p->p.comm_id);
    }
    release(&p->busy);
    if (t)
        task_unref(t);
}

static void start_step(void **handle, const struct cp_prof_event *ev)
{
    struct proxy *op = ev->parent;
    struct step *s = NULL;
    unsigned i;

    if (op == (void *)&sentinel) {
        *handle = &sentinel; /* a receive's, not recorded (links) */
        return;
    }
    if (!op || op->kind != EV_PROXY) {
        drop();
        return;
    }
    for (i = 0; i < PROBE_MAX && !s; i++) {
        uint32_t k = __atomic_fetch_add(&next_step, 1, __ATOMIC_RELAXED);
        if (take(&steps[k % POOL_STEPS].busy))
            s = &steps[k % POOL_STEPS];
    }
    if (!s) {
        drop();
        return;
    }
    s->kind = EV_STEP;
    s->op = op;
    s->got_data = 0;
    memset(&s->s, 0, sizeof s->s);
    s->s.dir = op->p.dir;
    s->s.channel = op->p.channel;
    s->s.peer = op->p.peer;
    s->s.proxy_slot = op->slot;
    s->s.step = (uint32_t)ev->step;
    s->s.bytes = op->chunk_size > 0 ? (uint64_t)op->chunk_size : 0;
    s->s.start_ns = realtime_ns();
    *handle = s;
}

static void step_state(struct step *s, int state, uint64_t trans_size)
{
    uint64_t now = realtime_ns();

    if (trans_size)
        s->s.bytes = trans_size;
    switch (state) {
    case ncclProfilerProxyStepSendWait:
    case ncclProfilerProxyStepRecvWait:
        s->s.posted_ns = now;
        break;
    case ncclProfilerProxyStepRecvFlushWait:
    case ncclProfilerProxyStepRecvGPUWait:
        if (!s->got_data) {
            s->got_data = 1;
            s->s.done_ns = now;
        }
        break;
    default:
        break;
    }
}

/* One per-step record from the budget (UINT64_MAX: unlimited). */
static int step_budget_take(void)
{
    uint64_t v = __atomic_load_n(&steps_left, __ATOMIC_RELAXED);

    while (v) {
        if (v == UINT64_MAX)
            return 1;
        if (__atomic_compare_exchange_n(&steps_left, &v, v - 1, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

static void stop_step(struct step *s)
{
    struct proxy *op = s->op;
    uint64_t slot;
    union cp_rec *r;

    if (!s->got_data)
        s->s.done_ns = realtime_ns();
    if (!s->s.posted_ns)
        s->s.posted_ns = s->s.start_ns;
    if (s->s.done_ns < s->s.posted_ns)
        s->s.done_ns = s->s.posted_ns;
    /* The proxy thread owns its operations: plain updates. */
    {
        uint64_t t = s->s.done_ns - s->s.posted_ns;
        uint32_t t32 = t > UINT32_MAX ? UINT32_MAX : (uint32_t)(t ? t : 1);
        op->p.busy_ns += t;
        if (!op->p.min_step_ns || t32 < op->p.min_step_ns)
            op->p.min_step_ns = t32;
        if (t32 > op->max_step_ns)
            op->max_step_ns = t32;
    }
    if (!op->first_ns || s->s.posted_ns < op->first_ns)
        op->first_ns = s->s.posted_ns;
    if (s->s.done_ns > op->last_ns)
        op->last_ns = s->s.done_ns;
    op->p.bytes += s->s.bytes;
    if (op->p.steps_done < 65535)
        op->p.steps_done++;
    if (op->steps < UINT32_MAX)
        op->steps++;
    if (step_mode == CP_STEPS_LINKS) {
        /* the operation's sums are the record */
    } else if (step_budget_take()) {
        r = log_slot(&slot);
        if (r) {
            memcpy((char *)r + 1, (const char *)&s->s + 1, sizeof s->s - 1);
            cp_log_commit(r, CP_REC_STEP);
        } else {
            drop();
        }
    } else if (step_mode == CP_STEPS_BUDGET) {
        /* past the budget (none asks for no step record: none is over) */
        __atomic_add_fetch(&steps_over, 1, __ATOMIC_RELAXED);
    }
    release(&s->busy);
}

/* ---- kernel channels ------------------------------------------------------ */

static void start_kch(void **handle, const struct cp_prof_event *ev)
{
    struct task *t = ev->parent;
    struct kch *k = NULL;
    uint64_t now = realtime_ns();
    unsigned i;

    if (!t || t->kind != EV_TASK || !__atomic_load_n(&t->busy, __ATOMIC_ACQUIRE)) {
        drop();
        return;
    }
    for (i = 0; i < PROBE_MAX && !k; i++) {
        uint32_t n = __atomic_fetch_add(&next_kch, 1, __ATOMIC_RELAXED);
        if (take(&kchs[n % POOL_KCH].busy))
            k = &kchs[n % POOL_KCH];
    }
    if (!k) {
        drop();
        return;
    }
    k->kind = EV_KCH;
    k->task = t;
    k->stop_raw = 0;
    k->damaged = 0;
    if (api_taken >= 4) {
        /* a GPU time of 0 is a damaged one, not the timer's origin */
        k->start_raw = ev->ptimer;
        k->damaged = ev->ptimer == 0;
        if (ev->ptimer)
            calibrate(now, ev->ptimer);
    } else {
        /* v3 gives no GPU time: the start as the proxy saw it (offset 0) */
        k->start_raw = now;
        if (!__atomic_load_n(&have_offset, __ATOMIC_RELAXED))
            calibrate(now, now);
    }
    *handle = k;
}

static void stop_kch(struct kch *k)
{
    struct task *t = k->task;
    uint64_t stop, cur;

    if (api_taken >= 4) {
        /* the GPU's stop time, from the state; none, 0 or before the
         * start: damaged, no duration from this channel */
        stop = k->stop_raw;
        if (k->damaged || stop == 0 || stop < k->start_raw) {
            __atomic_add_fetch(&t->kch_damaged, 1, __ATOMIC_RELAXED);
            release(&k->busy);
            if (__atomic_load_n(&t->pending, __ATOMIC_ACQUIRE) > 0)
                task_put(t);
            return;
        }
    } else {
        stop = k->stop_raw ? k->stop_raw : realtime_ns();
    }
    cur = __atomic_load_n(&t->gpu_min, __ATOMIC_RELAXED);
    while (k->start_raw < cur &&
           !__atomic_compare_exchange_n(&t->gpu_min, &cur, k->start_raw, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    cur = __atomic_load_n(&t->gpu_max, __ATOMIC_RELAXED);
    while (stop > cur &&
           !__atomic_compare_exchange_n(&t->gpu_max, &cur, stop, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    __atomic_add_fetch(&t->kch_seen, 1, __ATOMIC_RELAXED);
    release(&k->busy);
    /* More channels than announced find the task finished already. */
    if (__atomic_load_n(&t->pending, __ATOMIC_ACQUIRE) > 0)
        task_put(t);
}

/* ---- kernel phases (v7) ----------------------------------------------------- */

static void start_phase(void **handle, const struct cp_prof_event *ev)
{
    struct task *t = NULL;
    struct phase *ph = NULL;
    uint8_t pk = ev->parent ? *(uint8_t *)ev->parent : EV_FREE;
    unsigned i;

    /* its parent: the kernel channel, or the task itself */
    if (pk == EV_KCH)
        t = ((struct kch *)ev->parent)->task;
    else if (pk == EV_TASK)
        t = ev->parent;
    if (!t || t->kind != EV_TASK ||
        !__atomic_load_n(&t->busy, __ATOMIC_ACQUIRE)) {
        drop();
        return;
    }
    for (i = 0; i < PROBE_MAX && !ph; i++) {
        uint32_t n = __atomic_fetch_add(&next_phase, 1, __ATOMIC_RELAXED);
        if (take(&phases[n % POOL_PHASES].busy))
            ph = &phases[n % POOL_PHASES];
    }
    if (!ph) {
        drop();
        return;
    }
    ph->kind = EV_PHASE;
    memset(&ph->p, 0, sizeof ph->p);
    ph->p.kind = CP_REC_PHASE;
    ph->p.channel = (uint8_t)ev->channel;
    ph->p.phase = (uint8_t)(ev->phase < 0 || ev->phase > 255 ? 255 : ev->phase);
    ph->p.slot = t->slot;
    ph->p.comm_id = t->info.comm_id;
    ph->p.seq = t->info.seq;
    ph->p.gpu_start_raw = ev->ptimer;
    if (ev->ptimer)
        calibrate(realtime_ns(), ev->ptimer);
    *handle = ph;
}

static void stop_phase(struct phase *ph)
{
    uint64_t slot;
    union cp_rec *r;
    uint64_t lo = ph->p.gpu_start_raw, hi = ph->p.gpu_end_raw;

    if (lo == 0 || hi == 0 || hi < lo) {
        ph->p.flags |= CP_PHASE_DAMAGED;
    } else if (__atomic_load_n(&have_offset, __ATOMIC_ACQUIRE) == 1) {
        int64_t off = __atomic_load_n(&gpu_offset, __ATOMIC_RELAXED);
        ph->p.start_ns = (uint64_t)((int64_t)lo + off);
        ph->p.end_ns = (uint64_t)((int64_t)hi + off);
    }
    r = log_slot(&slot);
    if (r) {
        memcpy((char *)r + 1, (const char *)&ph->p + 1, sizeof ph->p - 1);
        cp_log_commit(r, CP_REC_PHASE);
    } else {
        drop();
    }
    release(&ph->busy);
}

/* ---- a next profiler's handles ---------------------------------------------- */

static int is_fwd(const void *h)
{
    return (const char *)h >= (const char *)fwds &&
           (const char *)h < (const char *)(fwds + POOL_FWD);
}

/* collprof's own handle behind h (h itself when it is not a forwarded one) */
static void *fwd_mine(void *h)
{
    return is_fwd(h) ? ((struct fwd *)h)->mine : h;
}

static void *fwd_theirs(void *h)
{
    return is_fwd(h) ? ((struct fwd *)h)->theirs : NULL;
}

static struct fwd *fwd_get(void)
{
    unsigned i;

    for (i = 0; i < PROBE_MAX; i++) {
        uint32_t n = __atomic_fetch_add(&next_fwd, 1, __ATOMIC_RELAXED);
        if (take(&fwds[n % POOL_FWD].busy)) {
            fwds[n % POOL_FWD].kind = EV_FWD;
            return &fwds[n % POOL_FWD];
        }
    }
    return NULL;
}

/* ---- entry points ----------------------------------------------------------- */

ncclResult_t cp_prof_init(void **context, int *mask,
                          const struct cp_prof_init *in)
{
    struct ctx *c = NULL;
    ncclResult_t rc = ncclSuccess;

    *context = NULL;
    pthread_mutex_lock(&open_lock);
    if (__atomic_load_n(&log_state, __ATOMIC_ACQUIRE) == 0)
        __atomic_store_n(&log_state, open_log(in->api) ? 1 : -1,
                         __ATOMIC_RELEASE);
    if (log_state != 1) {
        /* disabled or no log: NCCL goes on without a profiler */
        rc = ncclInternalError;
        goto out;
    }
    c = calloc(1, sizeof *c);
    if (!c) {
        rc = ncclSystemError;
        goto out;
    }
    c->comm_id = in->comm_hash;
    c->rank = in->rank;
    c->nranks = in->nranks;
    c->npeers = in->nranks > 0 ? in->nranks : P2P_PEERS_V3;
    c->p2p_seq = calloc(2 * (size_t)c->npeers, sizeof *c->p2p_seq);
    if (!c->p2p_seq) {
        free(c);
        c = NULL;
        rc = ncclSystemError;
        goto out;
    }
    if (in->comm_name)
        snprintf(c->name_buf, sizeof c->name_buf, "%s", in->comm_name);
    c->api_plain.kind = EV_API_PLAIN;
    c->api_graph.kind = EV_API_GRAPH;
    contexts++;
    *context = c;
    *mask = ncclProfileColl | ncclProfileP2p | ncclProfileProxyOp |
            ncclProfileProxyStep | ncclProfileKernelCh;
    if (in->api >= 5)
        *mask |= ncclProfileCollApi | ncclProfileP2pApi;
    if (in->api >= 6)
        *mask |= ncclProfileCeColl;
    if (in->api >= 7)
        *mask |= ncclProfileKernelPhase;
    /* COLLPROF_NEXT_PROFILER: a second plugin, given every event it asks
     * for in its own version's layout */
    if (next_loaded == 0)
        next_loaded = cp_next_load(in->api, warn_line) ? 1 : -1;
    if (next_loaded == 1 &&
        cp_next_init(&c->next_ctx, &c->next_mask, in) == ncclSuccess &&
        c->next_ctx)
        *mask |= c->next_mask;
    else
        c->next_ctx = NULL;
    if (c->comm_id && c->nranks > 0)
        write_comm(c);
out:
    pthread_mutex_unlock(&open_lock);
    return rc;
}

static void start_mine(struct ctx *c, void **handle,
                       const struct cp_prof_event *ev)
{
    *handle = NULL;
    switch (ev->type) {
    case ncclProfileColl:
    case ncclProfileP2p:
    case ncclProfileCeColl:
        start_task(c, handle, ev);
        break;
    case ncclProfileCollApi:
    case ncclProfileP2pApi:
        *handle = ev->graph_captured ? &c->api_graph : &c->api_plain;
        break;
    case ncclProfileProxyOp:
        start_proxy(c, handle, ev);
        break;
    case ncclProfileProxyStep:
        start_step(handle, ev);
        break;
    case ncclProfileKernelCh:
        start_kch(handle, ev);
        break;
    case ncclProfileKernelPhase:
        start_phase(handle, ev);
        break;
    default:
        /* group, launch, proxy control, network, copy-engine sync and
         * batch, and whatever else NCCL sends when its mask was widened
         * after init: nothing to record, a handle that stops harmlessly */
        *handle = &sentinel;
        break;
    }
}

ncclResult_t cp_prof_start(void *context, void **handle,
                           const struct cp_prof_event *ev)
{
    struct ctx *c = context;
    struct cp_prof_event mine;
    struct fwd *f;

    *handle = NULL;
    if (!c)
        return ncclSuccess;
    if (!c->next_ctx) {
        start_mine(c, handle, ev);
        return ncclSuccess;
    }
    /* the parents are forwarded handles: each side gets its own */
    mine = *ev;
    mine.parent = fwd_mine(ev->parent);
    mine.group_parent = fwd_mine(ev->group_parent);
    f = fwd_get();
    if (!f) {
        /* no entry: collprof records it, the next profiler misses it */
        start_mine(c, handle, &mine);
        return ncclSuccess;
    }
    start_mine(c, &f->mine, &mine);
    f->theirs = NULL;
    if (ev->type & (unsigned)c->next_mask) {
        struct cp_prof_event theirs = *ev;
        theirs.parent = fwd_theirs(ev->parent);
        theirs.group_parent = fwd_theirs(ev->group_parent);
        f->theirs = cp_next_start(c->next_ctx, &theirs);
    }
    *handle = f;
    return ncclSuccess;
}

ncclResult_t cp_prof_stop(void *handle)
{
    uint8_t kind = handle ? *(uint8_t *)handle : EV_FREE;

    if (kind == EV_FWD && is_fwd(handle)) {
        struct fwd *f = handle;
        void *mine = f->mine, *theirs = f->theirs;
        release(&f->busy);
        if (theirs)
            cp_next_stop(theirs);
        handle = mine;
        kind = handle ? *(uint8_t *)handle : EV_FREE;
    }
    switch (kind) {
    case EV_TASK:
        stop_task(handle);
        break;
    case EV_PROXY:
        stop_proxy(handle);
        break;
    case EV_STEP:
        stop_step(handle);
        break;
    case EV_KCH:
        stop_kch(handle);
        break;
    case EV_PHASE:
        stop_phase(handle);
        break;
    default:
        break;
    }
    return ncclSuccess;
}

ncclResult_t cp_prof_state(void *handle, int state, uint64_t trans_size,
                           uint64_t ptimer, void *args)
{
    uint8_t kind = handle ? *(uint8_t *)handle : EV_FREE;

    if (kind == EV_FWD && is_fwd(handle)) {
        struct fwd *f = handle;
        if (f->theirs)
            cp_next_state(f->theirs, state, trans_size, ptimer, args);
        handle = f->mine;
        kind = handle ? *(uint8_t *)handle : EV_FREE;
    }
    if (kind == EV_STEP) {
        step_state(handle, state, trans_size);
    } else if (kind == EV_KCH && state == ncclProfilerKernelChStop) {
        struct kch *k = handle;
        /* 0 or before the start: damaged (stop_kch), never calibrated */
        k->stop_raw = ptimer;
        if (ptimer && ptimer >= k->start_raw)
            calibrate(realtime_ns(), ptimer);
    } else if (kind == EV_PHASE && state == ncclProfilerKernelPhaseStop) {
        struct phase *ph = handle;
        ph->p.gpu_end_raw = ptimer;
        if (ptimer && ptimer >= ph->p.gpu_start_raw)
            calibrate(realtime_ns(), ptimer);
    } else if (kind == EV_PROXY && trans_size) {
        /* v3: progress of the whole operation */
        struct proxy *p = handle;
        if (trans_size > p->p.bytes && !p->p.steps_done)
            p->p.bytes = trans_size;
    }
    return ncclSuccess;
}

int cp_prof_parent_is_graph(void *context, void *parent)
{
    struct ctx *c = context;
    return c && fwd_mine(parent) == &c->api_graph;
}

ncclResult_t cp_prof_finalize(void *context)
{
    struct ctx *c = context;
    unsigned i;

    if (!c)
        return ncclSuccess;
    /* Tasks of this communicator still waiting for kernel channels. */
    for (i = 0; i < POOL_TASKS; i++) {
        struct task *t = &tasks[i];
        int p;
        if (!__atomic_load_n(&t->busy, __ATOMIC_ACQUIRE) || t->ctx != c ||
            !__atomic_load_n(&t->stopped_ns, __ATOMIC_ACQUIRE))
            continue;
        p = __atomic_load_n(&t->pending, __ATOMIC_ACQUIRE);
        while (p > 0)
            if (__atomic_compare_exchange_n(&t->pending, &p, 0, 0,
                                            __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                task_finish(t);
                break;
            }
    }
    if (c->next_ctx)
        cp_next_finalize(c->next_ctx);
    pthread_mutex_lock(&open_lock);
    contexts--;
    pthread_mutex_unlock(&open_lock);
    free(c->p2p_seq);
    free(c);
    return ncclSuccess;
}

ncclResult_t cp_prof_too_old(unsigned api)
{
    static int said;

    if (!__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL)) {
        char line[200];
        snprintf(line, sizeof line,
                 "this NCCL offers profiler API v%u; collprof's plugin needs "
                 "v3 or later (NCCL 2.23+): NCCL runs without it, calls are "
                 "recorded by the shim only",
                 api);
        warn_line(line);
    }
    return ncclInvalidUsage;
}

__attribute__((destructor)) static void cp_prof_unload(void)
{
    if (__atomic_load_n(&log_state, __ATOMIC_ACQUIRE) != 1 ||
        the_log.owner != getpid())
        return;
    the_log.hdr->steps_dropped = __atomic_load_n(&steps_over, __ATOMIC_RELAXED);
    if (step_mode == CP_STEPS_BUDGET && the_log.hdr->steps_dropped == 0)
        the_log.hdr->steps = CP_STEPS_ALL; /* the budget was never reached */
    cp_log_close(&the_log, 0, __atomic_load_n(&dropped, __ATOMIC_RELAXED));
    __atomic_store_n(&log_state, 0, __ATOMIC_RELEASE);
}
