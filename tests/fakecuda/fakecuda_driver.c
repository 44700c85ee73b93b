/* fakecuda_driver.c - libcuda.so.1 of the GPU timer tests: empty.  Its being
 * loaded tells the shim that the process uses CUDA (fakecuda.h). */
#include "fakecuda.h"

int fakecuda_driver_present(void)
{
    return 1;
}
