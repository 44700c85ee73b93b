/* slurmver.c - the SPANK plugin's check of the Slurm release series it
 * runs under (plugin/cp_slurmver.c). */
#include "config.h"

#include <string.h>

#include "cp_error.h"
#include "cp_slurmver.h"
#include "tap.h"

int main(void)
{
    struct cp_error err;
    char v[32];
    const unsigned built = 0x160508; /* 22.05.8 */

    cp_slurmver_format(built, v, sizeof v);
    is_str(v, "22.05.8", "0x160508 is 22.05.8");
    cp_slurmver_format(0x170b0a, v, sizeof v);
    is_str(v, "23.11.10", "0x170b0a is 23.11.10");

    err.text[0] = '\0';
    is_int(cp_slurmver_check(built, "22", "05", &err), 0,
           "22.05 loads a plugin built for 22.05.8");
    is_int(cp_slurmver_check(0x160501, "22", "05", &err), 0,
           "another micro release of the series: accepted");
    is_int(cp_slurmver_check(built, "23", "02", &err), -1,
           "23.02 refuses a plugin built for 22.05");
    ok(strstr(err.text, "built for Slurm 22.05.8 but this is Slurm 23.02") &&
           strstr(err.text, "for Slurm 23.02"),
       "the message names both versions and what to install (%s)", err.text);
    is_int(cp_slurmver_check(built, "22", "11", &err), -1,
           "same major, another minor (22.11): refused");
    is_int(cp_slurmver_check(built, "21", "05", &err), -1,
           "another major, same minor (21.05): refused");
    is_int(cp_slurmver_check(built, NULL, "05", &err), -1,
           "no major: refused");
    ok(strstr(err.text, "unreadable") != NULL, "... said so (%s)", err.text);
    is_int(cp_slurmver_check(built, "22", "5x", &err), -1,
           "a minor that is not a number: refused");
    is_int(cp_slurmver_check(built, "22", "", &err), -1, "an empty minor: refused");
    is_int(cp_slurmver_check(built, "278", "05", &err), -1,
           "a major over 255: refused");
    is_int(cp_slurmver_check(built, "22", "5", &err), 0,
           "minor written without its leading zero: accepted");
    return done_testing();
}
