#version 450
// gemm_f16 on a matrix engine (VK_KHR_cooperative_matrix): C = alpha * op(A) * op(B)
// + beta * C with A and B float16, C float32, the sums float32; the kernel's
// arguments, an alternative module the Vulkan backend takes on a device whose
// cooperative-matrix properties offer a fitting shape and which passed its start-up
// check (vulkan_coopmat.c; docs/design/009-cooperative-matrices.md).
//
// A group is SUBGROUPS (4) subgroups of SUBGROUP_SIZE invocations in a 2 x 2 grid over
// a 128 x 128 tile of C, each subgroup 64 x 64 of it as (64 / FRAG_M) x (64 / FRAG_N)
// accumulator fragments of FRAG_M x FRAG_N: 16 products of 16 x 16 fragments for each
// 8 fragments loaded (a 32 x 32 share multiplies 4 for 4). Per STEP_K of k the group stages op(A)'s 128 x STEP_K and
// op(B)'s STEP_K x 128 in shared memory as halves, row-major whatever trans_a and
// trans_b say (the loads follow the matrices' memory order, so neighbouring
// invocations read neighbouring halves), with zeros past m, n and k; each subgroup
// then multiplies fragments loaded from there. The next step's halves are read from
// memory into registers before this step's products, so their latency hides behind
// the matrix engine's work. The sums leave through shared memory, a fragment at a
// time, so that the edges are guarded and alpha and beta applied element by element
// (beta == 0 ignores C's old contents, NaN included).
//
// Built a second time with TDM_COOPMAT_EMULATED into gemm_f16_coopmat_emulated, for
// tests on devices without the extension (TDM_VK_FAKE_COOPMAT=emulated): the same
// staging, edges and epilogue, the fragments emulated per invocation (FRAG_* below).
#extension GL_GOOGLE_include_directive : require
#ifndef TDM_COOPMAT_EMULATED
#extension GL_KHR_cooperative_matrix : require
#endif
#extension GL_KHR_memory_scope_semantics : require
// [[unroll]]: the fragment loops' counts are constants once specialized, but NVIDIA's
// compiler keeps such a loop, and with it the fragment arrays in memory, unless told
// (on an H200 the products alone ran at 35 TFLOP/s without, 331 with).
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define TDM_KERNEL_gemm_f16
#include "kernel_bindings.glsl"

// The fragment shape the device's properties offer (vulkan_coopmat.c chooses it):
// FRAG_M and FRAG_N divide SPAN, FRAG_K divides STEP_K. The group is SUBGROUPS *
// SUBGROUP_SIZE invocations (the backend sets local_size_x, constant 0, to that),
// each subgroup of SUBGROUP_SIZE, as the pipeline requires where the device can.
layout(constant_id = 7) const uint FRAG_M = 16u;
layout(constant_id = 8) const uint FRAG_N = 16u;
layout(constant_id = 9) const uint FRAG_K = 16u;
layout(constant_id = 10) const uint SUBGROUP_SIZE = 32u;

#define SUBGROUPS 4u
#define TILE 128u
#define SPAN 64u // a subgroup's rows and columns of the tile
#define STEP_K 32u
// Eight halves of padding a row: rows stay 16-byte aligned for the fragment loads and
// neighbouring rows start in different banks.
#define STRIDE_A (STEP_K + 8u)
#define STRIDE_B (TILE + 8u)
const uint FRAGS_M = SPAN / FRAG_M;
const uint FRAGS_N = SPAN / FRAG_N;
const uint GROUP = SUBGROUPS * SUBGROUP_SIZE;
// The quads of op(A) (and as many of op(B)) each invocation stages per step.
const uint QUADS_EACH = TILE * STEP_K / 4u / GROUP;

// Words of two halves, the lower-addressed in the low bits; a quad is the uvec2 of
// four.
TDM_VIEW_AND_QUADS(a);
TDM_VIEW_AND_QUADS(b);
TDM_VIEW(c);

shared float16_t staged_a[TILE * STRIDE_A]; // op(A)[row][kk]
shared float16_t staged_b[STEP_K * STRIDE_B]; // op(B)[kk][col]
shared float sums_out[SUBGROUPS * FRAG_M * FRAG_N]; // one fragment per subgroup

