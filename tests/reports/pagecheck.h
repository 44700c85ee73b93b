/* pagecheck.h - checks on a rendered collprof page that the page tests
 * (html.c, fleet_html.c) share: counting a text, and that no tag runs
 * script, embeds or fetches anything. */
#ifndef COLLPROF_TESTS_PAGECHECK_H
#define COLLPROF_TESTS_PAGECHECK_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>

__attribute__((unused)) static size_t count_of(const char *hay,
                                               const char *needle)
{
    size_t n = 0, len = strlen(needle);

    if (len == 0)
        return 0;
    while ((hay = strstr(hay, needle)) != NULL) {
        n++;
        hay += len;
    }
    return n;
}

/* Every tag of the page: no element that runs script, embeds or fetches,
 * no event-handler attribute, no src, and links only to anchors in the
 * page.  Text never holds '<' (it is escaped), so each '<' opens a tag. */
__attribute__((unused)) static int tags_safe(const char *page, char *why,
                                             size_t whylen)
{
    static const char *const banned[] = {
        "script", "img", "iframe", "object", "embed", "link", "base",
        "form", "input", "image", "foreignobject", "use", "audio", "video",
        "source", "frame", "frameset", "applet", "animate", "set"};
    const char *p = page;

    while ((p = strchr(p, '<')) != NULL) {
        const char *end = strchr(p, '>');
        char name[32], tag[4096];
        size_t n = 0, i, len;

        if (!end) {
            snprintf(why, whylen, "unterminated tag");
            return 0;
        }
        len = (size_t)(end - p) < sizeof tag - 1 ? (size_t)(end - p)
                                                 : sizeof tag - 1;
        for (i = 0; i < len; i++)
            tag[i] = (char)tolower((unsigned char)p[i]);
        tag[len] = '\0';
        for (i = 1 + (tag[1] == '/'); n + 1 < sizeof name &&
                                      (isalnum((unsigned char)tag[i]) ||
                                       tag[i] == '!');
             i++)
            name[n++] = tag[i];
        name[n] = '\0';
        for (i = 0; i < sizeof banned / sizeof banned[0]; i++)
            if (strcmp(name, banned[i]) == 0) {
                snprintf(why, whylen, "element <%s>", name);
                return 0;
            }
        for (i = 1; tag[i]; i++) {
            if (isspace((unsigned char)tag[i - 1]) && tag[i] == 'o' &&
                tag[i + 1] == 'n' && isalpha((unsigned char)tag[i + 2])) {
                snprintf(why, whylen, "event attribute in <%.60s>", tag + 1);
                return 0;
            }
        }
        if (strstr(tag, " src=") || strstr(tag, "javascript:") ||
            strstr(tag, "http:") || strstr(tag, "https:") ||
            strstr(tag, "//") || strstr(tag, "url(http") ||
            (strstr(tag, "href=") && !strstr(tag, "href=\"#"))) {
            snprintf(why, whylen, "a reference out of the page in <%.60s>",
                     tag + 1);
            return 0;
        }
        p = end + 1;
    }
    return 1;
}

#endif
