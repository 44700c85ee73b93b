/* cp_judge.h - an analysis run: the join of analysis/ (cp_analysis.h),
 * then the detectors (cp_detect.c's table).  The result is the public
 * struct cp_analysis of cp_analysis.h, with its JSON writer and its
 * destructor there.
 */
#ifndef COLLPROF_CP_JUDGE_H
#define COLLPROF_CP_JUDGE_H

#include "cp_error.h"
#include "cp_analysis.h"

/* Analyze the logs under paths (a NULL-terminated list of directories,
 * whose *.cplog files are read, or files).  Returns the result (the caller
 * owns it: cp_analysis_destroy), or NULL with err filled when nothing could
 * be analyzed (no readable log) or memory ran out.  Unreadable and damaged
 * inputs do not fail the run: they are listed in the result. */
struct cp_analysis *cp_analysis_run(const char *const *paths,
                                    const struct cp_analysis_opts *opts,
                                    struct cp_error *err);

/* What a window of steps needs of the run (cp_analysis_step_window): its
 * inputs, ranks, nodes and their clock offsets, its first call
 * (summary.start_ns) and its steps (summary.steps, steps_method,
 * steps_at), as cp_analysis_run finds them, from the first records of
 * each log and the log of the rank whose calls give the steps, not the
 * join of every log.  Jobs with the NCCL profiler plugin's logs get
 * cp_analysis_run itself.  NULL with err filled as cp_analysis_run. */
struct cp_analysis *cp_analysis_run_steps(const char *const *paths,
                                          const struct cp_analysis_opts *opts,
                                          struct cp_error *err);

#endif
