/* fleet_page.c - fleet.html of a fleet.json, for the shell tests
 * (fleet_browser.sh) until `collprof fleet report` calls the same
 * function: fleet_page IN.json OUT.html.  A test helper, not installed. */
#include "config.h"

#include <stdio.h>

#include "cp_fleet_html.h"

int main(int argc, char **argv)
{
    struct cp_error err;

    if (argc != 3) {
        fprintf(stderr, "usage: fleet_page IN.json OUT.html\n");
        return 2;
    }
    if (cp_fleet_html_write(argv[1], argv[2], &err) < 0) {
        fprintf(stderr, "fleet_page: %s\n", err.text);
        return 1;
    }
    return 0;
}
