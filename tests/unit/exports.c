/* exports.c - what dlsym(RTLD_DEFAULT) finds for each NCCL name given:
 * prints "NAME present" or "NAME absent", one line each; with "call", also
 * calls ncclGetVersion through the symbol found (the library it reaches
 * answers).  Linked against libnccl.so.2 without an rpath: the test picks
 * the library with LD_LIBRARY_PATH and the shim with LD_PRELOAD
 * (tests/unit/exports.sh). */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "collprof/cp_nccl.h"

int main(int argc, char **argv)
{
    int i, version = 0;

    /* a reference, so that libnccl.so.2 is needed */
    if (ncclGetVersion(&version) != ncclSuccess)
        return 1;
    for (i = 1; i < argc; i++) {
        void *p = dlsym(RTLD_DEFAULT, argv[i]);
        printf("%s %s\n", argv[i], p ? "present" : "absent");
    }
    printf("version %d\n", version);
    return 0;
}
