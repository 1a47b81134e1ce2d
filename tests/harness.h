/* A tiny test harness: CHECK records a failure and carries on, so one run reports
 * every broken case; the test's exit status is non-zero if any CHECK failed. */
#ifndef TDM_TEST_HARNESS_H
#define TDM_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "tandem/tandem.h"

extern int test_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

/* A call that must succeed; on failure prints the status and tdm_last_error(). */
#define CHECK_OK(call)                                                                             \
    do {                                                                                           \
        tdm_status check_ok_status_ = (call);                                                      \
        if (check_ok_status_ != TDM_OK) {                                                          \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call,              \
                    tdm_status_str(check_ok_status_), tdm_last_error());                           \
        }                                                                                          \
    } while (0)

/* A call that must fail with `expected` and a last error containing `needle`. */
#define CHECK_FAILS(call, expected, needle)                                                        \
    do {                                                                                           \
        tdm_status check_fails_status_ = (call);                                                   \
        if (check_fails_status_ != (expected) || !strstr(tdm_last_error(), (needle))) {            \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s returned %s ('%s'), expected %s mentioning '%s'\n",         \
                    __FILE__, __LINE__, #call, tdm_status_str(check_fails_status_),                \
                    tdm_last_error(), tdm_status_str(expected), (needle));                         \
        }                                                                                          \
    } while (0)

/* What the runner (tests/main.c) hands a case of tests/cases.def. */
typedef struct test_run {
    const char *name; /* the case's name */
    int argc;         /* its arguments, after the name */
    char **argv;
    /* A SCENARIO case's: argv[0], the context opened on its backends, its devices. */
    const char *scenario;
    tdm_context *ctx;
    tdm_device *devs[3];
    size_t n_devs;
} test_run;

/* Every case's entry point, from tests/cases.def (the lines this build has). */
#define TDM_TEST_CASE(name, harness, built_with, args, what)                                       \
    void test_case_##name(const test_run *run);
#include "test_cases.inc"
#undef TDM_TEST_CASE

/* A SCENARIO case's context and devices into its own variables; returns how many. */
size_t test_scenario_of(const test_run *run, tdm_context **ctx, tdm_device **devs);

/* A case's usage failed a check the runner cannot make (a value out of range):
 * prints the case's usage line and counts a failure. */
void test_usage_error(const test_run *run, const char *why);

/* The summary line of a case's run; returns the exit status. */
int test_finish(const char *name);

/* A context with the given backends whose log goes to stderr; aborts the test
 * (exit 1) if it cannot be created. */
tdm_context *test_context(uint32_t backends);

/* The context's devices of one backend, physical only, in order; returns how many. */
size_t test_devices_of(tdm_context *ctx, tdm_backend_kind backend, tdm_device **out, size_t max);

/* The context's first physical device of one backend; ends the test (exit 1, the
 * context destroyed) if it has none. */
tdm_device *test_first_device(tdm_context *ctx, tdm_backend_kind backend);

/* The replicas' devices of a distribution test scenario:
 *   reference       the reference device split into 3 logical devices
 *   opencl          the first two OpenCL devices (PoCL x2: one context)
 *   vulkan-logical  the first Vulkan device split into 2 logical devices
 *   mixed           the first OpenCL device and the first Vulkan device
 * Returns how many devices it placed in out (at most 3), 0 if the context lacks
 * them; fails the test on an unknown name. */
size_t test_scenario_devices(tdm_context *ctx, const char *scenario, tdm_device **out);

/* The backends a scenario needs (test_context's argument): fewer backends, faster
 * start-up. */
uint32_t test_scenario_backends(const char *scenario);

/* Whether the run is in the GPU-shape test mode (TDM_TEST_GPU_SHAPE=1): no device
 * shares memory with another or gives a host address. */
int test_gpu_shape(void);

/* Seconds on the monotonic clock. */
double test_seconds(void);

/* This process's rank in an mpirun job (Open MPI's OMPI_COMM_WORLD_RANK), 0 outside. */
size_t test_mpi_rank(void);

/* A rank's start under mpirun: the scenario's devices (as test_scenario_devices) and
 * strategy options with a collective timeout of timeout_s; with no devices, prints
 * "rank R: SKIP" (which mpi_ranks_pass.sh accepts) and returns 0. */
size_t test_mpi_start(tdm_context *ctx, const char *scenario, size_t rank, double timeout_s,
                      tdm_device **devs, tdm_strategy_options *opts);

/* Deterministic pseudo-random bytes (xorshift), different for each seed. */
void test_random_bytes(void *dst, size_t size, unsigned seed);

/* A float32 tensor [count] on dev holding x (a failed create or write is a CHECK
 * failure; NULL where the create failed). */
tdm_tensor *test_tensor_of(tdm_device *dev, const float *x, size_t count);

/* A tensor of dtype and shape on dev holding the floats x (f16: cast from them), or
 * NULL with a CHECK failure. */
tdm_tensor *test_tensor_as(tdm_device *dev, tdm_dtype dtype, const tdm_shape *shape,
                           const float *x);

/* Whether two tensors hold the same bytes (a failed read is a CHECK failure). */
int test_same_bits(const tdm_tensor *a, const tdm_tensor *b);

#endif
