/* cp_logtext.c - escaped, bounded text for the logs. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cp_logtext.h"

/* The bytes that c takes once escaped. */
static size_t escaped_len(unsigned char c)
{
    return c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 4;
}

size_t cp_logtext_escape(char *out, size_t outlen, const char *in)
{
    static const char cut[] = "...";
    const unsigned char *p;
    size_t n = 0, total = 0, room;

    if (outlen <= sizeof cut) {
        if (outlen)
            out[0] = '\0';
        return 0;
    }
    for (p = (const unsigned char *)in; *p && total < outlen; p++)
        total += escaped_len(*p);
    /* all of it, or as much as leaves room for "..." and its NUL */
    room = total < outlen ? outlen - 1 : outlen - sizeof cut;
    for (p = (const unsigned char *)in; *p; p++) {
        size_t need = escaped_len(*p);
        if (n + need > room)
            break;
        if (need == 1)
            out[n++] = (char)*p;
        else
            n += (size_t)snprintf(out + n, outlen - n, "\\x%02x", *p);
    }
    if (*p) {
        memcpy(out + n, cut, sizeof cut);
        return n + sizeof cut - 1;
    }
    out[n] = '\0';
    return n;
}
