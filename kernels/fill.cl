/* fill: y[i] = value, i in [0, n). Tolerance 0. */
#pragma OPENCL FP_CONTRACT OFF

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
kernel void tdm_fill(global float *y, uint y_off, uint n, float value)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        store4((float4)(value), y, q, n);
    }
}
