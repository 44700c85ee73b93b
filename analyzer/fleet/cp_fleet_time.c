/* cp_fleet_time.c - ISO 8601 UTC times and durations of the fleet. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cp_fleet_time.h"

int cp_fleet_time_parse(const char *text, double *t)
{
    struct tm tm;
    char *end;
    const char *rest;
    double v, frac = 0;

    if (!text || !*text)
        return -1;
    v = strtod(text, &end);
    if (*end == '\0' && strchr(text, '-') == NULL) {
        if (!isfinite(v) || v < 0)
            return -1;
        *t = v;
        return 0;
    }
    memset(&tm, 0, sizeof tm);
    rest = strptime(text, "%Y-%m-%d", &tm);
    if (!rest)
        return -1;
    if (*rest == 'T' || *rest == ' ') {
        rest = strptime(rest + 1, "%H:%M:%S", &tm);
        if (!rest)
            return -1;
        if (*rest == '.') {
            frac = strtod(rest, &end);
            rest = end;
        }
    }
    if (*rest == 'Z')
        rest++;
    if (*rest != '\0')
        return -1;
    *t = (double)timegm(&tm) + frac;
    return 0;
}

void cp_fleet_time_format(double t, char out[CP_FLEET_TIME_SIZE])
{
    time_t s = (time_t)floor(t);
    struct tm tm;

    if (!isfinite(t) || !gmtime_r(&s, &tm))
        snprintf(out, CP_FLEET_TIME_SIZE, "1970-01-01T00:00:00Z");
    else
        strftime(out, CP_FLEET_TIME_SIZE, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int cp_fleet_time_duration(const char *text, double *seconds)
{
    static const struct {
        char unit;
        double seconds;
    } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400},
                 {'w', 604800}};
    char *end;
    double v;
    size_t i;

    if (!text || !*text)
        return -1;
    v = strtod(text, &end);
    if (!isfinite(v) || !(v > 0) || end == text)
        return -1;
    if (*end == '\0') {
        *seconds = v;
        return 0;
    }
    for (i = 0; i < sizeof units / sizeof units[0]; i++)
        if (end[0] == units[i].unit && end[1] == '\0') {
            *seconds = v * units[i].seconds;
            return 0;
        }
    return -1;
}