// Element e of a float16 view of words, the lower-addressed half in the low bits.
float16_t half_at(uint word, uint e)
{
    f16vec2 pair = unpackFloat2x16(word);
    return (e & 1u) != 0u ? pair.y : pair.x;
}

// op(A)[row][p] and op(B)[p][col], zero out of range.
float16_t op_a(uint row, uint p)
{
    if (row >= TDM_U_m || p >= TDM_U_k)
        return float16_t(0.0);
    uint e = TDM_OFF_a + (TDM_U_trans_a != 0u ? p * TDM_U_lda + row : row * TDM_U_lda + p);
    return half_at(a[e >> 1], e);
}

float16_t op_b(uint p, uint col)
{
    if (col >= TDM_U_n || p >= TDM_U_k)
        return float16_t(0.0);
    uint e = TDM_OFF_b + (TDM_U_trans_b != 0u ? col * TDM_U_ldb + p : p * TDM_U_ldb + col);
    return half_at(b[e >> 1], e);
}

f16vec4 halves4(uvec2 words)
{
    return f16vec4(unpackFloat2x16(words.x), unpackFloat2x16(words.y));
}

// Four halves of op(A) from (row, p) on, the way A lies in memory (along k, or down
// the rows where trans_a), zero out of range: one 8-byte load where they are a quad
// inside the matrix.
f16vec4 quad_a(uint row, uint p)
{
    bool t = TDM_U_trans_a != 0u;
    uint e = TDM_OFF_a + (t ? p * TDM_U_lda + row : row * TDM_U_lda + p);
    bool inside = t ? row + 4u <= TDM_U_m && p < TDM_U_k : row < TDM_U_m && p + 4u <= TDM_U_k;
    if (inside && (e & 3u) == 0u)
        return halves4(a4[e >> 2]);
    return t ? f16vec4(op_a(row, p), op_a(row + 1u, p), op_a(row + 2u, p), op_a(row + 3u, p))
             : f16vec4(op_a(row, p), op_a(row, p + 1u), op_a(row, p + 2u), op_a(row, p + 3u));
}

// Four halves of op(B) from (p, col) on, along B's rows (across k where trans_b).
f16vec4 quad_b(uint p, uint col)
{
    bool t = TDM_U_trans_b != 0u;
    uint e = TDM_OFF_b + (t ? col * TDM_U_ldb + p : p * TDM_U_ldb + col);
    bool inside = t ? col < TDM_U_n && p + 4u <= TDM_U_k : p < TDM_U_k && col + 4u <= TDM_U_n;
    if (inside && (e & 3u) == 0u)
        return halves4(b4[e >> 2]);
    return t ? f16vec4(op_b(p, col), op_b(p + 1u, col), op_b(p + 2u, col), op_b(p + 3u, col))
             : f16vec4(op_b(p, col), op_b(p, col + 1u), op_b(p, col + 2u), op_b(p, col + 3u));
}

// The next step's halves of op(A) and op(B), read from memory before this step's
// products and written to shared memory after them.
f16vec4 next_a[QUADS_EACH], next_b[QUADS_EACH];

// Quads along a staged row of op(A) (k) and of op(B) (the tile's columns).
const uint ACROSS_K = STEP_K / 4u, ACROSS_TILE = TILE / 4u;

// The group's halves of op(A) and op(B) for the tile (row0, col0) at k0, four at a
// time, into next_a and next_b: invocation x takes quads x, x + GROUP, ..., so that
// neighbours read neighbouring quads in memory.
void fetch(uint row0, uint col0, uint k0)
{
    [[unroll]] for (uint i = 0u; i < QUADS_EACH; i++) {
        uint q = gl_LocalInvocationID.x + i * GROUP;
        if (TDM_U_trans_a == 0u)
            next_a[i] = quad_a(row0 + q / ACROSS_K, k0 + q % ACROSS_K * 4u);
        else
            next_a[i] = quad_a(row0 + q % ACROSS_TILE * 4u, k0 + q / ACROSS_TILE);
        if (TDM_U_trans_b == 0u)
            next_b[i] = quad_b(k0 + q / ACROSS_TILE, col0 + q % ACROSS_TILE * 4u);
        else
            next_b[i] = quad_b(k0 + q % ACROSS_K * 4u, col0 + q / ACROSS_K);
    }
}

