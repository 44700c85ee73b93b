/* cp_units.c - sizes, times and bandwidths: parsing text and printing values.
 *
 * The number is scanned by hand (so that hexadecimal, "inf", signs and
 * locale surprises are refused with a clear message) and converted twice:
 * with strtod for the double result, and digit by digit into an integer
 * mantissa and a power of ten for the exact whole-byte result.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_units.h"

/* How a unit name scales the number.  `exact` is the same factor as an
 * integer for the whole-byte parser (0 when the factor is not whole). */
struct unit {
    const char *name;
    double factor;
    uint64_t exact;
};

#define KI 1024.0
static const struct unit size_units[] = {
    {"B", 1.0, 1},
    {"kB", 1e3, 1000},
    {"KB", 1e3, 1000},
    {"MB", 1e6, 1000000},
    {"GB", 1e9, 1000000000},
    {"TB", 1e12, 1000000000000},
    {"KiB", KI, 1024},
    {"MiB", KI * KI, 1024 * 1024},
    {"GiB", KI * KI * KI, 1024 * 1024 * 1024},
    {"TiB", KI * KI * KI * KI, 1024ull * 1024 * 1024 * 1024},
};

static const struct unit time_units[] = {
    {"s", 1.0, 0},
    {"ms", 1e-3, 0},
    {"us", 1e-6, 0},
    {"\xc2\xb5s", 1e-6, 0}, /* U+00B5 MICRO SIGN */
    {"\xce\xbcs", 1e-6, 0}, /* U+03BC GREEK SMALL LETTER MU */
    {"ns", 1e-9, 0},
};

