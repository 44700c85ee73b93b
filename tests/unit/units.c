/* units.c - tests of cp_units: every unit, decimals, errors and printing. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "cp_units.h"

static void size_ok(const char *text, double want)
{
    struct cp_error err = {.offset = -1};
    double got = -1;
    int rc = cp_units_parse_size(text, &got, &err);

    ok(rc == 0, "size '%s' parses", text);
    if (rc != 0)
        diag("  error: %s", err.text);
    is_near(got, want, 1e-15, "size '%s' is %.17g bytes", text, want);
}

static void size_u64_ok(const char *text, uint64_t want)
{
    struct cp_error err = {.offset = -1};
    uint64_t got = 12345;
    int rc = cp_units_parse_size_u64(text, &got, &err);

    if (!ok(rc == 0 && got == want, "whole size '%s' is %llu bytes", text,
            (unsigned long long)want))
        diag("  rc %d, got %llu, error: %s", rc, (unsigned long long)got,
             err.text);
}

static void time_ok(const char *text, double want)
{
    struct cp_error err = {.offset = -1};
    double got = -1;
    int rc = cp_units_parse_time(text, &got, &err);

    ok(rc == 0, "time '%s' parses", text);
    if (rc != 0)
        diag("  error: %s", err.text);
    is_near(got, want, 1e-15, "time '%s' is %.17g s", text, want);
}

static void bandwidth_ok(const char *text, double want)
{
    struct cp_error err = {.offset = -1};
    double got = -1;
    int rc = cp_units_parse_bandwidth(text, &got, &err);

    ok(rc == 0, "bandwidth '%s' parses", text);
    if (rc != 0)
        diag("  error: %s", err.text);
    is_near(got, want, 1e-15, "bandwidth '%s' is %.17g B/s", text, want);
}

/* The parser refuses text; the error names the text and contains every
 * given fragment, and the output is left alone. */
enum which { SIZE, SIZE_U64, TIME, BANDWIDTH, COUNT };

static void refused(enum which w, const char *text, const char *frag1,
                    const char *frag2)
{
    static const char *const names[] = {"size", "whole size", "time",
                                        "bandwidth", "count"};
    struct cp_error err = {.offset = -1};
    double d = 42;
    uint64_t u = 42;
    char quoted[256];
    int rc;

    switch (w) {
    case SIZE:
        rc = cp_units_parse_size(text, &d, &err);
        break;
    case SIZE_U64:
        rc = cp_units_parse_size_u64(text, &u, &err);
        break;
    case TIME:
        rc = cp_units_parse_time(text, &d, &err);
        break;
    case BANDWIDTH:
        rc = cp_units_parse_bandwidth(text, &d, &err);
        break;
    default:
        rc = cp_units_parse_count(text, 1000000, &u, &err);
        break;
    }
    snprintf(quoted, sizeof quoted, "'%s'", text);
    ok(rc == -1 && d == 42 && u == 42, "%s '%s' is refused", names[w], text);
    if (!ok(strstr(err.text, quoted) && (!frag1 || strstr(err.text, frag1)) &&
                (!frag2 || strstr(err.text, frag2)) &&
                err.text[strlen(err.text) - 1] != '\n',
            "%s '%s': the error quotes it and says what was expected",
            names[w], text))
        diag("  error: %s", err.text);
}

static void fmt_is(double v, enum cp_units_kind kind, int digits,
                   const char *want)
{
    char buf[CP_UNITS_BUFSIZE];
    const char *got = cp_units_format(v, kind, digits, buf, sizeof buf);

    ok(got == buf, "format returns its buffer");
    is_str(got, want, "%.17g (kind %d, %d digits) prints as '%s'", v,
           (int)kind, digits, want);
}

