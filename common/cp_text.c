/* cp_text.c - input-derived text made safe to print (cp_text.h). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cp_text.h"

/* cp_text_shown, also saying how many bytes of text it took (*taken). */
static size_t shown(char *out, size_t outlen, const char *text, size_t n,
                    unsigned flags, size_t *taken)
{
    size_t i, used = 0;

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
    *taken = i;
    return used;
}

char *cp_text_shown(char *out, size_t outlen, const char *text, size_t n,
                    unsigned flags)
{
    size_t taken;

    if (outlen > 0)
        shown(out, outlen, text, n, flags, &taken);
    return out;
}

size_t cp_text_shown_marked(char *out, size_t outlen, const char *text)
{
    static const char cut[] = "...";
    size_t used, taken;

    if (outlen <= sizeof cut) {
        if (outlen)
            out[0] = '\0';
        return 0;
    }
    used = shown(out, outlen, text, SIZE_MAX, 0, &taken);
    if (!text[taken])
        return used;
    /* cut: as much as leaves room for "..." and its NUL */
    used = shown(out, outlen - (sizeof cut - 1), text, SIZE_MAX, 0, &taken);
    memcpy(out + used, cut, sizeof cut);
    return used + sizeof cut - 1;
}

void cp_text_mask(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

void cp_text_masked(char *out, size_t outlen, const char *text)
{
    snprintf(out, outlen, "%s", text ? text : "");
    cp_text_mask(out);
}
