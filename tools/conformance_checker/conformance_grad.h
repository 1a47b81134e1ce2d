/* Gradient checks: every backward kernel and loss gradient of the table against
 * central finite differences of its forward kernel, both run on the device checked.
 * The kernel comparison checks a backend against the reference; this checks the
 * derivatives themselves, so a derivative bug that a backend shares with the
 * reference cannot hide. */
#ifndef TDM_CONFORMANCE_GRAD_H
#define TDM_CONFORMANCE_GRAD_H

#include "conformance.h"

size_t conf_grad_count(void);

/* The backward kernel or loss gradient check i names ("tanh_grad", "gemm dA"). */
const char *conf_grad_name(size_t check);

/* Whether check i runs the kernel, forward or backward. */
int conf_grad_uses(size_t check, tdm_kernel kernel);

/* Runs every case of check i on dev into r (supported 0: the device lacks one of its
 * kernels). worst_ratio is the largest |backward - finite differences| over what the
 * rounding of both allows. */
void conf_grad_run(tdm_device *dev, size_t check, conf_result *r);

#endif
