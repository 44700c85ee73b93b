/* nccl_abi.c - collprof's NCCL declarations agree with the real nccl.h. */
#include "config.h"

#include <stddef.h>

#include "tap.h"

extern const long nccl_abi_ours[];
extern const char *const nccl_abi_names[];
#ifdef HAVE_REAL_NCCL_H
extern const long nccl_abi_real[];
extern const int nccl_abi_real_version;
extern const int nccl_proto_real_rows;
#endif

int main(void)
{
#ifdef HAVE_REAL_NCCL_H
    int i;
    diag("real nccl.h version %d", nccl_abi_real_version);
    for (i = 0; nccl_abi_names[i]; i++)
        is_int(nccl_abi_ours[i], nccl_abi_real[i], "%s", nccl_abi_names[i]);
    /* nccl_proto_real.c compiled: every row's parameters are nccl.h's */
    ok(nccl_proto_real_rows > 20,
       "the %d rows of cp_wrap_table.h declared again after nccl.h, "
       "without a conflict", nccl_proto_real_rows);
    return done_testing();
#else
    (void)nccl_abi_ours;
    (void)nccl_abi_names;
    skip_all("no real nccl.h at configure time (--with-cuda=DIR)");
#endif
}
