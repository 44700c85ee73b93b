/* tap.h - a minimal Test Anything Protocol emitter for collprof's C tests.
 *
 *   ok(cond, "name %d", i);     one test point
 *   is_int(got, want, "name");  integer equality, prints both on failure
 *   skip_all("why");            exit 77 after a TAP skip plan
 *   return done_testing();      prints the plan, exit status 1 on failure
 */
#ifndef COLLPROF_TAP_H
#define COLLPROF_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;

__attribute__((format(printf, 2, 3), unused)) static int
ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_count++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond)
        tap_failed++;
    fflush(stdout);
    return cond;
}

__attribute__((format(printf, 1, 2), unused)) static void
diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

#define is_int(got, want, ...)                                                 \
    do {                                                                       \
        long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);       \
        if (!ok(tap_g_ == tap_w_, __VA_ARGS__))                                \
            diag("  got %lld, want %lld", tap_g_, tap_w_);                     \
    } while (0)

#define is_str(got, want, ...)                                                 \
    do {                                                                       \
        const char *tap_g_ = (got), *tap_w_ = (want);                          \
        if (!ok(tap_g_ && tap_w_ && strcmp(tap_g_, tap_w_) == 0, __VA_ARGS__)) \
            diag("  got '%s', want '%s'", tap_g_ ? tap_g_ : "(null)",          \
                 tap_w_ ? tap_w_ : "(null)");                                  \
    } while (0)

#define is_near(got, want, rel, ...)                                           \
    do {                                                                       \
        double tap_g_ = (got), tap_w_ = (want);                                \
        double tap_d_ = tap_g_ - tap_w_;                                       \
        if (tap_d_ < 0)                                                        \
            tap_d_ = -tap_d_;                                                  \
        double tap_m_ = tap_w_ < 0 ? -tap_w_ : tap_w_;                         \
        if (!ok(tap_d_ <= (rel) * tap_m_ + 1e-300, __VA_ARGS__))               \
            diag("  got %.9g, want %.9g (rel tol %g)", tap_g_, tap_w_,         \
                 (double)(rel));                                               \
    } while (0)

__attribute__((noreturn, unused)) static void skip_all(const char *why)
{
    printf("1..0 # SKIP %s\n", why);
    fflush(stdout);
    exit(77);
}

__attribute__((unused)) static int done_testing(void)
{
    printf("1..%d\n", tap_count);
    fflush(stdout);
    return tap_failed ? 1 : 0;
}

#endif
