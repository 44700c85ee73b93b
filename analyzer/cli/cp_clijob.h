/* cp_clijob.h - what collprof analyze and collprof trace read the same
 * way: the window of the run given on the command line (--from, --to,
 * --skip-steps, --steps A:B) and the site profile of the model (--profile,
 * --no-profile, the default file).
 *
 * Command-line code: these print their one-line messages ("collprof CMD:
 * ...") to stderr, like the subcommands that call them.
 */
#ifndef COLLPROF_CP_CLIJOB_H
#define COLLPROF_CP_CLIJOB_H

#include <stddef.h>
#include <stdint.h>

#include "cp_analysis.h"
#include "cp_profile.h"

/* A window asked for: times since the run's first call (INT64_MIN /
 * INT64_MAX open), or steps (the first, and one past the last; -1 open);
 * by says how it was given, for the report ("--skip-steps 1"). */
struct cp_clijob_window {
    int64_t from_ns, to_ns;
    long step_from, step_to;
    char by[64];
};

void cp_clijob_window_init(struct cp_clijob_window *w);

/* One window option ("--from", "--to", "--skip-steps" or "--steps" with
 * a range A:B) and its argument.  0, or -1 after printing why. */
int cp_clijob_window_option(const char *cmd, const char *option,
                            const char *arg, struct cp_clijob_window *w);

/* Whether any window was asked for. */
int cp_clijob_window_given(const struct cp_clijob_window *w);

/* Refuses steps and times together, and --to not after --from: 0, or -1
 * after printing why (a usage error). */
int cp_clijob_window_check(const char *cmd, const struct cp_clijob_window *w);

/* The window on the run's clock, from an analysis of the whole run
 * (start and steps): *from_ns, *to_ns absolute (INT64_MIN / INT64_MAX
 * open) and *steps the steps it holds (0 for a window of times).  0, or
 * -1 after printing why (a step the run does not have). */
int cp_clijob_window_resolve(const char *cmd, const struct cp_clijob_window *w,
                             const struct cp_analysis *whole, int64_t *from_ns,
                             int64_t *to_ns, unsigned *steps);

/* The site profile read when no --profile is given (sysconfdir's
 * collprof/profile); static. */
const char *cp_clijob_default_profile(void);

/* For --help: the default profile's path and whether it is there now,
 * "/etc/collprof/profile (not present)".  Returns buf. */
const char *cp_clijob_profile_help(char *buf, size_t size);

/* Reads path, else (unless no_default) the default profile when it
 * exists, into *profile and points *loaded at it (NULL when none is read).
 * 0, or the exit status after printing why: 2 for a path given, 1 for a
 * default that cannot be read. */
int cp_clijob_load_profile(const char *cmd, const char *path, int no_default,
                           struct cp_profile *profile,
                           const struct cp_profile **loaded);

/* The names of the application's tag values: `option` (--tags LIST) when
 * given, else the environment's COLLPROF_TAGS (docs/collprof.1).  0 with
 * *names a new table (NULL when neither names any; the caller destroys it,
 * cp_tagnames_destroy), or -1 after printing why, naming the variable or
 * option and the entry (a usage error). */
struct cp_tagnames;
int cp_clijob_tag_names(const char *cmd, const char *option,
                        struct cp_tagnames **names);

#endif
