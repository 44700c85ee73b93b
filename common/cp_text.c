/* cp_text.c - input-derived text made safe to print (cp_text.h). */
#include "config.h"

#include <stdio.h>

#include "cp_text.h"

char *cp_text_shown(char *out, size_t outlen, const char *text, size_t n,
                    unsigned flags)
{
    size_t i, used = 0;

    if (outlen == 0)
        return out;
    for (i = 0; i < n && text[i]; i++) {
        unsigned char c = (unsigned char)text[i];
        int escape = c < 0x20 || c >= 0x7f || c == '\\' ||
                     ((flags & CP_TEXT_CSV) && (c == ',' || c == '"'));
        if (used + (escape ? 4 : 1) >= outlen)
            break;
        if (escape)
            used += (size_t)snprintf(out + used, outlen - used, "\\x%02x", c);
        else
            out[used++] = (char)c;
    }
    out[used] = '\0';
    return out;
}
