/* cp_evals.h - the fit, the rows and their references (cp_evals.c).
 * Internal to analyzer/analysis/.
 */
#ifndef COLLPROF_CP_EVALS_H
#define COLLPROF_CP_EVALS_H

#include "cp_analysis_int.h"

int an_fit_classes(struct cp_analysis *an, struct an_state *st,
                   const struct cp_profile *profile);

/* One row per power-of-two size of every (comm, slot); evals per (comm,
 * slot) split by regime. */
int an_build_rows(struct cp_analysis *an, struct an_state *st,
                  struct an_eval **evals_out, size_t *nevals_out);

void an_class_bandwidths(struct cp_analysis *an, const struct an_eval *ev,
                         size_t nev);

/* The absolute reference of each class (the profile, else for the
 * network the NICs' port rate from the snapshots; the fit of the same
 * calls is never one: it cannot call them slow), and the busbw it
 * predicts for the class's bandwidth-bound calls. */
void an_set_references(struct cp_analysis *an, const struct an_eval *ev,
                       size_t nev);

#endif /* COLLPROF_CP_EVALS_H */
