/* cp_text.h - text read from an input, made safe to print.
 *
 * File names (a directory's entries), the names of logs inside a partial,
 * node and communicator names from log headers are the input's author's:
 * printed raw to root's terminal, an escape sequence or a newline in them
 * would drive the terminal or forge a line.  Everything printed that holds
 * such a string goes through cp_text_shown (the SPANK plugin's log lines
 * through cp_text_shown_marked).  Never prints.
 */
#ifndef COLLPROF_CP_TEXT_H
#define COLLPROF_CP_TEXT_H

#include <stddef.h>

#include "cp_error.h"

/* Also escape the comma and the double quote (a CSV field). */
#define CP_TEXT_CSV 1u

/* The size a buffer needs for every byte of n escaped, NUL included. */
#define CP_TEXT_SHOWN_SIZE(n) (4 * (n) + 1)

/* text (n bytes at most, up to its NUL) into out (outlen bytes, always
 * NUL-terminated, cut at a whole character where it does not fit), with
 * every byte outside printable ASCII (control characters, DEL, bytes of
 * 0x80 and above, which some terminals take as C1 controls) and the
 * backslash as \xHH, and with CP_TEXT_CSV the comma and the double quote
 * too.  Returns out. */
char *cp_text_shown(char *out, size_t outlen, const char *text, size_t n,
                    unsigned flags);

/* The same for a NUL-terminated text (no CSV flag) that, when it does not
 * fit, is cut between two of its bytes (never within an escape) and ends
 * with "...": a line cut says so (the SPANK plugin's log lines; outlen >=
 * 8, else out is "").  Returns the length written. */
size_t cp_text_shown_marked(char *out, size_t outlen, const char *text);

/* Control bytes of s (below 0x20, and DEL) become '?': a string read from
 * a report that the job's user wrote, kept readable as it is passed on
 * (the SPANK plugin's findings, before they are logged). */
void cp_text_mask(char *s);

/* text (NULL: "") copied into out, cut to outlen, masked as above. */
void cp_text_masked(char *out, size_t outlen, const char *text);

/* 0 when text is valid UTF-8 (no overlong form, surrogate or code point
 * above U+10FFFF) without control characters and shorter than max bytes;
 * else -1 with the reason, naming it `what` (the SPANK plugin's arguments,
 * and the values it takes from the job's environment). */
int cp_text_check(const char *what, const char *text, size_t max,
                  struct cp_error *err);

#endif
