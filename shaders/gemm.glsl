// The body of gemm and gemm_f16: C = alpha * op(A) * op(B) + beta * C, row-major;
// op(A) is m x k, op(B) k x n. A is m x k with leading dimension lda (k x m when trans_a), likewise B with ldb;
// C is m x n with ldc. beta == 0 ignores C's old contents, NaN included.
//
// Register blocking: each invocation computes a block of 4 ROWS4 x 4 COLS4 elements of
// C (16 x 32 on CPU drivers, 4 x 4 on GPUs), grid-stride over the blocks (neighbouring
// invocations take neighbouring blocks along a row of C, so they share op(A)'s rows),
// held as mat4s (column r of acc[i][j]: row 4i + r of the block, its columns
// 4j .. 4j + 3). K advances four at a time: the invocation loads the values of op(A)
// and op(B) it needs as mat4s, each from four quads (a vec4 of floats, a uvec2 of
// halves) where the block is inside the matrices and A and B are aligned to quads
// (view offset and leading dimension multiples of 4; likewise C for the result), else
// one by one with out-of-range elements as zeros, then adds ROWS4 x COLS4 mat4
// products. No shared memory and no
// barriers: on CPU drivers every access is a loop over the SIMD lanes and a barrier a
// switch between coroutines, so loading from the matrices themselves (cached) costs no
// more than staging them, and the cost is the values loaded per product: 1/32 + 1/16
// for 16 x 32 (16 x 16 blocks: 1/8, and 20-30 % slower on lavapipe at 1024^3). The
// group is the device's size (constant 0). Products are summed per STEP_K before
// joining the total, so the error grows with STEP_K + k / STEP_K, not k.
//
// The including shader declares the views a and b and defines, before including this
// file, their loads as float (A's, likewise B's; i is an element of the view):
//   vec4 tdm_gemm_quad_a(uint i)     elements i .. i + 3, TDM_OFF_a + i a multiple of 4
//   float tdm_gemm_single_a(uint i)  element i
#ifndef TDM_GEMM_GLSL
#define TDM_GEMM_GLSL

#define STEP_K 16u
// The block's rows and columns, in fours: 16 x 32 unless the backend specializes
// them for its device (vulkan_device.c: 4 x 4 on GPUs, which need more invocations).
layout(constant_id = 1) const uint ROWS4 = 4u;
layout(constant_id = 2) const uint COLS4 = 8u;
TDM_VIEW_AND_QUADS(c);

bool aligned(uint off, uint ld)
{
    return ((off | ld) & 3u) == 0u;
}

// op(A)[row0 + r][p .. p + 3] for r < 4, as columns; A's quads are aligned.
mat4 quads_a(uint row0, uint p)
{
    uint lda = TDM_U_lda;
    if (TDM_U_trans_a == 0u)
        return mat4(tdm_gemm_quad_a(row0 * lda + p), tdm_gemm_quad_a((row0 + 1u) * lda + p),
                    tdm_gemm_quad_a((row0 + 2u) * lda + p), tdm_gemm_quad_a((row0 + 3u) * lda + p));
    return transpose(mat4(tdm_gemm_quad_a(p * lda + row0), tdm_gemm_quad_a((p + 1u) * lda + row0),
                          tdm_gemm_quad_a((p + 2u) * lda + row0),
                          tdm_gemm_quad_a((p + 3u) * lda + row0)));
}

// op(B)[p + q][col0 .. col0 + 3] for q < 4, as columns; B's quads are aligned.
mat4 quads_b(uint col0, uint p)
{
    uint ldb = TDM_U_ldb;
    if (TDM_U_trans_b == 0u)
        return mat4(tdm_gemm_quad_b(p * ldb + col0), tdm_gemm_quad_b((p + 1u) * ldb + col0),
                    tdm_gemm_quad_b((p + 2u) * ldb + col0), tdm_gemm_quad_b((p + 3u) * ldb + col0));
    return transpose(mat4(tdm_gemm_quad_b(col0 * ldb + p), tdm_gemm_quad_b((col0 + 1u) * ldb + p),
                          tdm_gemm_quad_b((col0 + 2u) * ldb + p),
                          tdm_gemm_quad_b((col0 + 3u) * ldb + p)));
}

// One element of op(A) or op(B), zero out of range.
float single_a(uint row, uint p)
{
    if (row >= TDM_U_m || p >= TDM_U_k)
        return 0.0;
    uint lda = TDM_U_lda;
    return tdm_gemm_single_a(TDM_U_trans_a != 0u ? p * lda + row : row * lda + p);
}

float single_b(uint p, uint col)
{
    if (col >= TDM_U_n || p >= TDM_U_k)
        return 0.0;
    uint ldb = TDM_U_ldb;
    return tdm_gemm_single_b(TDM_U_trans_b != 0u ? col * ldb + p : p * ldb + col);
}

