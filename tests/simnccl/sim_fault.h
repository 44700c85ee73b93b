/* sim_fault.h - the planted faults the library itself acts out: a rank
 * killed inside a collective (`kill rank=R in=OP [after=N]`) and a call
 * that never returns (`hang rank=R in=OP [after=N]`).  Faults of the application's own
 * behaviour (stuck in compute, mismatched or swapped calls) are acted out
 * by the application (tests/apps/ts_fault.c): a library cannot stop a
 * program from calling it, nor change what the program passed.
 *
 * Collectives are counted per process from 0, over all communicators, send
 * and recv excluded, in the order the application calls them.
 */
#ifndef SIMNCCL_SIM_FAULT_H
#define SIMNCCL_SIM_FAULT_H

#include "sim_coll.h"

/* Called for every data call as it enters the library, before it runs.
 * Kills the process (SIGKILL) when a `kill ... in=OP` fault says so.  Returns 1 when
 * the call must never return once it has run (a `hang ... in=OP` fault),
 * else 0. */
int sim_fault_enter(const struct sim_op *op);

/* Never returns: the call that hangs (asleep; signals still kill). */
void sim_fault_hang(void) __attribute__((noreturn));

#endif
