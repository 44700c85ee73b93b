/* cp_units.h - sizes, times and bandwidths: parsing text and printing values.
 *
 * Used wherever a person types or reads a quantity: command-line options,
 * site profiles, topology files and reports.  Values are plain doubles in SI
 * base units (bytes, seconds, bytes per second), or uint64_t for whole byte
 * counts.
 *
 * Parsing.  The text is one number followed by an optional unit, with
 * optional blanks around the number and between the number and the unit:
 * "4096", "1.5MB", "64 KiB", "2e6 B", "10us", "450 GB/s", "400Gbps".  The
 * number is decimal: digits, an optional fraction, an optional exponent
 * ("1e9"); no sign, no hexadecimal, no "inf" or "nan".  Units are matched
 * exactly (case matters: "Mb" is megabits, not megabytes).  The numbers are
 * read with strtod, so the C locale's '.' is the decimal point (collprof
 * never calls setlocale).
 *
 *   sizes       bare number = bytes; B; kB = KB = 10^3 B; MB 10^6; GB 10^9;
 *               TB 10^12; KiB = 2^10 B; MiB 2^20; GiB 2^30; TiB 2^40.
 *               A lone K, M, G or T is refused as ambiguous (nccl-tests
 *               reads "128M" as 2^27, most people as 1.28e8), and a lower
 *               case b (bits) is refused for sizes.
 *   times       s, ms, us, µs (U+00B5 or U+03BC), ns.  A unit is required,
 *               except for a bare 0: "10" could mean seconds or microseconds.
 *   bandwidths  B/s, kB/s = KB/s, MB/s, GB/s, TB/s (powers of 10^3), KiB/s,
 *               MiB/s, GiB/s, TiB/s (powers of 2^10); link rates in bits:
 *               b/s = bps, kb/s = kbps (also Kb/s, Kbps), Mb/s = Mbps,
 *               Gb/s = Gbps, Tb/s = Tbps (divided by 8).  A unit is required,
 *               except for a bare 0.
 *
 * Every parser returns 0 and stores the value, or returns -1, leaves the
 * output untouched and, when err is non-NULL, fills it with one sentence
 * that quotes the text and says what was expected, for example
 *   expected a time such as 10us or 1.5ms (units s, ms, us, ns), got '10'
 * The sentence has no prefix, so that a caller can write
 * "collprof model: --alpha: <sentence>".
 *
 * Printing.  The formatters write a value with its most natural unit and a
 * given number of significant digits into a caller's buffer and return that
 * buffer, so that they can be used as printf arguments:
 *   cp_units_format_size(4096, b, sizeof b)          "4.00 KiB"
 *   cp_units_format_size_si(1e9, b, sizeof b)        "1.00 GB"
 *   cp_units_format_time(12.34e-6, b, sizeof b)      "12.3 us"
 *   cp_units_format_bandwidth(18.4e9, b, sizeof b)   "18.4 GB/s"
 * Times are printed with the ASCII "us" so that every terminal shows them.
 * A whole number of bytes under 1 KiB (or 1 kB) is printed without decimals
 * ("512 B"); zero prints as "0 B", "0 s", "0 B/s"; NaN prints as "n/a" and
 * infinities as "inf" / "-inf"; values far beyond the largest or smallest
 * unit print with an exponent ("1.00e+300 s").  Buffers of CP_UNITS_BUFSIZE
 * bytes always suffice; a smaller buffer gets a truncated, NUL-terminated
 * string.
 */
#ifndef COLLPROF_CP_UNITS_H
#define COLLPROF_CP_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "cp_error.h"

#define CP_UNITS_BUFSIZE 48

/* The kinds of quantity the generic formatter knows. */
enum cp_units_kind {
    CP_UNITS_SIZE = 0,      /* bytes, binary prefixes: B, KiB, MiB, GiB, TiB */
    CP_UNITS_SIZE_SI = 1,   /* bytes, decimal prefixes: B, kB, MB, GB, TB */
    CP_UNITS_TIME = 2,      /* seconds: ns, us, ms, s */
    CP_UNITS_BANDWIDTH = 3  /* bytes per second, decimal: B/s ... TB/s */
};

/* A size in bytes as a double; fractions are kept ("1.5B" is 1.5). */
int cp_units_parse_size(const char *text, double *bytes, struct cp_error *err);

/* A size as a whole number of bytes.  Computed exactly from the decimal
 * digits ("1.1MB" is 1100000, "1.5KiB" is 1536); refuses a result that is not
 * a whole number of bytes ("1.5B", "0.1KiB") or exceeds UINT64_MAX. */
int cp_units_parse_size_u64(const char *text, uint64_t *bytes,
                            struct cp_error *err);

/* A time in seconds. */
int cp_units_parse_time(const char *text, double *seconds,
                        struct cp_error *err);

/* A bandwidth in bytes per second. */
int cp_units_parse_bandwidth(const char *text, double *bytes_per_s,
                             struct cp_error *err);

/* A plain non-negative decimal integer without unit, fraction or exponent
 * (a rank count, a GPU count): "16".  Refuses values above max. */
int cp_units_parse_count(const char *text, uint64_t max, uint64_t *value,
                         struct cp_error *err);

/* Write value (of the given kind) with `digits` significant digits (1..12;
 * anything else means 3) into buf and return buf.  The unit is the largest
 * one the value reaches; the value then has at least 1 and fewer than
 * 1000 (1024 for binary sizes) of it. */
const char *cp_units_format(double value, enum cp_units_kind kind, int digits,
                            char *buf, size_t size);

/* The same with 3 significant digits. */
const char *cp_units_format_size(double bytes, char *buf, size_t size);
const char *cp_units_format_size_si(double bytes, char *buf, size_t size);
const char *cp_units_format_time(double seconds, char *buf, size_t size);
const char *cp_units_format_bandwidth(double bytes_per_s, char *buf,
                                      size_t size);

#endif