static void test_sizes(void)
{
    size_ok("4096", 4096);
    size_ok("0", 0);
    size_ok("1.5MB", 1.5e6);
    size_ok("1.5 MB", 1.5e6);
    size_ok("  8 B  ", 8);
    size_ok("8B", 8);
    size_ok("1kB", 1e3);
    size_ok("1KB", 1e3);
    size_ok("2.5KB", 2500);
    size_ok("1MB", 1e6);
    size_ok("1GB", 1e9);
    size_ok("2TB", 2e12);
    size_ok("64KiB", 65536);
    size_ok("3MiB", 3 * 1048576.0);
    size_ok("1GiB", 1073741824.0);
    size_ok("1TiB", 1099511627776.0);
    size_ok("0.5GiB", 536870912.0);
    size_ok(".5KiB", 512);
    size_ok("1e9", 1e9);
    size_ok("1.5e3KB", 1.5e6);
    size_ok("125e-3 MB", 125e3);
    size_ok("1.5B", 1.5);

    size_u64_ok("4096", 4096);
    size_u64_ok("0", 0);
    size_u64_ok("0.0KiB", 0);
    size_u64_ok("1.1MB", 1100000);
    size_u64_ok("1.5KiB", 1536);
    size_u64_ok("0.25KiB", 256);
    size_u64_ok("1GB", 1000000000);
    size_u64_ok("1GiB", 1073741824);
    size_u64_ok("16TiB", 16ull << 40);
    size_u64_ok("1.000000000000000000000000KB", 1000);
    size_u64_ok("100e-2", 1);
    size_u64_ok("2e3 MB", 2000000000ull);
    size_u64_ok("18446744073709551615", UINT64_MAX);
    size_u64_ok("31.25MB", 31250000);

    refused(SIZE, "", "expected a size", "empty");
    refused(SIZE, "x", "expected a size", "KiB");
    refused(SIZE, "-1", "expected a size", "negative");
    refused(SIZE, "4M", "MB (10^6", "MiB (2^20)");
    refused(SIZE, "4K", "kB", "KiB");
    refused(SIZE, "2G", "GB", "GiB");
    refused(SIZE, "1T", "TB", "TiB");
    refused(SIZE, "1Mb", "bits", NULL);
    refused(SIZE, "8b", "bits", NULL);
    refused(SIZE, "0x10", "expected a size", NULL);
    refused(SIZE, "inf", "expected a size", NULL);
    refused(SIZE, "nan", "expected a size", NULL);
    refused(SIZE, "1e400", "out of range", NULL);
    refused(SIZE, "12 XB", "expected a size", NULL);
    refused(SIZE, "5 GB/s", "bandwidth, not a size", NULL);
    refused(SIZE, "1.2.3", "expected a size", NULL);
    refused(SIZE, "1 MB B", "expected a size", NULL);
    refused(SIZE, "+5", "expected a size", NULL);
    refused(SIZE, "1 mb", "bits", NULL);
    refused(SIZE, "e5", "expected a size", NULL);
    refused(SIZE_U64, "1.5B", "not a whole number of bytes", NULL);
    refused(SIZE_U64, "0.1KiB", "not a whole number of bytes", NULL);
    refused(SIZE_U64, "18446744073709551616", "out of range", NULL);
    refused(SIZE_U64, "20000000TiB", "out of range", NULL);
    refused(SIZE_U64, "1e30", "out of range", NULL);
    refused(SIZE_U64, "4M", "ambiguous", NULL);

    {
        double d = 7;
        ok(cp_units_parse_size(NULL, &d, NULL) == -1 && d == 7,
           "size: NULL text is refused, NULL error struct is fine");
    }
}

static void test_times(void)
{
    time_ok("10us", 10e-6);
    time_ok("10 us", 10e-6);
    time_ok("10\xc2\xb5s", 10e-6);
    time_ok("10\xce\xbcs", 10e-6);
    time_ok("1.5ms", 1.5e-3);
    time_ok("2s", 2.0);
    time_ok("0.25 s", 0.25);
    time_ok("250ns", 250e-9);
    time_ok("3e3ns", 3e-6);
    time_ok("0", 0);
    time_ok("0us", 0);

    refused(TIME, "10", "expected a time", "needs a unit");
    refused(TIME, "10 min", "expected a time", "ms, us, ns");
    refused(TIME, "-5us", "expected a time", "negative");
    refused(TIME, "5 US", "expected a time", NULL);
    refused(TIME, "us", "expected a time", NULL);
    refused(TIME, "", "expected a time", NULL);
}

