/* cp_logswap.c - a log's header and records in the other byte order (see
 * cp_logswap.h). */
#include "config.h"

#include "cp_logswap.h"

_Static_assert(CP_LOG_ENDIAN_SWAPPED == __builtin_bswap32(CP_LOG_ENDIAN),
               "the other order's mark");

static uint16_t sw16(uint16_t v) { return __builtin_bswap16(v); }
static uint32_t sw32(uint32_t v) { return __builtin_bswap32(v); }
static uint64_t sw64(uint64_t v) { return __builtin_bswap64(v); }
#define SW16(x) ((x) = (__typeof__(x))sw16((uint16_t)(x)))
#define SW32(x) ((x) = (__typeof__(x))sw32((uint32_t)(x)))
#define SW64(x) ((x) = (__typeof__(x))sw64((uint64_t)(x)))

void cp_log_header_swap(struct cp_log_header *h)
{
    SW32(h->endian); SW32(h->version); SW32(h->header_size);
    SW32(h->record_size); SW32(h->chunk_records); SW32(h->flags);
    SW32(h->timer); SW32(h->pid); SW32(h->global_rank); SW32(h->world_size);
    SW32(h->local_rank); SW32(h->nccl_version);
    SW32(h->term_signal); SW64(h->term_realtime_ns);
    SW64(h->start_realtime_ns); SW64(h->start_monotonic_ns);
    SW64(h->end_realtime_ns); SW64(h->slots_used); SW64(h->records_dropped);
    SW32(h->source); SW32(h->plugin_api); SW32(h->steps);
    SW64(h->steps_dropped);
    SW32(h->ring_slots); SW32(h->dict_slots); SW64(h->ring_offset);
    SW64(h->stream_offset); SW64(h->stream_end); SW64(h->stream_slots);
    SW32(h->sync_bytes);
    SW32(h->policy_first); SW32(h->policy_window); SW32(h->policy_every);
    SW32(h->policy_interval_ms);
}

void cp_rec_swap(union cp_rec *r)
{
    switch (r->kind) {
    case CP_REC_CALL:
        SW16(r->call.flags); SW64(r->call.comm_id); SW64(r->call.count);
        SW32(r->call.seq); SW32(r->call.peer); SW32(r->call.rank);
        SW32(r->call.nranks); SW32(r->call.group); SW32(r->call.stream);
        SW64(r->call.start_ns); SW64(r->call.end_ns);
        break;
    case CP_REC_COMM:
        SW32(r->comm.cuda_dev); SW64(r->comm.comm_id); SW64(r->comm.parent_id);
        SW32(r->comm.nranks); SW32(r->comm.rank); SW32(r->comm.color);
        SW32(r->comm.key); SW64(r->comm.time_ns);
        break;
    case CP_REC_GROUP:
        SW32(r->group.group); SW32(r->group.ncalls);
        SW64(r->group.start_ns); SW64(r->group.end_ns);
        break;
    case CP_REC_CLOCK:
        SW64(r->clock.realtime_ns); SW64(r->clock.monotonic_ns);
        SW64(r->clock.gpu_ns);
        break;
    case CP_REC_GPU:
        SW16(r->gpu.flags); SW64(r->gpu.slot); SW64(r->gpu.start_ns);
        SW64(r->gpu.end_ns);
        break;
    case CP_REC_NCCL:
        SW16(r->nccl.flags); SW64(r->nccl.slot); SW64(r->nccl.comm_id);
        SW64(r->nccl.nccl_seq); SW32(r->nccl.seq);
        SW16(r->nccl.kernel_channels); SW64(r->nccl.gpu_start_raw);
        SW64(r->nccl.gpu_end_raw); SW64(r->nccl.bytes);
        break;
    case CP_REC_PROXY:
        SW32(r->proxy.peer); SW64(r->proxy.comm_id); SW64(r->proxy.slot);
        SW64(r->proxy.bytes); SW64(r->proxy.start_ns); SW64(r->proxy.end_ns);
        SW64(r->proxy.busy_ns); SW16(r->proxy.nsteps);
        SW16(r->proxy.steps_done); SW32(r->proxy.min_step_ns);
        break;
    case CP_REC_STEP:
        SW32(r->step.peer); SW64(r->step.proxy_slot); SW32(r->step.step);
        SW64(r->step.bytes); SW64(r->step.start_ns); SW64(r->step.posted_ns);
        SW64(r->step.done_ns);
        break;
    case CP_REC_TAG:
        SW32(r->tag.seq); SW64(r->tag.slot); SW64(r->tag.user_tag);
        break;
    case CP_REC_PHASE:
        SW16(r->phase.flags); SW64(r->phase.slot); SW64(r->phase.comm_id);
        SW32(r->phase.seq); SW64(r->phase.gpu_start_raw);
        SW64(r->phase.gpu_end_raw); SW64(r->phase.start_ns);
        SW64(r->phase.end_ns);
        break;
    case CP_REC_LINK:
        SW32(r->link.peer); SW64(r->link.comm_id); SW32(r->link.back);
        SW32(r->link.steps); SW64(r->link.bytes); SW64(r->link.first_ns);
        SW64(r->link.last_ns); SW64(r->link.busy_ns);
        SW32(r->link.min_step_ns); SW32(r->link.max_step_ns);
        break;
    case CP_REC_AGG:
        SW32(r->agg.peer); SW64(r->agg.comm_id); SW64(r->agg.count);
        SW32(r->agg.calls); SW32(r->agg.seq_first); SW32(r->agg.seq_last);
        SW16(r->agg.dur_q[0]); SW16(r->agg.dur_q[1]); SW16(r->agg.dur_q[2]);
        SW16(r->agg.dur_q[3]); SW32(r->agg.interval_ms);
        SW64(r->agg.first_ns); SW64(r->agg.sum_ns);
        break;
    default:
        break;
    }
}
