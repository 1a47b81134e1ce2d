/* The conformance suite: which devices, which kernels, and the reference. */
#ifndef TDM_CONFORMANCE_SUITE_H
#define TDM_CONFORMANCE_SUITE_H

#include "conformance.h"

typedef struct conf_suite {
    tdm_device *reference;
    tdm_device **devices;
    size_t device_count;
    int large; /* include the > 128 MiB cases */
    int small; /* only cases of at most CONF_SMALL_ELEMENTS per buffer */
    /* Called, where set, before each case runs on a device: the device's index and
     * the case's, so that a crash or a hang can be placed. */
    void (*before_case)(void *arg, size_t device, size_t case_index);
    void *before_case_arg;
} conf_suite;

/* Runs every case of the kernel; row[d] receives device d's result. */
void conf_suite_run_kernel(const conf_suite *suite, tdm_kernel kernel, conf_result *row);

#endif
