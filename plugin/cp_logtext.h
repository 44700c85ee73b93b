/* cp_logtext.h - text for slurmd's log, srun's stderr and syslog, made
 * safe: whatever the job controls (its environment, its paths, the names
 * in its reports) reaches those logs through here, so that a newline or an
 * escape sequence in it cannot forge a line or drive a terminal.
 *
 * No Slurm dependency: the unit test links this file alone.
 */
#ifndef COLLPROF_CP_LOGTEXT_H
#define COLLPROF_CP_LOGTEXT_H

#include <stddef.h>

/* The longest message the plugin logs, NUL included: a longer one is cut
 * and ends with "...". */
#define CP_LOGTEXT_MAX 2048

/* in copied to out (outlen bytes, outlen >= 8, always NUL-terminated),
 * every byte outside printable ASCII (control characters, DEL, bytes of
 * 0x80 and above: no C1 control either) and the backslash itself written
 * as \xNN; when it does not fit, cut between two bytes of in and ended
 * with "...".  Returns the length written. */
size_t cp_logtext_escape(char *out, size_t outlen, const char *in);

#endif
