/* Fault injection for tests: a decorator over the backends' ops tables that fails the
 * Nth buffer allocation, the Nth kernel launch, or loses the device at its Nth call.
 * It lives in the test tree alone: the library exports nothing for it, and its normal
 * path does not change (a device's ops pointer is swapped, as tests/cases/device_lost.c
 * does). Counts are shared by every wrapped device and safe from replica threads. */
#ifndef TDM_TEST_FAULT_BACKEND_H
#define TDM_TEST_FAULT_BACKEND_H

#include "tandem/tandem.h"

typedef enum fault_kind {
    FAULT_ALLOC,  /* buffer_alloc fails: TDM_ERR_OUT_OF_MEMORY */
    FAULT_LAUNCH, /* a kernel launch fails: TDM_ERR_BACKEND */
    FAULT_LOSE    /* the device is lost at a call of any kind, and stays lost (every later
                     call on it fails): TDM_ERR_DEVICE_LOST */
} fault_kind;

/* Routes every device of ctx through the decorator (once per context). */
void fault_wrap(tdm_context *ctx);

/* From now on, the nth (from 1) call of that kind fails; 0 disarms (a lost device
 * is found again). The calls are counted from here. */
void fault_arm(fault_kind kind, unsigned long nth);

/* Calls of that kind counted since the last fault_arm. */
unsigned long fault_calls(fault_kind kind);

/* Whether the armed fault has happened. */
int fault_fired(void);

#endif
