/* logtext.c - what the plugin logs is escaped and bounded
 * (cp_text_shown_marked, common/cp_text.c): a newline or an escape sequence
 * from the job's environment cannot forge a line of slurmd's log. */
#include "config.h"

#include <string.h>

#include "cp_text.h"
#include "tap.h"

/* the longest line the plugin logs (CP_SPANK_LOG_MAX) */
#define CP_LOGTEXT_MAX 2048

int main(void)
{
    char out[64], big[CP_LOGTEXT_MAX], in[3 * CP_LOGTEXT_MAX];
    size_t n;

    n = cp_text_shown_marked(out, sizeof out, "/opt/x/libprof.so");
    is_str(out, "/opt/x/libprof.so", "a plain path is kept");
    is_int(n, strlen(out), "... its length returned");
    /* the forged line of the audit: a newline, a line in Slurm's format,
     * and ESC to colour it */
    cp_text_shown_marked(big, sizeof big,
                         "x\n[2026-12-01T10:00:00.000] error: forged\033[0m");
    is_str(big, "x\\x0a[2026-12-01T10:00:00.000] error: forged\\x1b[0m",
           "newline and ESC escaped as \\xNN: one line, no escape sequence");
    cp_text_shown_marked(out, sizeof out, "a\rb\tc\x7f" "d\\e");
    is_str(out, "a\\x0db\\x09c\\x7fd\\x5ce",
           "CR, TAB, DEL and the backslash itself (so that \\x is ours)");
    cp_text_shown_marked(out, sizeof out, "\xc2\x9b" "31m \xe2\x80\xa8");
    is_str(out, "\\xc2\\x9b31m \\xe2\\x80\\xa8",
           "bytes from 0x80: no C1 control (CSI), no Unicode line separator");
    ok(strchr(big, '\n') == NULL && strchr(big, '\033') == NULL,
       "nothing below 0x20 left");

    /* bounded: a value as long as the environment allows is cut */
    memset(in, 'a', sizeof in - 1);
    in[sizeof in - 1] = '\0';
    n = cp_text_shown_marked(big, sizeof big, in);
    ok(n == strlen(big) && n < sizeof big, "cut to the buffer (%zu bytes)", n);
    ok(n >= 3 && strcmp(big + n - 3, "...") == 0, "... and says so");
    memset(in, '\n', 1000);
    in[1000] = '\0';
    n = cp_text_shown_marked(out, sizeof out, in);
    ok(n < sizeof out && strcmp(out + n - 3, "...") == 0 &&
           strncmp(out, "\\x0a\\x0a", 8) == 0,
       "escapes cut whole, never half a \\xNN (%s)", out);
    ok(strstr(out, "\\x0...") == NULL && strstr(out, "\\x...") == NULL &&
           strstr(out, "\\...") == NULL,
       "... no partial escape before the cut");
    /* exactly the room: no cut */
    memset(in, 'b', sizeof out - 1);
    in[sizeof out - 1] = '\0';
    n = cp_text_shown_marked(out, sizeof out, in);
    is_int(n, sizeof out - 1, "a text that just fits is whole");
    ok(strchr(out, '.') == NULL, "... no \"...\"");
    in[sizeof out - 1] = 'b';
    in[sizeof out] = '\0';
    n = cp_text_shown_marked(out, sizeof out, in);
    ok(n < sizeof out && strcmp(out + n - 3, "...") == 0,
       "one byte more: cut and marked");
    n = cp_text_shown_marked(out, 3, "abcdef");
    is_int(n, 0, "a buffer too small for \"...\": empty");
    return done_testing();
}
