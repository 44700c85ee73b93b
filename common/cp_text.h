/* cp_text.h - text read from an input, made safe to print.
 *
 * File names (a directory's entries), the names of logs inside a partial,
 * node and communicator names from log headers are the input's author's:
 * printed raw to root's terminal, an escape sequence or a newline in them
 * would drive the terminal or forge a line.  Everything printed that holds
 * such a string goes through cp_text_shown.
 */
#ifndef COLLPROF_CP_TEXT_H
#define COLLPROF_CP_TEXT_H

#include <stddef.h>

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

#endif
