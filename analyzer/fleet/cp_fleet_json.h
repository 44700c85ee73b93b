/* cp_fleet_json.h - the fleet's verdicts as the document
 * `collprof.fleet/1` (docs/fleet.md, "collprof.fleet/1"), the contract
 * that reports/ renders fleet.html from: keys may be added, never renamed.
 * Never prints. */
#ifndef COLLPROF_CP_FLEET_JSON_H
#define COLLPROF_CP_FLEET_JSON_H

#include <jansson.h>

#include "cp_fleet_judge.h"

#define CP_FLEET_SCHEMA "collprof.fleet/1"

/* Which lists the document holds (the others are empty arrays). */
enum {
    CP_FLEET_JSON_LINKS = 1,
    CP_FLEET_JSON_NODES = 2,
    CP_FLEET_JSON_PORTS = 4,
    CP_FLEET_JSON_ALL = 7,
};

/* The document of v (a new reference the caller owns), or NULL out of
 * memory (err filled). */
json_t *cp_fleet_to_json(const struct cp_fleet_view *v, int lists,
                         struct cp_error *err);

#endif
