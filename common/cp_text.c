/* cp_text.c - input-derived text made safe to print (cp_text.h). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cp_error.h"

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

/* Length of the UTF-8 sequence at s (1..4), or 0 when it is not valid:
 * overlong forms, surrogates and code points above U+10FFFF are refused. */
static size_t utf8_length(const unsigned char *s)
{
    unsigned c = s[0], cp;
    size_t n, i;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

int cp_text_check(const char *what, const char *text, size_t max,
                  struct cp_error *err)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), i = 0, n;

    if (len >= max) {
        return cp_errorf(err, "%s is %zu bytes long (at most %zu)", what, len,
                         max - 1);
    }
    while (i < len) {
        if (s[i] < 0x20 || s[i] == 0x7f) {
            return cp_errorf(err,
                             "%s has a control character (0x%02x at byte %zu)",
                             what, s[i], i);
        }
        n = utf8_length(s + i);
        if (n == 0) {
            return cp_errorf(err, "%s is not valid UTF-8 (byte 0x%02x at %zu)",
                             what, s[i], i);
        }
        i += n;
    }
    return 0;
}
