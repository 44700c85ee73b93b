/* cp_fleet_time.h - the fleet database's times: ISO 8601 UTC text
 * ("2026-12-07T10:00:00Z"), which sorts as time does in SQL on both back
 * ends, and durations such as --since's "7d".  Never prints. */
#ifndef COLLPROF_CP_FLEET_TIME_H
#define COLLPROF_CP_FLEET_TIME_H

#include <stddef.h>

/* "YYYY-MM-DDTHH:MM:SSZ": 20 characters and the NUL. */
#define CP_FLEET_TIME_SIZE 32

/* Parse text: "YYYY-MM-DDTHH:MM:SS[.fff][Z]" or "YYYY-MM-DD" (UTC) or
 * seconds since the epoch.  0 and *t, or -1. */
int cp_fleet_time_parse(const char *text, double *t);

/* t (seconds since the epoch) as "YYYY-MM-DDTHH:MM:SSZ". */
void cp_fleet_time_format(double t, char out[CP_FLEET_TIME_SIZE]);

/* A duration "30m", "12h", "7d", "2w" or seconds ("3600", "90s"), above
 * 0.  0 and *seconds, or -1. */
int cp_fleet_time_duration(const char *text, double *seconds);

#endif