static void test_bandwidths(void)
{
    bandwidth_ok("50GB/s", 50e9);
    bandwidth_ok("450 GB/s", 450e9);
    bandwidth_ok("1B/s", 1);
    bandwidth_ok("1kB/s", 1e3);
    bandwidth_ok("1KB/s", 1e3);
    bandwidth_ok("2.5MB/s", 2.5e6);
    bandwidth_ok("1TB/s", 1e12);
    bandwidth_ok("1KiB/s", 1024);
    bandwidth_ok("1MiB/s", 1048576);
    bandwidth_ok("1GiB/s", 1073741824.0);
    bandwidth_ok("1TiB/s", 1099511627776.0);
    bandwidth_ok("400Gbps", 50e9);
    bandwidth_ok("400 Gb/s", 50e9);
    bandwidth_ok("200Gbps", 25e9);
    bandwidth_ok("100 Mbps", 12.5e6);
    bandwidth_ok("100Mb/s", 12.5e6);
    bandwidth_ok("8 b/s", 1);
    bandwidth_ok("8bps", 1);
    bandwidth_ok("8kbps", 1e3);
    bandwidth_ok("8Kb/s", 1e3);
    bandwidth_ok("1.6 Tbps", 200e9);
    bandwidth_ok("0", 0);

    refused(BANDWIDTH, "50", "expected a bandwidth", "needs a unit");
    refused(BANDWIDTH, "50GB", "expected a bandwidth", "per-second");
    refused(BANDWIDTH, "50 GB/h", "expected a bandwidth", "Gbps");
    refused(BANDWIDTH, "-1GB/s", "negative", NULL);
    refused(BANDWIDTH, "fast", "expected a bandwidth", NULL);
}

static void test_counts(void)
{
    uint64_t v = 0;
    struct cp_error err = {.offset = -1};

    ok(cp_units_parse_count("16", 100, &v, &err) == 0 && v == 16,
       "count '16' is 16");
    ok(cp_units_parse_count(" 8 ", 100, &v, &err) == 0 && v == 8,
       "count ' 8 ' is 8");
    ok(cp_units_parse_count("0", 100, &v, &err) == 0 && v == 0,
       "count '0' is 0");
    ok(cp_units_parse_count("100", 100, &v, &err) == 0 && v == 100,
       "count at the maximum is accepted");
    refused(COUNT, "x", "expected a non-negative integer", NULL);
    refused(COUNT, "1.5", "expected a non-negative integer", NULL);
    refused(COUNT, "-3", "expected a non-negative integer", NULL);
    refused(COUNT, "4KiB", "expected a non-negative integer", NULL);
    refused(COUNT, "", "expected a non-negative integer", NULL);
    refused(COUNT, "1000001", "from 0 to 1000000", NULL);
    refused(COUNT, "99999999999999999999999", "from 0 to 1000000", NULL);
}

