/* nccl_proto_real.c - the parameter lists of the shim's table of wrapped
 * entry points (preload/cp_wrap_table.h) against the real nccl.h: each row
 * is declared again here, ncclX and pncclX, with the table's parameters,
 * after the real header's own declarations.  A row whose parameters or
 * return type differ from NCCL's is a conflicting declaration, and this
 * file (in libabireal.la, built with the tests where nccl.h is found) does
 * not compile.  A row nccl.h lacks (an entry point of a newer NCCL) is only
 * declared. */
#include <stddef.h>

#include <nccl.h>

#include "cp_wrap_table.h"

#define CP_PROTO_DATA(fn, params, args, count, dtype, redop, peer, comm,      \
                      stream, inplace)                                         \
    extern ncclResult_t nccl##fn params;                                       \
    extern ncclResult_t pnccl##fn params;
#define CP_PROTO_CALL(fn, params, args)                                        \
    extern ncclResult_t nccl##fn params;                                       \
    extern ncclResult_t pnccl##fn params;

CP_WRAP_TABLE(CP_PROTO_DATA, CP_PROTO_CALL)

/* one symbol, so that the object is not empty */
extern const int nccl_proto_real_rows;
#define CP_COUNT_ROW(...) +1
const int nccl_proto_real_rows = 0 CP_WRAP_TABLE(CP_COUNT_ROW, CP_COUNT_ROW);