vec4 singles_a(uint row, uint p)
{
    return vec4(single_a(row, p), single_a(row, p + 1u), single_a(row, p + 2u),
                single_a(row, p + 3u));
}

vec4 singles_b(uint p, uint col0)
{
    return vec4(single_b(p, col0), single_b(p, col0 + 1u), single_b(p, col0 + 2u),
                single_b(p, col0 + 3u));
}

mat4 singles_a4(uint row0, uint p)
{
    return mat4(singles_a(row0, p), singles_a(row0 + 1u, p), singles_a(row0 + 2u, p),
                singles_a(row0 + 3u, p));
}

mat4 singles_b4(uint col0, uint p)
{
    return mat4(singles_b(p, col0), singles_b(p + 1u, col0), singles_b(p + 2u, col0),
                singles_b(p + 3u, col0));
}

// One row of the result, columns col0 .. col0 + 3, into C.
void store_row(uint row, uint col0, vec4 v, bool quads)
{
    uint n = TDM_U_n, ldc = TDM_U_ldc;
    float alpha = TDM_F_alpha, beta = TDM_F_beta;
    v *= alpha;
    uint ic = row * ldc + col0;
    if (quads) {
        c4[TDM_QUAD(c, ic)] = beta == 0.0 ? v : v + beta * c4[TDM_QUAD(c, ic)];
        return;
    }
    if (row >= TDM_U_m)
        return;
    for (uint i = 0u; i < 4u; i++)
        if (col0 + i < n) {
            uint e = TDM_OFF_c + ic + i;
            c[e] = beta == 0.0 ? v[i] : v[i] + beta * c[e];
        }
}

void store_quarter(uint row0, uint col0, mat4 rows, bool quads)
{
    for (uint r = 0u; r < 4u; r++)
        store_row(row0 + r, col0, rows[r], quads);
}

void main()
{
    uint m = TDM_U_m, n = TDM_U_n, k = TDM_U_k;
    uint rows = ROWS4 * 4u, cols = COLS4 * 4u;
    uint blocks_n = n / cols + (n % cols != 0u ? 1u : 0u);
    uint blocks = (m / rows + (m % rows != 0u ? 1u : 0u)) * blocks_n;
    bool inputs_aligned = aligned(TDM_OFF_a, TDM_U_lda) && aligned(TDM_OFF_b, TDM_U_ldb);
    // The core launches a group per 16 x 16 of C, more than the blocks need: the
    // busy groups are spread evenly over the launch (every spacing-th), since a CPU
    // driver hands each thread a contiguous range of groups.
    uint size = gl_WorkGroupSize.x, needed = blocks / size + (blocks % size != 0u ? 1u : 0u);
    uint spacing = max(1u, gl_NumWorkGroups.x / max(needed, 1u));
    if (gl_WorkGroupID.x % spacing != 0u)
        return;
    uint slots = (gl_NumWorkGroups.x + spacing - 1u) / spacing;
    uint first = gl_WorkGroupID.x / spacing * size + gl_LocalInvocationID.x;
    for (uint t = first; t < blocks; t += slots * size) {
        uint row0 = t / blocks_n * rows, col0 = t % blocks_n * cols;
        bool inside = row0 + rows <= m && col0 + cols <= n;
        mat4 acc[ROWS4][COLS4];
        for (uint i = 0u; i < ROWS4; i++)
            for (uint j = 0u; j < COLS4; j++)
                acc[i][j] = mat4(0.0);
        for (uint k0 = 0u; k0 < k; k0 += STEP_K) {
            mat4 partial[ROWS4][COLS4];
            for (uint i = 0u; i < ROWS4; i++)
                for (uint j = 0u; j < COLS4; j++)
                    partial[i][j] = mat4(0.0);
            for (uint p = k0; p < min(k, k0 + STEP_K); p += 4u) {
                bool quads = inside && inputs_aligned && p + 4u <= k;
                mat4 av[ROWS4], bv[COLS4];
                for (uint i = 0u; i < ROWS4; i++)
                    av[i] = quads ? quads_a(row0 + 4u * i, p) : singles_a4(row0 + 4u * i, p);
                for (uint j = 0u; j < COLS4; j++)
                    bv[j] = quads ? quads_b(col0 + 4u * j, p) : singles_b4(col0 + 4u * j, p);
                for (uint i = 0u; i < ROWS4; i++)
                    for (uint j = 0u; j < COLS4; j++)
                        partial[i][j] += bv[j] * av[i];
            }
            for (uint i = 0u; i < ROWS4; i++)
                for (uint j = 0u; j < COLS4; j++)
                    acc[i][j] += partial[i][j];
        }
        bool quads = inside && aligned(TDM_OFF_c, TDM_U_ldc);
        for (uint i = 0u; i < ROWS4; i++)
            for (uint j = 0u; j < COLS4; j++)
                store_quarter(row0 + 4u * i, col0 + 4u * j, acc[i][j], quads);
    }
}

#endif
