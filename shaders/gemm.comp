#version 450
// gemm: C = alpha * op(A) * op(B) + beta * C, row-major; op(A) is m x k, op(B) k x n.
// A is m x k with leading dimension lda (k x m when trans_a), likewise B with ldb;
// C is m x n with ldc. beta == 0 ignores C's old contents, NaN included.
//
// One work-group of 16 x 16 invocations per 16 x 16 tile of C, grid-stride over the
// tiles; each invocation computes one element of its tile. K advances in steps of 16:
// the group stages a 16 x 16 block of op(A) and of op(B) in shared memory (loading
// along the matrix's rows whatever the transposition, so that neighbouring
// invocations read neighbouring words), then every invocation takes its dot product
// over the block. Out-of-range elements are staged as zeros.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

#define TILE 16u
layout(local_size_x = 256) in;
TDM_BUFFER(0, , float, c);
TDM_BUFFER(1, readonly, float, a);
TDM_BUFFER(2, readonly, float, b);

shared float tile_a[TILE][TILE + 1u]; // tile_a[i][p] = op(A)[row0 + i][k0 + p]
shared float tile_b[TILE][TILE + 1u]; // tile_b[p][j] = op(B)[k0 + p][col0 + j]

void main()
{
    uint m = args.u[0], n = args.u[1], k = args.u[2];
    uint lda = args.u[3], ldb = args.u[4], ldc = args.u[5];
    bool trans_a = args.u[6] != 0u, trans_b = args.u[7] != 0u;
    float alpha = args.f[0], beta = args.f[1];
    uint tx = gl_LocalInvocationID.x % TILE, ty = gl_LocalInvocationID.x / TILE;
    uint tiles_n = n / TILE + (n % TILE != 0u ? 1u : 0u);
    uint tiles = (m / TILE + (m % TILE != 0u ? 1u : 0u)) * tiles_n;

    for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) {
        uint row0 = t / tiles_n * TILE, col0 = t % tiles_n * TILE;
        float acc = 0.0;
        for (uint k0 = 0u; k0 < k; k0 += TILE) {
            // op(A)[i][p]: A[i * lda + p], or A[p * lda + i] transposed; the
            // invocation's tx runs along A's rows either way.
            uint i = trans_a ? tx : ty, p = trans_a ? ty : tx;
            bool in_a = row0 + i < m && k0 + p < k;
            uint ia = trans_a ? (k0 + p) * lda + row0 + i : (row0 + i) * lda + k0 + p;
            tile_a[i][p] = in_a ? a[args.off[1] + ia] : 0.0;
            // op(B)[p][j]: B[p * ldb + j], or B[j * ldb + p] transposed.
            uint q = trans_b ? tx : ty, j = trans_b ? ty : tx;
            bool in_b = k0 + q < k && col0 + j < n;
            uint ib = trans_b ? (col0 + j) * ldb + k0 + q : (k0 + q) * ldb + col0 + j;
            tile_b[q][j] = in_b ? b[args.off[2] + ib] : 0.0;
            barrier();
            float block = 0.0; // summed per block: error grows with 16 + k / 16, not k
            for (uint s = 0u; s < TILE; s++)
                block += tile_a[ty][s] * tile_b[s][tx];
            acc += block;
            barrier();
        }
        uint row = row0 + ty, col = col0 + tx;
        if (row < m && col < n) {
            uint ic = args.off[0] + row * ldc + col;
            c[ic] = beta == 0.0 ? alpha * acc : alpha * acc + beta * c[ic];
        }
    }
}
