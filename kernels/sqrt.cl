/* sqrt: y[i] = sqrt(x[i]), NaN for x < 0, i in [0, n). Tolerance 3 ulps (correctly
 * rounded where the backend builds with -cl-fp32-correctly-rounded-divide-sqrt). */
#pragma OPENCL FP_CONTRACT OFF

/* Elements 4q .. 4q + 3 of p, those at n and beyond read as 0. vload4 needs only float
 * alignment, so any element offset works. */
float4 load4(global const float *p, size_t q, size_t n)
{
    const size_t i = 4 * q;

    if (i + 4 <= n)
        return vload4(q, p);
    return (float4)(p[i], i + 1 < n ? p[i + 1] : 0.0f, i + 2 < n ? p[i + 2] : 0.0f, 0.0f);
}

/* Stores the lanes of v that fall below n at elements 4q .. 4q + 3 of p. */
void store4(float4 v, global float *p, size_t q, size_t n)
{
    const size_t i = 4 * q;

    if (i + 4 <= n) {
        vstore4(v, q, p);
        return;
    }
    p[i] = v.x;
    if (i + 1 < n)
        p[i + 1] = v.y;
    if (i + 2 < n)
        p[i + 2] = v.z;
}

__attribute__((reqd_work_group_size(64, 1, 1)))
kernel void tdm_sqrt(global float *y, global const float *x, uint y_off, uint x_off, uint n)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        store4(sqrt(load4(x, q, n)), y, q, n);
    }
}
