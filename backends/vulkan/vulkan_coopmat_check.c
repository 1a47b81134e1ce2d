/* The start-up check of gemm_f16's matrix-engine path, run at a device's first
 * gemm_f16 (device open stays cheap, and a device that never multiplies halves never
 * pays for it). The path is used only where
 *   1. the device was created with VK_KHR_cooperative_matrix (never under
 *      TDM_VK_FAKE_COOPMAT=1, which only claims a shape; under =emulated it runs the
 *      emulated module, and skips step 4),
 *   2. its pipeline is created,
 *   3. a CHECK_M x CHECK_N x CHECK_K product (edges past the 128 x 128 tile and the
 *      32-step of k) with each of the four transposes, alpha and beta matches the
 *      host's sums within gemm_f16's tolerance, and
 *   4. a SPEED_SIZE^3 product runs faster than on the plain pipelines (skipped under
 *      TDM_VK_COOPMAT_UNRACED, so that a card's products can be measured both ways);
 * else the device keeps the plain ones for good. Either way it is logged (INFO) and
 * written to the device's matrix_engine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

#define CHECK_M 160u
#define CHECK_N 144u
#define CHECK_K 72u
#define SPEED_SIZE 1024u
#define SPEED_RUNS 3

/* The check's buffers are the core's own (tandem/buffer.h), allocated and freed as
 * a user's are: the launch path reads them as it reads any. */
typedef struct product {
    tdm_buffer *a, *b, *c;
    uint32_t m, n, k;
} product;

static void release(product *p)
{
    tdm_buffer_free(p->a);
    tdm_buffer_free(p->b);
    tdm_buffer_free(p->c);
}

static tdm_status allocate(tdm_vk_device *vd, product *p, uint32_t m, uint32_t n, uint32_t k)
{
    *p = (product){.m = m, .n = n, .k = k};
    tdm_status s = tdm_buffer_alloc(vd->dev, (size_t)m * k * 2, &p->a);
    if (s == TDM_OK)
        s = tdm_buffer_alloc(vd->dev, (size_t)k * n * 2, &p->b);
    if (s == TDM_OK)
        s = tdm_buffer_alloc(vd->dev, (size_t)m * n * 4, &p->c);
    return s;
}

/* Eighths in [-1, 1]: exact as halves, their products and sums exact as floats. */
static float value_at(size_t i, unsigned salt)
{
    return (float)((int)((i * 7u + salt) % 17u) - 8) / 8.0f;
}

static tdm_status write_halves(tdm_buffer *buf, size_t count, unsigned salt, float *copy)
{
    uint16_t *h = malloc(count * sizeof *h);
    if (!h)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    for (size_t i = 0; i < count; i++) {
        h[i] = tdm_f16_from_f32(value_at(i, salt));
        if (copy)
            copy[i] = value_at(i, salt);
    }
    tdm_status s = tdm_vk_write(buf, tdm_backend_buffer_state(buf), 0, h, count * sizeof *h);
    free(h);
    return s;
}

static tdm_status launch(tdm_vk_device *vd, product *p, size_t index, int trans_a, int trans_b,
                         float alpha, float beta)
{
    uint32_t lda = trans_a ? p->m : p->k, ldb = trans_b ? p->k : p->n;
    uint64_t groups = (uint64_t)((p->m + 15) / 16) * ((p->n + 15) / 16);
    tdm_launch l = {
        .kernel = TDM_KERNEL_gemm_f16,
        .buffers = {p->c, p->a, p->b},
        .u = {p->m, p->n, p->k, lda, ldb, p->n, (uint32_t)trans_a, (uint32_t)trans_b},
        .f = {alpha, beta},
        .groups = groups < TDM_KERNEL_MAX_GROUPS ? (uint32_t)groups : TDM_KERNEL_MAX_GROUPS,
    };
    return tdm_vk_launch_on(vd, &l, index);
}