// next_a and next_b into the staged arrays, op(A) row-major over (row, kk), op(B)
// over (kk, col).
void stage()
{
    [[unroll]] for (uint i = 0u; i < QUADS_EACH; i++) {
        uint q = gl_LocalInvocationID.x + i * GROUP;
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            if (TDM_U_trans_a == 0u)
                staged_a[q / ACROSS_K * STRIDE_A + q % ACROSS_K * 4u + j] = next_a[i][j];
            else
                staged_a[(q % ACROSS_TILE * 4u + j) * STRIDE_A + q / ACROSS_TILE] = next_a[i][j];
            if (TDM_U_trans_b == 0u)
                staged_b[q / ACROSS_TILE * STRIDE_B + q % ACROSS_TILE * 4u + j] = next_b[i][j];
            else
                staged_b[(q % ACROSS_K * 4u + j) * STRIDE_B + q / ACROSS_K] = next_b[i][j];
        }
    }
}

// The fragment operations: the subgroup's accumulators `sums` (FRAGS_M x FRAGS_N of
// them), fragment i of op(A) and one of op(B) loaded from the staged halves at an
// element offset, their product added to accumulator f, and accumulator f stored
// row-major to sums_out at base.
#ifndef TDM_COOPMAT_EMULATED
#define FRAG_SUMS(name)                                                                 \
    coopmat<float, gl_ScopeSubgroup, FRAG_M, FRAG_N, gl_MatrixUseAccumulator>           \
        name[FRAGS_M * FRAGS_N]
#define FRAG_ZERO(name, f)                                                              \
    name[f] = coopmat<float, gl_ScopeSubgroup, FRAG_M, FRAG_N, gl_MatrixUseAccumulator>(0.0)
#define FRAGS_A(name) coopmat<float16_t, gl_ScopeSubgroup, FRAG_M, FRAG_K, gl_MatrixUseA> name[FRAGS_M]
#define FRAG_B(name) coopmat<float16_t, gl_ScopeSubgroup, FRAG_K, FRAG_N, gl_MatrixUseB> name
#define FRAG_LOAD_A(name, i, at)                                                        \
    coopMatLoad(name[i], staged_a, at, STRIDE_A, gl_CooperativeMatrixLayoutRowMajor)
#define FRAG_LOAD_B(name, at)                                                           \
    coopMatLoad(name, staged_b, at, STRIDE_B, gl_CooperativeMatrixLayoutRowMajor)
#define FRAG_MUL_ADD(sums, f, frags_a, i, frag_b)                                       \
    sums[f] = coopMatMulAdd(frags_a[i], frag_b, sums[f])
#define FRAG_STORE(sums, f, base)                                                       \
    coopMatStore(sums[f], sums_out, base, FRAG_N, gl_CooperativeMatrixLayoutRowMajor)
#else
// Each invocation holds elements lane, lane + SUBGROUP_SIZE, ... of each accumulator
// (row-major), and a fragment of op(A) or op(B) is its offset in the staged halves.
const uint FRAG_EACH = FRAG_M * FRAG_N / SUBGROUP_SIZE;
#define FRAG_SUMS(name) float name[FRAGS_M * FRAGS_N * FRAG_EACH]
#define FRAG_ZERO(name, f)                                                              \
    for (uint e_ = 0u; e_ < FRAG_EACH; e_++)                                           \
        name[(f) * FRAG_EACH + e_] = 0.0
