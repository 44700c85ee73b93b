/* tagnames.c - tests of cp_tagnames: the names of COLLPROF_TAGS / --tags,
 * and every error naming its entry. */
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "cp_tagnames.h"

static void names_ok(void)
{
    struct cp_error err = {.offset = -1};
    struct cp_tagnames *t;

    t = cp_tagnames_parse("1=forward,2=backward,3=optimizer", &err);
    ok(t != NULL && cp_tagnames_count(t) == 3, "three names");
    ok(t && strcmp(cp_tagnames_name(t, 2), "backward") == 0, "tag 2 is backward");
    ok(t && cp_tagnames_name(t, 4) == NULL, "tag 4 has no name");
    cp_tagnames_destroy(t);

    t = cp_tagnames_parse(" 0x10 = a b ,18446744073709551615=max,", &err);
    ok(t != NULL && cp_tagnames_count(t) == 2,
       "spaces, hex, the largest value, a trailing comma");
    ok(t && strcmp(cp_tagnames_name(t, 16), "a b") == 0, "0x10 is 'a b'");
    ok(t && strcmp(cp_tagnames_name(t, UINT64_MAX), "max") == 0,
       "2^64-1 is 'max'");
    cp_tagnames_destroy(t);

    t = cp_tagnames_parse("", &err);
    ok(t != NULL && cp_tagnames_count(t) == 0, "an empty list names nothing");
    cp_tagnames_destroy(t);
    t = cp_tagnames_parse(NULL, &err);
    ok(t != NULL && cp_tagnames_count(t) == 0, "no list names nothing");
    cp_tagnames_destroy(t);
    ok(cp_tagnames_name(NULL, 1) == NULL && cp_tagnames_count(NULL) == 0,
       "a NULL table names nothing");
}

static void refused(const char *text, const char *want)
{
    struct cp_error err = {.offset = -1};
    struct cp_tagnames *t = cp_tagnames_parse(text, &err);

    if (!ok(t == NULL && strstr(err.text, want) != NULL,
            "'%s' refused: %s", text, want))
        diag("  got: %s", t ? "a table" : err.text);
    cp_tagnames_destroy(t);
}

int main(void)
{
    char longname[100];

    names_ok();
    refused("1=a,b", "entry 2 'b': no '='");
    refused("x=a", "entry 1 'x=a': 'x' is not a tag value");
    refused("-1=a", "'-1' is not a tag value");
    refused("18446744073709551616=a", "is not a tag value");
    refused("0x=a", "'0x' is not a tag value");
    refused("1=", "entry 1 '1=': the name is empty");
    refused("1=a,,2=b", "entry 2 is empty");
    refused("1=a,1=b", "entry 2 '1=b': tag 1 is named twice");
    refused("1=a=b", "entry 1 '1=a=b': the name holds a character");
    refused("1=a\tb\x01", "the name holds a character");
    memset(longname, 'n', sizeof longname);
    memcpy(longname, "7=", 2);
    longname[2 + CP_TAGNAMES_NAME_MAX + 1] = '\0';
    refused(longname, "the name is over 64 characters");
    return done_testing();
}
