/* OpenCL program builds: a compile error surfaces the build log in the last error;
 * a good program is built once per device and then served from the cache. */
#include "device/device_impl.h" /* the backend's state of a device */
#include "harness.h"
#include "opencl_program.h"

static const char broken_source[] =
    "kernel void broken(global float *x) { x[0] = tandem_undefined_name; }\n";
static const char good_source[] = "kernel void twice(global float *x) { x[0] *= 2.0f; }\n";
static const char *const broken[] = {broken_source}, *const good[] = {good_source};

void test_case_opencl_program(const test_run *run)
{
    (void)run;
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_OPENCL));
    tdm_device *dev;
    CHECK_OK(tdm_context_device(ctx, 0, &dev));
    tdm_opencl_device *d = dev->impl; /* builds take the backend's state */
    cl_program program = NULL;
    tdm_status s = tdm_opencl_build_program(d, "broken_test", broken, 1, NULL, &program);
    CHECK(s != TDM_OK);
    CHECK(strstr(tdm_last_error(), "broken_test") != NULL);
    CHECK(strstr(tdm_last_error(), "tandem_undefined_name") != NULL); /* from the log */
    fprintf(stderr, "build error as reported: %s\n", tdm_last_error());

    cl_program first = NULL, again = NULL;
    CHECK_OK(tdm_opencl_build_program(d, "good_test", good, 1, NULL, &first));
    CHECK_OK(tdm_opencl_build_program(d, "good_test", good, 1, NULL, &again));
    CHECK(first != NULL && first == again);
    tdm_context_destroy(ctx);
}