/* The matrix engine's product against the host's, each transpose in turn. */
static tdm_status compare(tdm_vk_device *vd, char *why, size_t size)
{
    const uint32_t m = CHECK_M, n = CHECK_N, k = CHECK_K;
    const float alpha = 0.75f, beta = -0.5f;
    product p;
    float *a = malloc(sizeof(float) * (m * k + k * n + 2 * m * n));
    if (!a)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    float *b = a + m * k, *c0 = b + k * n, *got = c0 + m * n;
    tdm_status s = allocate(vd, &p, m, n, k);
    if (s == TDM_OK)
        s = write_halves(p.a, (size_t)m * k, 1, a);
    if (s == TDM_OK)
        s = write_halves(p.b, (size_t)k * n, 5, b);
    const tdm_tolerance *tol = &tdm_kernel_get(TDM_KERNEL_gemm_f16)->tolerance;
    for (int t = 0; t < 4 && s == TDM_OK && !why[0]; t++) {
        int ta = t & 1, tb = t >> 1;
        for (size_t i = 0; i < (size_t)m * n; i++)
            c0[i] = value_at(i, 3u + (unsigned)t);
        s = tdm_vk_write(p.c, tdm_backend_buffer_state(p.c), 0, c0, sizeof(float) * m * n);
        if (s == TDM_OK)
            s = launch(vd, &p, TDM_VK_PIPELINE_COOPMAT, ta, tb, alpha, beta);
        if (s == TDM_OK)
            s = tdm_vk_read(p.c, tdm_backend_buffer_state(p.c), 0, got, sizeof(float) * m * n);
        for (uint32_t r = 0; r < m && s == TDM_OK && !why[0]; r++)
            for (uint32_t col = 0; col < n && !why[0]; col++) {
                double sum = 0, scale = 0;
                for (uint32_t q = 0; q < k; q++) {
                    double x = ta ? a[q * m + r] : a[r * k + q];
                    double y = tb ? b[col * k + q] : b[q * n + col];
                    sum += x * y;
                    scale += fabs(x * y);
                }
                double want = alpha * sum + beta * c0[r * n + col];
                scale = fabs(alpha) * scale + fabs(beta * c0[r * n + col]);
                double error = fabs(got[r * n + col] - want);
                if (!(error <= tol->rel * scale + tol->ulps * ldexp(fabs(want), -23)))
                    snprintf(why, size,
                             "results differ: C[%u][%u] = %g, not %g (trans_a %d, trans_b %d, "
                             "%ux%ux%u)",
                             r, col, got[r * n + col], want, ta, tb, m, n, k);
            }
    }
    release(&p);
    free(a);
    return s;
}

static double seconds_now(void)
{
    return (double)tdm_host_now_ns() * 1e-9;
}

