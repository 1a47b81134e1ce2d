/* One gradient problem as a check describes it to the finite-difference engine
 * (conformance_grad.c): a forward call, a weighted sum of its outputs as the loss,
 * and the call that claims to give the loss's gradient. */
#ifndef TDM_CONFORMANCE_GRAD_PROBLEM_H
#define TDM_CONFORMANCE_GRAD_PROBLEM_H

#include "conformance_grad.h"

/* The finite-difference step, a power of two. Inputs lie on a grid of GRAD_GRID
 * within [-4, 4], so every perturbed input x + s * GRAD_STEP (|s| <= 2) is exact in
 * float32. */
#define GRAD_STEP 0x1p-7
#define GRAD_GRID 0x1p-12
/* Float16 inputs lie on a grid of GRAD_HALF_GRID within [-2, 2]: x + s * GRAD_STEP
 * then needs at most 10 bits below its leading one, which a half holds. */
#define GRAD_HALF_GRID 0x1p-8

typedef struct grad_problem grad_problem;
struct grad_problem {
    conf_case fwd;       /* the forward call at the point checked */
    conf_buffers fwd_in; /* its buffers, inputs filled */
    unsigned wrt;        /* the forward buffer differentiated */
    unsigned out;        /* the forward buffer the loss weighs */
    float *weight;       /* loss = sum over o of weight[o] * out[o] (owned) */
    /* Runs the forward on inputs `in` into `out` (fwd's buffers) as a caller composes
     * it from several kernels (batch norm: column sums, statistics, then fwd itself);
     * NULL where fwd alone is the forward. */
    tdm_status (*forward)(tdm_device *dev, const grad_problem *p, const conf_buffers *in,
                          conf_buffers *out);
    conf_case bwd; /* the call that gives d loss / d wrt */
    conf_buffers bwd_in;
    unsigned grad; /* its buffer that receives the gradient */
    /* Inputs are perturbed in rounds such that every output depends on at most one
     * input of a round: then one forward run per stencil point gives every partial
     * derivative of that round. round_of: the round of input j; owner: the input
     * of that round output o depends on, or -1. */
    size_t rounds;
    size_t (*round_of)(const grad_problem *p, size_t j);
    long (*owner)(const grad_problem *p, size_t o, size_t round);
};

typedef struct grad_check grad_check;

/* Builds case `index` of check g on dev (which may run the forward kernel to make
 * the backward's inputs); the engine frees it with grad_problem_free. */
typedef tdm_status (*grad_builder)(tdm_device *dev, const grad_check *g, size_t index,
                                   grad_problem *p);

struct grad_check {
    const char *name;
    tdm_kernel forward, backward;
    size_t cases;
    grad_builder build;
};

/* conformance_grad_checks.c: the checks, in table order. */
const grad_check *grad_check_get(size_t check);
size_t grad_check_count(void);

void grad_problem_free(grad_problem *p);

#endif
