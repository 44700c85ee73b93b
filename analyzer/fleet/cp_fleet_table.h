/* cp_fleet_table.h - the rows of a query kept as text: every cell in one
 * growing buffer (offsets, not one allocation per cell), so that a query
 * over a fleet's hundreds of thousands of rows costs a few reallocations.
 * Never prints. */
#ifndef COLLPROF_CP_FLEET_TABLE_H
#define COLLPROF_CP_FLEET_TABLE_H

#include <stddef.h>

#include "cp_fleet_db.h"

struct cp_fleet_table {
    size_t cols, rows;
    size_t *cell;   /* rows x cols offsets into text; SIZE_MAX: NULL */
    size_t ncell, ccell;
    char *text;
    size_t ntext, ctext;
};

/* Run sql (n parameters) and keep its rows in t (cols columns; a row of
 * fewer is an error).  t starts zeroed; cp_fleet_table_free() it.  0 or
 * -1. */
int cp_fleet_table_query(struct cp_fleet_db *db, const char *sql, int n,
                         const char *const *params, size_t cols,
                         struct cp_fleet_table *t, struct cp_error *err);

/* The cell (NULL for SQL NULL), as a number (NaN for NULL) or integer
 * (0 for NULL). */
const char *cp_fleet_cell(const struct cp_fleet_table *t, size_t row,
                          size_t col);
double cp_fleet_cell_num(const struct cp_fleet_table *t, size_t row,
                         size_t col);
long long cp_fleet_cell_int(const struct cp_fleet_table *t, size_t row,
                            size_t col);

void cp_fleet_table_free(struct cp_fleet_table *t);

#endif