/* Seconds of SPEED_RUNS products on pipeline `index`, after one to warm it up. */
static tdm_status time_runs(tdm_vk_device *vd, product *p, size_t index, double *seconds)
{
    tdm_status s = launch(vd, p, index, 0, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_vk_finish(vd->dev, vd);
    double start = seconds_now();
    for (int r = 0; r < SPEED_RUNS && s == TDM_OK; r++)
        s = launch(vd, p, index, 0, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_vk_finish(vd->dev, vd);
    *seconds = seconds_now() - start;
    return s;
}

static tdm_status race(tdm_vk_device *vd, char *why, size_t size, double *engine, double *plain)
{
    product p;
    const uint32_t u[TDM_KERNEL_MAX_UINTS] = {SPEED_SIZE, SPEED_SIZE, SPEED_SIZE,
                                              SPEED_SIZE, SPEED_SIZE, SPEED_SIZE};
    size_t plain_index = tdm_vk_gemm_pipeline(vd, TDM_KERNEL_gemm_f16, u);
    tdm_status s = allocate(vd, &p, SPEED_SIZE, SPEED_SIZE, SPEED_SIZE);
    if (s == TDM_OK)
        s = write_halves(p.a, (size_t)SPEED_SIZE * SPEED_SIZE, 1, NULL);
    if (s == TDM_OK)
        s = write_halves(p.b, (size_t)SPEED_SIZE * SPEED_SIZE, 5, NULL);
    if (s == TDM_OK)
        s = time_runs(vd, &p, plain_index, plain);
    if (s == TDM_OK)
        s = time_runs(vd, &p, TDM_VK_PIPELINE_COOPMAT, engine);
    if (s == TDM_OK && !(*engine < *plain))
        snprintf(why, size, "not faster: %d products of %u^3 in %.3f ms, %.3f ms without it",
                 SPEED_RUNS, SPEED_SIZE, *engine * 1e3, *plain * 1e3);
    release(&p);
    return s;
}

/* Why the path cannot be used, in why; "" where it can. */
static void run_check(tdm_vk_device *vd, char *why, size_t size, double *engine, double *plain)
{
    if (vd->coopmat.faked && !vd->coopmat.emulated) {
        snprintf(why, size,
                 "the device was created without VK_KHR_cooperative_matrix (its shape is "
                 "claimed by TDM_VK_FAKE_COOPMAT)");
        return;
    }
    tdm_status s = compare(vd, why, size);
    /* the emulation is not meant to be fast: it is taken on its results, so that the
     * tests run every gemm_f16 through the module's staging, edges and epilogue */
    int raced = !vd->coopmat.emulated && !tdm_vk_env_flag("TDM_VK_COOPMAT_UNRACED");
    if (s == TDM_OK && !why[0] && raced)
        s = race(vd, why, size, engine, plain);
    if (s != TDM_OK)
        snprintf(why, size, "%s", tdm_last_error());
}

void tdm_vk_coopmat_check(tdm_vk_device *vd)
{
    tdm_mutex_lock(&vd->coopmat_lock);
    if (vd->coopmat.state == TDM_VK_COOPMAT_UNCHECKED) {
        char why[TDM_DEVICE_NAME_MAX] = "", shape[96];
        double engine = 0, plain = 0;
        run_check(vd, why, sizeof why, &engine, &plain);
        tdm_vk_coopmat_describe(&vd->coopmat, shape, sizeof shape);
        if (why[0]) {
            char engine_text[TDM_DEVICE_NAME_MAX];
            snprintf(engine_text, sizeof engine_text, "not used: check failed: %.160s", why);
            tdm_backend_device_set_matrix_engine(vd->dev, engine_text);
            tdm_log(tdm_backend_device_context(vd->dev), TDM_LOG_INFO,
                    "%s: matrix engine %s not used, gemm_f16 keeps "
                    "tandem's shader: check failed: %s",
                    tdm_backend_device_desc(vd->dev)->id, shape, why);
        } else {
            char speed[160] = "its results checked, its speed not (the emulated module)";
            if (!vd->coopmat.emulated && tdm_vk_env_flag("TDM_VK_COOPMAT_UNRACED"))
                snprintf(speed, sizeof speed,
                         "its results checked, its speed not raced "
                         "(TDM_VK_COOPMAT_UNRACED)");
            else if (!vd->coopmat.emulated)
                snprintf(speed, sizeof speed, "%d products of %u^3 in %.3f ms, %.3f ms without it",
                         SPEED_RUNS, SPEED_SIZE, engine * 1e3, plain * 1e3);
            tdm_backend_device_set_matrix_engine(vd->dev, shape);
            tdm_log(tdm_backend_device_context(vd->dev), TDM_LOG_INFO,
                    "%s: matrix engine %s used for gemm_f16: %s",
                    tdm_backend_device_desc(vd->dev)->id, shape, speed);
        }
        vd->coopmat.state = why[0] ? TDM_VK_COOPMAT_REFUSED : TDM_VK_COOPMAT_USED;
    }
    tdm_mutex_unlock(&vd->coopmat_lock);
}