static void test_format(void)
{
    char buf[CP_UNITS_BUFSIZE], small[6];

    is_str(cp_units_format_size(4096, buf, sizeof buf), "4.00 KiB",
           "4096 bytes print as 4.00 KiB");
    is_str(cp_units_format_time(12.34e-6, buf, sizeof buf), "12.3 us",
           "12.34e-6 s prints as 12.3 us");
    is_str(cp_units_format_bandwidth(18.4e9, buf, sizeof buf), "18.4 GB/s",
           "18.4e9 B/s prints as 18.4 GB/s");
    is_str(cp_units_format_size_si(1e9, buf, sizeof buf), "1.00 GB",
           "1e9 bytes print as 1.00 GB (decimal)");

    fmt_is(512, CP_UNITS_SIZE, 3, "512 B");
    fmt_is(5, CP_UNITS_SIZE, 3, "5 B");
    fmt_is(2.5, CP_UNITS_SIZE, 3, "2.50 B");
    fmt_is(0, CP_UNITS_SIZE, 3, "0 B");
    fmt_is(1023, CP_UNITS_SIZE, 3, "1023 B");
    fmt_is(1024, CP_UNITS_SIZE, 3, "1.00 KiB");
    fmt_is(1.5 * 1048576, CP_UNITS_SIZE, 3, "1.50 MiB");
    fmt_is(1073741824.0, CP_UNITS_SIZE, 3, "1.00 GiB");
    fmt_is(1000 * 1024.0, CP_UNITS_SIZE, 3, "1000 KiB");
    fmt_is(1023.7 * 1024, CP_UNITS_SIZE, 3, "1.00 MiB");
    fmt_is(2.0 * 1099511627776.0, CP_UNITS_SIZE, 3, "2.00 TiB");
    fmt_is(999, CP_UNITS_SIZE_SI, 3, "999 B");
    fmt_is(6117647.06, CP_UNITS_SIZE_SI, 3, "6.12 MB");
    fmt_is(6117647.06, CP_UNITS_SIZE_SI, 4, "6.118 MB");
    fmt_is(999.7e3, CP_UNITS_SIZE_SI, 3, "1.00 MB");
    fmt_is(0, CP_UNITS_TIME, 3, "0 s");
    fmt_is(337.5e-6, CP_UNITS_TIME, 4, "337.5 us");
    fmt_is(37.8e-3, CP_UNITS_TIME, 4, "37.80 ms");
    fmt_is(80.04e-3, CP_UNITS_TIME, 4, "80.04 ms");
    fmt_is(999.7e-6, CP_UNITS_TIME, 3, "1.00 ms");
    fmt_is(9.996e-6, CP_UNITS_TIME, 3, "10.0 us");
    fmt_is(99.96e-6, CP_UNITS_TIME, 3, "100 us");
    fmt_is(250e-9, CP_UNITS_TIME, 3, "250 ns");
    fmt_is(1e-12, CP_UNITS_TIME, 3, "0.00100 ns");
    fmt_is(5000, CP_UNITS_TIME, 3, "5000 s");
    fmt_is(-5e-3, CP_UNITS_TIME, 3, "-5.00 ms");
    fmt_is(2.5, CP_UNITS_TIME, 0, "2.50 s");
    fmt_is(0, CP_UNITS_BANDWIDTH, 3, "0 B/s");
    fmt_is(26.455e9, CP_UNITS_BANDWIDTH, 3, "26.5 GB/s");
    fmt_is(450e9, CP_UNITS_BANDWIDTH, 3, "450 GB/s");
    fmt_is(1.5e12, CP_UNITS_BANDWIDTH, 3, "1.50 TB/s");
    fmt_is(12.5e6, CP_UNITS_BANDWIDTH, 3, "12.5 MB/s");
    fmt_is(1e300, CP_UNITS_TIME, 3, "1.00e+300 s");
    fmt_is(1e-300, CP_UNITS_TIME, 3, "1.00e-291 ns");
    fmt_is(-1e300, CP_UNITS_SIZE_SI, 12, "-1.00000000000e+285 PB");
    fmt_is(NAN, CP_UNITS_TIME, 3, "n/a");
    fmt_is(INFINITY, CP_UNITS_BANDWIDTH, 3, "inf");
    fmt_is(-INFINITY, CP_UNITS_SIZE, 3, "-inf");

    cp_units_format_size(4096, small, sizeof small);
    ok(strlen(small) == sizeof small - 1 && strncmp(small, "4.00 ", 5) == 0,
       "a small buffer gets a truncated, terminated string ('%s')", small);
}

/* Printing a value and parsing it back gives it to 3 significant digits. */
static void test_round_trip(void)
{
    static const double sizes[] = {1, 700, 4096, 3e6, 7.5e9, 1.2e13};
    static const double times[] = {3e-9, 4.5e-6, 12e-3, 2.0, 75};
    static const double bws[] = {3, 4.5e3, 12e6, 50e9, 2e12};
    char buf[CP_UNITS_BUFSIZE];
    double back;

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        cp_units_format_size(sizes[i], buf, sizeof buf);
        back = -1;
        ok(cp_units_parse_size(buf, &back, NULL) == 0 &&
               fabs(back - sizes[i]) <= 5e-3 * sizes[i],
           "size %g -> '%s' -> %g", sizes[i], buf, back);
        cp_units_format_size_si(sizes[i], buf, sizeof buf);
        back = -1;
        ok(cp_units_parse_size(buf, &back, NULL) == 0 &&
               fabs(back - sizes[i]) <= 5e-3 * sizes[i],
           "size %g -> '%s' -> %g", sizes[i], buf, back);
    }
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        cp_units_format_time(times[i], buf, sizeof buf);
        back = -1;
        ok(cp_units_parse_time(buf, &back, NULL) == 0 &&
               fabs(back - times[i]) <= 5e-3 * times[i],
           "time %g -> '%s' -> %g", times[i], buf, back);
    }
    for (size_t i = 0; i < sizeof bws / sizeof bws[0]; i++) {
        cp_units_format_bandwidth(bws[i], buf, sizeof buf);
        back = -1;
        ok(cp_units_parse_bandwidth(buf, &back, NULL) == 0 &&
               fabs(back - bws[i]) <= 5e-3 * bws[i],
           "bandwidth %g -> '%s' -> %g", bws[i], buf, back);
    }
}

int main(void)
{
    test_sizes();
    test_times();
    test_bandwidths();
    test_counts();
    test_format();
    test_round_trip();
    return done_testing();
}
