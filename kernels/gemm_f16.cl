/* gemm_f16: C = alpha * op(A) * op(B) + beta * C, row-major, A and B float16 stored as
 * 16-bit words (read with vload_half*, so cl_khr_fp16 is not needed), C float32;
 * beta == 0 ignores C's old contents, NaN included. Tolerance as gemm's.
 *
 * Register blocking, as shaders/gemm.glsl: each item computes ROWS x COLS of C (a
 * vector of COLS floats per row), grid-stride over the blocks, K one at a time: one row
 * of op(B) (a vload_half of COLS where it lies inside B untransposed) times ROWS values
 * of op(A). No local memory: on CPU drivers the matrices' own lines are in cache. On a
 * CPU 8 x 16 (24 loads per 128 products; on PoCL with AVX-512 it ran 512^3 at twice the
 * speed of 8 x 8, and 4 x 16 about as fast); elsewhere 4 x 4, since 8 x 16 keeps about
 * 300 floats live an item (sums, partial sums, four rows of B), past a GPU's registers
 * (255 an item on NVIDIA), where 4 x 4 keeps about 50. Products are summed per STEP_K
 * before joining the total, so the error grows with STEP_K + k / STEP_K, not k.
 *
 * Split over k (opencl_gemm_split.c): a launch of more than one group along dimension
 * 1 sums slice get_group_id(1) of k alone (the last slice takes the rest of k) into
 * its own m x ldc partial of C, which lies after the partials of the slices before. */

#ifdef TDM_CPU
#define ROWS 8
#define COLS 16
#else
#define ROWS 4
#define COLS 4
#endif
#define STEP_K 16
/* A row of the block, and its loads and stores. */
#define floatC TDM_CAT(float, COLS)
#define vloadC TDM_CAT(vload, COLS)
#define vstoreC TDM_CAT(vstore, COLS)
#define vload_halfC TDM_CAT(vload_half, COLS)

/* op(A)[row][p], zero out of range. */
float elem_a(global const half *a, uint m, uint k, uint lda, uint ta, uint row, uint p)
{
    if (row >= m || p >= k)
        return 0.0f;
    return vload_half(ta ? (size_t)p * lda + row : (size_t)row * lda + p, a);
}

/* op(B)[p][col], zero out of range. */
float elem_b(global const half *b, uint n, uint k, uint ldb, uint tb, uint p, uint col)
{
    if (col >= n || p >= k)
        return 0.0f;
    return vload_half(tb ? (size_t)col * ldb + p : (size_t)p * ldb + col, b);
}

/* op(B)[p][col0 .. col0 + COLS - 1]; `inside`: all columns are below n. vload_halfN
 * needs only 16-bit alignment, so any offset and ldb work. */
floatC row_b(global const half *b, uint n, uint k, uint ldb, uint tb, uint p, uint col0,
              int inside)
{
    float v[COLS];

    if (!tb && inside)
        return vload_halfC(0, b + (size_t)p * ldb + col0);
    for (uint j = 0; j < COLS; j++)
        v[j] = elem_b(b, n, k, ldb, tb, p, col0 + j);
    return vloadC(0, v);
}

/* op(B)[p .. p + 3][col0 .. col0 + COLS - 1] of a transposed B, all inside: four
 * halves from each of COLS rows of B, instead of COLS scalar loads per p. */
void rows4_bt(global const half *b, uint ldb, uint p, uint col0, floatC *rows)
{
    float t[4][COLS];

    for (uint j = 0; j < COLS; j++) {
        const float4 q = vload_half4(0, b + (size_t)(col0 + j) * ldb + p);
        t[0][j] = q.s0;
        t[1][j] = q.s1;
        t[2][j] = q.s2;
        t[3][j] = q.s3;
    }
    for (uint s = 0; s < 4; s++)
        rows[s] = vloadC(0, t[s]);
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_gemm_f16(TDM_SIGNATURE)
{
    const size_t blocks_n = n / COLS + (n % COLS != 0);
    const size_t blocks = (m / ROWS + (m % ROWS != 0)) * blocks_n;
    /* The core launches an item per element of C, far more than the blocks need: the
     * busy groups are spread evenly over the launch (every spacing-th), since a CPU
     * driver hands each thread a contiguous range of groups. */
    const size_t groups = get_num_groups(0), needed = blocks / TDM_WG + (blocks % TDM_WG != 0);
    const size_t spacing = max((size_t)1, groups / max(needed, (size_t)1));
    const size_t group = get_group_id(0);

    if (group % spacing != 0)
        return;
    const size_t slots = (groups + spacing - 1) / spacing;
    const uint slices = (uint)get_num_groups(1), slice = (uint)get_group_id(1);
    const uint k_begin = slice * (k / slices);
    const uint k_end = slice + 1 == slices ? k : k_begin + k / slices;
    c += c_off + (size_t)slice * m * ldc;
    a += a_off;
    b += b_off;
    for (size_t t = group / spacing * TDM_WG + get_local_id(0); t < blocks; t += slots * TDM_WG) {
        const uint row0 = (uint)(t / blocks_n) * ROWS, col0 = (uint)(t % blocks_n) * COLS;
        const int inside = col0 + COLS <= n;
        floatC acc[ROWS];

        for (int i = 0; i < ROWS; i++)
            acc[i] = 0.0f;
        for (uint k0 = k_begin; k0 < k_end; k0 += STEP_K) {
            const uint end = min(k_end, k0 + STEP_K);
            floatC part[ROWS];

            for (int i = 0; i < ROWS; i++)
                part[i] = 0.0f;
            for (uint p = k0; p < end;) {
                /* A product of two halves is exact in float, so a fused multiply-add
                 * rounds as the product and the sum do. */
#pragma OPENCL FP_CONTRACT ON
                floatC bv[4];
                uint steps = 1;

                if (trans_b && inside && p + 4 <= end) {
                    rows4_bt(b, ldb, p, col0, bv);
                    steps = 4;
                } else {
                    bv[0] = row_b(b, n, k, ldb, trans_b, p, col0, inside);
                }
                for (uint s = 0; s < steps; s++, p++)
                    for (int i = 0; i < ROWS; i++)
                        part[i] += elem_a(a, m, k, lda, trans_a, row0 + i, p) * bv[s];
            }
            for (int i = 0; i < ROWS; i++)
                acc[i] += part[i];
        }
        for (uint i = 0; i < ROWS && row0 + i < m; i++) {
            global float *out = c + (size_t)(row0 + i) * ldc + col0;
            const floatC v = alpha * acc[i];
            float vals[COLS];

            if (inside) {
                vstoreC(beta == 0.0f ? v : v + beta * vloadC(0, out), 0, out);
                continue;
            }
            vstoreC(v, 0, vals);
            for (uint j = 0; j < COLS && col0 + j < n; j++)
                out[j] = beta == 0.0f ? vals[j] : vals[j] + beta * out[j];
        }
    }
}