#define FRAGS_A(name) uint name[FRAGS_M]
#define FRAG_B(name) uint name
#define FRAG_LOAD_A(name, i, at) name[i] = (at)
#define FRAG_LOAD_B(name, at) name = (at)
#define FRAG_MUL_ADD(sums, f, frags_a, i, frag_b)                                       \
    for (uint e_ = 0u; e_ < FRAG_EACH; e_++) {                                         \
        uint el_ = gl_LocalInvocationID.x % SUBGROUP_SIZE + e_ * SUBGROUP_SIZE;         \
        float sum_ = 0.0;                                                               \
        for (uint q_ = 0u; q_ < FRAG_K; q_++)                                          \
            sum_ += float(staged_a[frags_a[i] + el_ / FRAG_N * STRIDE_A + q_]) *         \
                    float(staged_b[frag_b + q_ * STRIDE_B + el_ % FRAG_N]);             \
        sums[(f) * FRAG_EACH + e_] += sum_;                                            \
    }
#define FRAG_STORE(sums, f, base)                                                       \
    for (uint e_ = 0u; e_ < FRAG_EACH; e_++)                                           \
        sums_out[(base) + gl_LocalInvocationID.x % SUBGROUP_SIZE + e_ * SUBGROUP_SIZE] = \
            sums[(f) * FRAG_EACH + e_]
#endif

// The subgroup's fragment in sums_out (rows r0.., columns c0.. of C) into C:
// alpha * sum + beta * C, inside m x n only.
void write_out(uint base, uint r0, uint c0)
{
    // the subgroup's stores are visible to all its invocations (the memory model's
    // acquire and release: a memory barrier alone orders nothing under it)
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    float alpha = TDM_F_alpha, beta = TDM_F_beta;
    uint lane = gl_LocalInvocationID.x % SUBGROUP_SIZE;
    for (uint i = lane; i < FRAG_M * FRAG_N; i += SUBGROUP_SIZE) {
        uint row = r0 + i / FRAG_N, col = c0 + i % FRAG_N;
        if (row < TDM_U_m && col < TDM_U_n) {
            uint e = TDM_OFF_c + row * TDM_U_ldc + col;
            float v = alpha * sums_out[base + i];
            c[e] = beta == 0.0 ? v : v + beta * c[e];
        }
    }
    // read by all before the next fragment overwrites it
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
}

void main()
{
    uint m = TDM_U_m, n = TDM_U_n, k = TDM_U_k;
    uint tiles_n = (n + TILE - 1u) / TILE;
    uint tiles = (m + TILE - 1u) / TILE * tiles_n;
    uint subgroup = gl_LocalInvocationID.x / SUBGROUP_SIZE;
    uint sub_row = subgroup / 2u * SPAN, sub_col = subgroup % 2u * SPAN;
    for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) {
        uint row0 = t / tiles_n * TILE, col0 = t % tiles_n * TILE;
        FRAG_SUMS(sums);
        [[unroll]] for (uint f = 0u; f < FRAGS_M * FRAGS_N; f++)
            FRAG_ZERO(sums, f);
        fetch(row0, col0, 0u);
        for (uint k0 = 0u; k0 < k; k0 += STEP_K) {
            barrier(); // the previous step's halves were read by all
            stage();
            barrier();
            if (k0 + STEP_K < k)
                fetch(row0, col0, k0 + STEP_K);
            [[unroll]] for (uint kk = 0u; kk < STEP_K; kk += FRAG_K) {
                FRAGS_A(frags_a);
                [[unroll]] for (uint i = 0u; i < FRAGS_M; i++)
                    FRAG_LOAD_A(frags_a, i, (sub_row + i * FRAG_M) * STRIDE_A + kk);
                [[unroll]] for (uint j = 0u; j < FRAGS_N; j++) {
                    FRAG_B(frag_b);
                    FRAG_LOAD_B(frag_b, kk * STRIDE_B + sub_col + j * FRAG_N);
                    [[unroll]] for (uint i = 0u; i < FRAGS_M; i++)
                        FRAG_MUL_ADD(sums, i * FRAGS_N + j, frags_a, i, frag_b);
                }
            }
        }
        uint base = subgroup * FRAG_M * FRAG_N;
        [[unroll]] for (uint i = 0u; i < FRAGS_M; i++)
            [[unroll]] for (uint j = 0u; j < FRAGS_N; j++) {
                FRAG_STORE(sums, i * FRAGS_N + j, base);
                write_out(base, row0 + sub_row + i * FRAG_M, col0 + sub_col + j * FRAG_N);
            }
    }
}