static const struct unit bandwidth_units[] = {
    {"B/s", 1.0, 0},
    {"kB/s", 1e3, 0},
    {"KB/s", 1e3, 0},
    {"MB/s", 1e6, 0},
    {"GB/s", 1e9, 0},
    {"TB/s", 1e12, 0},
    {"KiB/s", KI, 0},
    {"MiB/s", KI * KI, 0},
    {"GiB/s", KI * KI * KI, 0},
    {"TiB/s", KI * KI * KI * KI, 0},
    /* link rates, in bits per second */
    {"b/s", 1.0 / 8, 0},
    {"bps", 1.0 / 8, 0},
    {"kb/s", 1e3 / 8, 0},
    {"kbps", 1e3 / 8, 0},
    {"Kb/s", 1e3 / 8, 0},
    {"Kbps", 1e3 / 8, 0},
    {"Mb/s", 1e6 / 8, 0},
    {"Mbps", 1e6 / 8, 0},
    {"Gb/s", 1e9 / 8, 0},
    {"Gbps", 1e9 / 8, 0},
    {"Tb/s", 1e12 / 8, 0},
    {"Tbps", 1e12 / 8, 0},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* What each kind expects, for the error sentence. */
enum parse_kind { PARSE_SIZE, PARSE_TIME, PARSE_BANDWIDTH };

static const char *const expected[] = {
    [PARSE_SIZE] = "a size such as 4096, 1.5MB or 64KiB "
                   "(units B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)",
    [PARSE_TIME] = "a time such as 10us or 1.5ms (units s, ms, us, ns)",
    [PARSE_BANDWIDTH] = "a bandwidth such as 50GB/s or 400Gbps "
                        "(units B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, "
                        "GiB/s, TiB/s; bits: Mbps, Gbps, Gb/s, Tbps)",
};

/* One scanned number: where it is, and its exact decimal value
 * mantissa * 10^exp10 (valid unless mant_overflow). */
struct number {
    const char *start;
    const char *end;
    uint64_t mant;
    int exp10;
    int mant_overflow;
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* mant = mant * 10 + digit, flagging overflow. */
static void push_digit(struct number *num, unsigned digit)
{
    uint64_t m;

    if (num->mant_overflow || __builtin_mul_overflow(num->mant, 10u, &m) ||
        __builtin_add_overflow(m, (uint64_t)digit, &m)) {
        num->mant_overflow = 1;
        return;
    }
    num->mant = m;
}

/* Scan a decimal number at s.  Returns the position after it, or NULL when
 * s does not start with a digit or a '.' followed by a digit. */
static const char *scan_number(const char *s, struct number *num)
{
    const char *p = s;
    int digits = 0;
    int pending_zeros = 0;
    long exp = 0;

    memset(num, 0, sizeof *num);
    num->start = s;
    while (is_digit(*p)) {
        push_digit(num, (unsigned)(*p - '0'));
        digits++;
        p++;
    }
    if (*p == '.') {
        p++;
        while (is_digit(*p)) {
            /* Trailing zeros of the fraction do not change the value; keep
             * them pending so that "1.000000000000000000000" fits. */
            if (*p == '0') {
                pending_zeros++;
            } else {
                for (; pending_zeros > 0; pending_zeros--) {
                    push_digit(num, 0);
                    num->exp10--;
                }
                push_digit(num, (unsigned)(*p - '0'));
                num->exp10--;
            }
            digits++;
            p++;
        }
    }
    if (digits == 0)
        return NULL;
    if ((*p == 'e' || *p == 'E') &&
        (is_digit(p[1]) ||
         ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
        int sign = 1;
        p++;
        if (*p == '+' || *p == '-')
            sign = *p++ == '-' ? -1 : 1;
        while (is_digit(*p)) {
            if (exp < 100000)
                exp = exp * 10 + (*p - '0');
            p++;
        }
        num->exp10 += (int)(sign * exp);
    }
    num->end = p;
    return p;
}

/* The parsed pieces of "number unit". */
struct quantity {
    struct number num;
    double value;             /* the number alone, by strtod */
    const struct unit *unit;  /* NULL when there is no unit */
};

/* The hint after the generic sentence for an unknown size unit. */
static const char *size_unit_hint(const char *unit, size_t len)
{
    if (len == 1) {
        switch (unit[0]) {
        case 'k':
        case 'K':
            return "'K' is ambiguous: write kB (10^3 bytes) or KiB (2^10)";
        case 'M':
        case 'm':
            return "'M' is ambiguous: write MB (10^6 bytes) or MiB (2^20)";
        case 'G':
        case 'g':
            return "'G' is ambiguous: write GB (10^9 bytes) or GiB (2^30)";
        case 'T':
        case 't':
            return "'T' is ambiguous: write TB (10^12 bytes) or TiB (2^40)";
        case 'b':
            return "'b' means bits; sizes are in bytes (B)";
        default:
            return NULL;
        }
    }
    if (len >= 2 && unit[len - 1] == 'b')
        return "a lower-case b means bits; sizes are in bytes (B)";
    if (memchr(unit, '/', len))
        return "that is a bandwidth, not a size";
    return NULL;
}

static int parse_quantity(const char *text, enum parse_kind kind,
                          struct quantity *q, struct cp_error *err)
{
    const struct unit *table;
    size_t ntable;
    const char *p, *unit, *unit_end;
    const char *hint = NULL;
    char numbuf[128];
    size_t len;
    char *end;

    switch (kind) {
    case PARSE_SIZE:
        table = size_units;
        ntable = COUNT(size_units);
        break;
    case PARSE_TIME:
        table = time_units;
        ntable = COUNT(time_units);
        break;
    default:
        table = bandwidth_units;
        ntable = COUNT(bandwidth_units);
        break;
    }
    if (!text) {
        return cp_errorf(err, "expected %s, got nothing",
                         expected[kind]);
    }
    p = text;
    while (is_blank(*p))
        p++;
    if (*p == '-') {
        hint = "it must not be negative";
        goto bad;
    }
    if (!scan_number(p, &q->num)) {
        hint = *p ? NULL : "the text is empty";
        goto bad;
    }
    len = (size_t)(q->num.end - q->num.start);
    if (len >= sizeof numbuf) {
        hint = "the number is too long";
        goto bad;
    }
    memcpy(numbuf, q->num.start, len);
    numbuf[len] = '\0';
    errno = 0;
    q->value = strtod(numbuf, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(q->value)) {
        hint = "the number is out of range";
        goto bad;
    }

    unit = q->num.end;
    while (is_blank(*unit))
        unit++;
    unit_end = unit + strlen(unit);
    while (unit_end > unit && is_blank(unit_end[-1]))
        unit_end--;
    q->unit = NULL;
    if (unit_end == unit) {
        if (kind != PARSE_SIZE && q->value != 0) {
            hint = kind == PARSE_TIME ? "a time needs a unit"
                                      : "a bandwidth needs a unit";
            goto bad;
        }
        return 0;
    }
    len = (size_t)(unit_end - unit);
    for (size_t i = 0; i < ntable; i++) {
        if (strlen(table[i].name) == len &&
            memcmp(table[i].name, unit, len) == 0) {
            q->unit = &table[i];
            return 0;
        }
    }
    if (kind == PARSE_SIZE)
        hint = size_unit_hint(unit, len);
    else if (kind == PARSE_BANDWIDTH && !memchr(unit, '/', len) &&
             !(len > 2 && memcmp(unit_end - 2, "ps", 2) == 0))
        hint = "a bandwidth needs a per-second unit";
bad:
    if (hint)
        cp_error_set(err, NULL, -1, "expected %s, got '%.80s': %s",
                     expected[kind], text, hint);
    else
        cp_error_set(err, NULL, -1, "expected %s, got '%.80s'",
                     expected[kind], text);
    return -1;
}

static int finish_double(const char *text, enum parse_kind kind,
                         const struct quantity *q, double *out,
                         struct cp_error *err)
{
    double factor = q->unit ? q->unit->factor : 1.0;
    /* Divide by an exact integer for the sub-unit factors: 10us is then
     * the double nearest to 1e-5, which 10 * 1e-6 is not. */
    double v = factor < 1.0 ? q->value / round(1.0 / factor)
                            : q->value * factor;

    if (!isfinite(v)) {
        return cp_errorf(err, "expected %s, got '%.80s': %s",
                         expected[kind], text, "the value is out of range");
    }
    *out = v;
    return 0;
}

int cp_units_parse_size(const char *text, double *bytes, struct cp_error *err)
{
    struct quantity q;

    if (parse_quantity(text, PARSE_SIZE, &q, err) < 0)
        return -1;
    return finish_double(text, PARSE_SIZE, &q, bytes, err);
}

int cp_units_parse_time(const char *text, double *seconds,
                        struct cp_error *err)
{
    struct quantity q;

    if (parse_quantity(text, PARSE_TIME, &q, err) < 0)
        return -1;
    return finish_double(text, PARSE_TIME, &q, seconds, err);
}

int cp_units_parse_bandwidth(const char *text, double *bytes_per_s,
                             struct cp_error *err)
{
    struct quantity q;

    if (parse_quantity(text, PARSE_BANDWIDTH, &q, err) < 0)
        return -1;
    return finish_double(text, PARSE_BANDWIDTH, &q, bytes_per_s, err);
}

int cp_units_parse_size_u64(const char *text, uint64_t *bytes,
                            struct cp_error *err)
{
    struct quantity q;
    uint64_t v, factor;
    int exp10;
    const char *why = NULL;

    if (parse_quantity(text, PARSE_SIZE, &q, err) < 0)
        return -1;
    factor = q.unit ? q.unit->exact : 1;
    v = q.num.mant;
    exp10 = q.num.exp10;
    if (q.num.mant_overflow) {
        why = "the value is out of range";
        goto bad;
    }
    if (v == 0) {
        *bytes = 0;
        return 0;
    }
    /* Drop factors of ten that a negative exponent would divide away. */
    while (exp10 < 0 && v % 10 == 0) {
        v /= 10;
        exp10++;
    }
    if (__builtin_mul_overflow(v, factor, &v)) {
        why = "the value is out of range";
        goto bad;
    }
    for (; exp10 > 0; exp10--) {
        if (__builtin_mul_overflow(v, (uint64_t)10, &v)) {
            why = "the value is out of range";
            goto bad;
        }
    }
    for (; exp10 < 0; exp10++) {
        if (v % 10 != 0) {
            why = "that is not a whole number of bytes";
            goto bad;
        }
        v /= 10;
    }
    *bytes = v;
    return 0;
bad:
    return cp_errorf(err, "expected %s, got '%.80s': %s",
                     expected[PARSE_SIZE], text, why);
}

int cp_units_parse_count(const char *text, uint64_t max, uint64_t *value,
                         struct cp_error *err)
{
    const char *p = text;
    uint64_t v = 0;
    int digits = 0;

    if (!text)
        goto bad;
    while (is_blank(*p))
        p++;
    for (; is_digit(*p); p++, digits++) {
        if (__builtin_mul_overflow(v, (uint64_t)10, &v) ||
            __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
            goto range;
    }
    while (is_blank(*p))
        p++;
    if (digits == 0 || *p != '\0')
        goto bad;
    if (v > max)
        goto range;
    *value = v;
    return 0;
range:
    return cp_errorf(err,
                     "expected an integer from 0 to %llu, got '%.80s'",
                     (unsigned long long)max, text);
bad:
    return cp_errorf(err, "expected a non-negative integer, got '%.80s'",
                     text ? text : "");
}

/* ---- printing ---------------------------------------------------------- */

struct fmt_unit {
    const char *name;
    double scale;
};

static const struct fmt_unit fmt_size[] = {
    {"B", 1.0},           {"KiB", KI},           {"MiB", KI * KI},
    {"GiB", KI * KI * KI}, {"TiB", KI * KI * KI * KI},
    {"PiB", KI * KI * KI * KI * KI},
};
static const struct fmt_unit fmt_size_si[] = {
    {"B", 1.0}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
    {"PB", 1e15},
};
static const struct fmt_unit fmt_time[] = {
    {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0},
};
static const struct fmt_unit fmt_bandwidth[] = {
    {"B/s", 1.0}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12},
};

/* a in units of scale.  For the sub-second time units, multiply by the
 * exact integer 1/scale: 337.5e-6 * 1e6 is closer to 337.5 than
 * 337.5e-6 / 1e-6, since 1e-6 itself is not exact in binary. */
static double scaled(double a, double scale)
{
    return scale < 1.0 ? a * round(1.0 / scale) : a / scale;
}

/* Print x (> 0) with `digits` significant digits into tmp; return the
 * number of decimals used.  The decimals are chosen after rounding, so that
 * 9.996 prints as "10.0", not "10.00". */
static int round_sig(double x, int digits, char *tmp, size_t size)
{
    int d = digits - 1 - (int)floor(log10(x));

    if (d < 0)
        d = 0;
    snprintf(tmp, size, "%.*f", d, x);
    if (d > 0 && strtod(tmp, NULL) >= pow(10.0, digits - d)) {
        d--;
        snprintf(tmp, size, "%.*f", d, x);
    }
    return d;
}

const char *cp_units_format(double value, enum cp_units_kind kind, int digits,
                            char *buf, size_t size)
{
    const struct fmt_unit *units;
    size_t n, i = 0;
    const char *zero_unit;
    char tmp[64];
    double a, x;

    if (!buf || size == 0)
        return buf;
    if (digits < 1 || digits > 12)
        digits = 3;
    switch (kind) {
    case CP_UNITS_SIZE_SI:
        units = fmt_size_si;
        n = COUNT(fmt_size_si);
        zero_unit = "B";
        break;
    case CP_UNITS_TIME:
        units = fmt_time;
        n = COUNT(fmt_time);
        zero_unit = "s";
        break;
    case CP_UNITS_BANDWIDTH:
        units = fmt_bandwidth;
        n = COUNT(fmt_bandwidth);
        zero_unit = "B/s";
        break;
    default:
        units = fmt_size;
        n = COUNT(fmt_size);
        zero_unit = "B";
        break;
    }
    if (isnan(value)) {
        snprintf(buf, size, "n/a");
        return buf;
    }
    if (isinf(value)) {
        snprintf(buf, size, "%s", value < 0 ? "-inf" : "inf");
        return buf;
    }
    if (value == 0) {
        snprintf(buf, size, "0 %s", zero_unit);
        return buf;
    }
    a = fabs(value);
    while (i + 1 < n && a >= units[i + 1].scale)
        i++;
    x = scaled(a, units[i].scale);
    /* A value just under the next unit may round up to it (999.7 us). */
    if (i + 1 < n) {
        round_sig(x, digits, tmp, sizeof tmp);
        if (strtod(tmp, NULL) >= round(units[i + 1].scale / units[i].scale)) {
            i++;
            x = scaled(a, units[i].scale);
        }
    }
    if (x >= 1e6 || x < 1e-4) /* beyond the table: 1.00e+09 TB/s */
        snprintf(tmp, sizeof tmp, "%.*e", digits - 1, x);
    else if (units[i].scale == 1.0 &&
             (kind == CP_UNITS_SIZE || kind == CP_UNITS_SIZE_SI) &&
             x == floor(x))
        snprintf(tmp, sizeof tmp, "%.0f", x);
    else
        round_sig(x, digits, tmp, sizeof tmp);
    snprintf(buf, size, "%s%s %s", value < 0 ? "-" : "", tmp, units[i].name);
    return buf;
}

const char *cp_units_format_size(double bytes, char *buf, size_t size)
{
    return cp_units_format(bytes, CP_UNITS_SIZE, 3, buf, size);
}

const char *cp_units_format_size_si(double bytes, char *buf, size_t size)
{
    return cp_units_format(bytes, CP_UNITS_SIZE_SI, 3, buf, size);
}

const char *cp_units_format_time(double seconds, char *buf, size_t size)
{
    return cp_units_format(seconds, CP_UNITS_TIME, 3, buf, size);
}

const char *cp_units_format_bandwidth(double bytes_per_s, char *buf,
                                      size_t size)
{
    return cp_units_format(bytes_per_s, CP_UNITS_BANDWIDTH, 3, buf, size);
}
