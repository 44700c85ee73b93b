/* cuda_abi.c - collprof's CUPTI/cudart declarations agree with the
 * toolkit's headers (preload/cp_cuda_abi.h against cupti.h). */
#include "config.h"

#include <stddef.h>

#include "tap.h"

extern const long cuda_abi_ours[];
extern const char *const cuda_abi_names[];
#ifdef HAVE_REAL_CUPTI_H
extern const long cuda_abi_real[];
extern const int cuda_abi_real_version;
#endif

int main(void)
{
#ifdef HAVE_REAL_CUPTI_H
    int i;
    diag("real cupti.h, CUPTI_API_VERSION %d", cuda_abi_real_version);
    for (i = 0; cuda_abi_names[i]; i++)
        is_int(cuda_abi_ours[i], cuda_abi_real[i], "%s", cuda_abi_names[i]);
    return done_testing();
#else
    (void)cuda_abi_ours;
    (void)cuda_abi_names;
    skip_all("no cupti.h at configure time (--with-cuda=DIR)");
#endif
}
