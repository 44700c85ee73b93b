/* cp_fleet_table.c - a query's rows as text in one buffer. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_fleet_table.h"

/* Room for n more bytes in *buf (holding *len of *cap). */
static int room(char **buf, size_t *cap, size_t len, size_t n)
{
    size_t c = *cap ? *cap : 4096;
    char *bigger;

    if (len + n <= *cap)
        return 0;
    while (c < len + n) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    bigger = realloc(*buf, c);
    if (!bigger)
        return -1;
    *buf = bigger;
    *cap = c;
    return 0;
}

static int take_row(void *ctx, int ncols, const char *const *values,
                    struct cp_error *err)
{
    struct cp_fleet_table *t = ctx;
    size_t i, n, need = t->ncell + t->cols;
    size_t *bigger;

    if ((size_t)ncols < t->cols)
        return cp_errorf(err, "fleet database: a query gave %d columns, not "
                              "%zu", ncols, t->cols);
    if (need > t->ccell) {
        n = t->ccell ? t->ccell * 2 : 1024;
        while (n < need)
            n *= 2;
        bigger = realloc(t->cell, n * sizeof *bigger);
        if (!bigger)
            return cp_errorf(err, "fleet database: out of memory");
        t->cell = bigger;
        t->ccell = n;
    }
    for (i = 0; i < t->cols; i++) {
        if (!values[i]) {
            t->cell[t->ncell++] = SIZE_MAX;
            continue;
        }
        n = strlen(values[i]) + 1;
        if (room(&t->text, &t->ctext, t->ntext, n) < 0)
            return cp_errorf(err, "fleet database: out of memory");
        memcpy(t->text + t->ntext, values[i], n);
        t->cell[t->ncell++] = t->ntext;
        t->ntext += n;
    }
    t->rows++;
    return 0;
}

int cp_fleet_table_query(struct cp_fleet_db *db, const char *sql, int n,
                         const char *const *params, size_t cols,
                         struct cp_fleet_table *t, struct cp_error *err)
{
    t->cols = cols;
    return cp_fleet_db_query(db, sql, n, params, take_row, t, err);
}

const char *cp_fleet_cell(const struct cp_fleet_table *t, size_t row,
                          size_t col)
{
    size_t off = t->cell[row * t->cols + col];

    return off == SIZE_MAX ? NULL : t->text + off;
}

double cp_fleet_cell_num(const struct cp_fleet_table *t, size_t row,
                         size_t col)
{
    const char *s = cp_fleet_cell(t, row, col);

    return s && *s ? strtod(s, NULL) : NAN;
}

long long cp_fleet_cell_int(const struct cp_fleet_table *t, size_t row,
                            size_t col)
{
    const char *s = cp_fleet_cell(t, row, col);

    return s ? strtoll(s, NULL, 10) : 0;
}

void cp_fleet_table_free(struct cp_fleet_table *t)
{
    free(t->cell);
    free(t->text);
    memset(t, 0, sizeof *t);
}
