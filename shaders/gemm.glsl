// The body of gemm and gemm_f16: C = alpha * op(A) * op(B) + beta * C, row-major;
// op(A) is m x k, op(B) k x n. A is m x k with leading dimension lda (k x m when trans_a), likewise B with ldb;
// C is m x n with ldc. beta == 0 ignores C's old contents, NaN included.
//
// Register blocking: each invocation computes blocks of 4 ROWS4 x 4 COLS4 elements of
// C, held as mat4s (column r of acc[i][j]: row 4i + r of the block, its columns
// 4j .. 4j + 3). K advances four at a time: the invocation takes the values of op(A)
// and op(B) it needs as mat4s and adds ROWS4 x COLS4 mat4 products. Products are
// summed per STEP_K before joining the total, so the error grows with
// STEP_K + k / STEP_K, not k. Two ways to feed the blocks, chosen by the backend's
// constants (vulkan_device.c):
//
// CPU drivers (blocked_main, 16 x 16 blocks, no tile): each invocation grid-strides
// over the blocks (neighbouring invocations take neighbouring blocks along a row of
// C, so they share op(A)'s rows) and loads its values from the matrices, each mat4
// from four quads (a vec4 of floats, a uvec2 of halves) where the block is inside the
// matrices, A and B are aligned to quads (view offset and leading dimension
// multiples of 4; likewise C for the result) and k is a multiple of 4, else one by
// one with out-of-range elements as zeros. No shared memory and no barriers: on CPU
// drivers every access is a loop over the SIMD lanes and a barrier a switch between
// coroutines, so loading from the matrices themselves (cached) costs no more than
// staging them. A CPU driver also runs both sides of a choice its lanes may not agree
// on, each under a mask, so the choice between quads and singles is made once per
// block, around the whole loop over k: made per quad, the singles' loads ran beside
// every quad's and halved lavapipe's speed. Larger blocks load fewer values per
// product (1/32 + 1/16 for 16 x 32, 1/8 for 16 x 16) but hold more registers per
// lane; 16 x 16 measured best on lavapipe
// (docs/benchmarks/2026-11-27-lavapipe-gemm-loops.md).
//
// GPUs (tiled_main, in a pipeline of its own per tile shape that the backend takes
// where C holds enough of its tiles, blocked_main with 4 x 4 blocks and no shared
// memory otherwise; vulkan_gemm_tiles.c): each group grid-strides over tiles of
// 4 TILE_ROWS4 x 4 TILE_COLS4 elements of C; per STEP_K of k its invocations stage the
// tile's STEP_K columns of op(A) and rows of op(B) in shared memory, in units of 4 x 4
// values loaded as blocked_main loads its own (quads where aligned and inside, else
// singles with zeros), then every invocation reads its block's values from there: a
// GPU loads each value of A and B from memory once per tile instead of once per block.
// Each invocation loads its units of the next step into registers before it multiplies
// the current one, so the loads are in flight during the products; with two staging
// buffers (TILE_BUFFERS, where the shared memory holds them) it stores them into the
// other buffer at once and a step takes one barrier, else after a barrier, two. The
// sums are those of blocked_main, in the same order.
//
// The group is the device's size (constant 0); the tile is set with it, so that the
// group's blocks cover the tile exactly.
//
// GPUs, a product of few blocks over a long k (split_main, its own pipeline per
// product kernel; a weight gradient, whose k is the batch's positions): blocked_main
// and tiled_main give each block of C to one invocation, which sums all of k alone
// while the rest of the GPU idles (the CNN's first filter gradient, 9 x 32 over
// k = 50176, took 24 ms on an H100). Here a group takes one 4 x 4 block at a time,
// its invocations every SPLIT_SUMS-th quad of k each (neighbours reading
// neighbouring rows), and sums their blocks in shared memory by halves.
//
// The including shader defines, before including this file, the loads of A and B as
// stored (m x k, or k x m where trans_a; likewise B), as float (A's, likewise B's):
//   bool tdm_gemm_quads_a()                     whether A's quads may be loaded
//   vec4 tdm_gemm_quad_a(uint row, uint col)    A[row][col .. col + 3], where quads may
//                                               be loaded and col is a multiple of 4
//   float tdm_gemm_single_a(uint row, uint col) A[row][col]
// gemm's loads read the views a and b (gemm.comp); the implicit convolutions' read an
// image where im2col would have copied it (conv_implicit.glsl). C is the view c, or
// the one TDM_GEMM_C names; the product's m, n, k, ldc, trans_a, trans_b, alpha and
// beta are TDM_U_* and TDM_F_* macros, the kernel's own or the including shader's.
// Where TDM_GEMM_EPILOGUE is defined, vec4 tdm_gemm_epilogue(vec4 v, uint col0) maps
// the results alpha * sum of a row's columns col0 .. col0 + 3 before they are stored
// (conv2d_implicit_bias_relu's bias and ReLU).
#ifndef TDM_GEMM_GLSL
#define TDM_GEMM_GLSL
// [[unroll]] on the loops over an invocation's blocks: their counts are constants once
// specialized, yet NVIDIA's compiler kept such loops, and the arrays they index in
// memory, unless told (the matrix-engine shader's products: 35 against 331 TFLOP/s on
// an H200).
#extension GL_EXT_control_flow_attributes : require

#define STEP_K 16u
// The block's rows and columns, in fours: 16 x 16 unless the backend specializes
// them for its device (vulkan_device.c: 4 x 4 on GPUs, which need more invocations;
// a tiled pipeline's own, vulkan_gemm_tiles.c).
layout(constant_id = 1) const uint ROWS4 = 4u;
layout(constant_id = 2) const uint COLS4 = 4u;
// The statement for every block (i, j) of an invocation's ROWS4 x COLS4.
#define TDM_EACH_BLOCK(statement)                                                          \
    [[unroll]] for (uint i = 0u; i < ROWS4; i++)                                           \
        [[unroll]] for (uint j = 0u; j < COLS4; j++)                                       \
            statement
// The group's tile of C in fours (tiled_main), 0 x 0 for none (blocked_main: the
// pipeline then uses no shared memory and no barriers), and its staging buffers, 1 or
// 2; the backend sizes the shared memory with STEP_K (vulkan_gemm_tiles.c) and keeps
// the staging units at most UNITS_EACH per invocation.
layout(constant_id = 3) const uint TILE_ROWS4 = 0u;
layout(constant_id = 4) const uint TILE_COLS4 = 0u;
layout(constant_id = 5) const uint TILE_BUFFERS = 1u;
#define UNITS_EACH 2u
// split_main's group size, a power of two; 0 in every other pipeline.
layout(constant_id = 6) const uint SPLIT_SUMS = 0u;
#ifndef TDM_GEMM_C
#define TDM_GEMM_C c
#endif
// C as c and c4: store_row reads C where beta is not 0, which must compile where C is
// written only (conv2d_implicit's y, whose beta is 0).
TDM_VIEW_AND_QUADS_READ_WRITE_AS(TDM_GEMM_C, c, float, vec4);

bool aligned(uint off, uint ld)
{
    return ((off | ld) & 3u) == 0u;
}

// op(A)[row0 + r][p .. p + 3] for r < 4, as columns; A's quads may be loaded.
mat4 quads_a(uint row0, uint p)
{
    if (TDM_U_trans_a == 0u)
        return mat4(tdm_gemm_quad_a(row0, p), tdm_gemm_quad_a(row0 + 1u, p),
                    tdm_gemm_quad_a(row0 + 2u, p), tdm_gemm_quad_a(row0 + 3u, p));
    return transpose(mat4(tdm_gemm_quad_a(p, row0), tdm_gemm_quad_a(p + 1u, row0),
                          tdm_gemm_quad_a(p + 2u, row0), tdm_gemm_quad_a(p + 3u, row0)));
}

// op(B)[p + q][col0 .. col0 + 3] for q < 4, as columns; B's quads may be loaded.
mat4 quads_b(uint col0, uint p)
{
    if (TDM_U_trans_b == 0u)
        return mat4(tdm_gemm_quad_b(p, col0), tdm_gemm_quad_b(p + 1u, col0),
                    tdm_gemm_quad_b(p + 2u, col0), tdm_gemm_quad_b(p + 3u, col0));
    return transpose(mat4(tdm_gemm_quad_b(col0, p), tdm_gemm_quad_b(col0 + 1u, p),
                          tdm_gemm_quad_b(col0 + 2u, p), tdm_gemm_quad_b(col0 + 3u, p)));
}

// One element of op(A) or op(B), zero out of range.
float single_a(uint row, uint p)
{
    if (row >= TDM_U_m || p >= TDM_U_k)
        return 0.0;
    return TDM_U_trans_a != 0u ? tdm_gemm_single_a(p, row) : tdm_gemm_single_a(row, p);
}

float single_b(uint p, uint col)
{
    if (col >= TDM_U_n || p >= TDM_U_k)
        return 0.0;
    return TDM_U_trans_b != 0u ? tdm_gemm_single_b(col, p) : tdm_gemm_single_b(p, col);
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
#ifdef TDM_GEMM_EPILOGUE
    v = tdm_gemm_epilogue(v, col0);
#endif
    uint ic = row * ldc + col0;
    if (quads) {
        uint q = TDM_QUAD(TDM_GEMM_C, ic);
        c4[q] = beta == 0.0 ? v : v + beta * c4[q];
        return;
    }
    if (row >= TDM_U_m)
        return;
    [[unroll]] for (uint i = 0u; i < 4u; i++)
        if (col0 + i < n) {
            uint e = TDM_OFF(TDM_GEMM_C) + ic + i;
            c[e] = beta == 0.0 ? v[i] : v[i] + beta * c[e];
        }
}

void store_quarter(uint row0, uint col0, mat4 rows, bool quads)
{
    [[unroll]] for (uint r = 0u; r < 4u; r++)
        store_row(row0 + r, col0, rows[r], quads);
}

// The core launches a group per 16 x 16 of C, more than the `needed` groups the
// work fills: the busy groups are spread evenly over the launch (every spacing-th),
// since a CPU driver hands each thread a contiguous range of groups. Whether this
// group is one, its place among them and their number.
bool busy_group(uint needed, out uint slot, out uint slots)
{
    uint spacing = max(1u, gl_NumWorkGroups.x / max(needed, 1u));
    slot = gl_WorkGroupID.x / spacing;
    slots = (gl_NumWorkGroups.x + spacing - 1u) / spacing;
    return gl_WorkGroupID.x % spacing == 0u;
}

// blocked_main's sums over all of k into acc, per STEP_K, its blocks' values loaded by
// LOAD_A and LOAD_B.
#define TDM_GEMM_SUMS(LOAD_A, LOAD_B)                                                      \
    for (uint k0 = 0u; k0 < k; k0 += STEP_K) {                                             \
        mat4 partial[ROWS4][COLS4];                                                        \
        TDM_EACH_BLOCK(partial[i][j] = mat4(0.0));                                         \
        for (uint p = k0; p < min(k, k0 + STEP_K); p += 4u) {                              \
            mat4 av[ROWS4], bv[COLS4];                                                     \
            [[unroll]] for (uint i = 0u; i < ROWS4; i++)                                   \
                av[i] = LOAD_A(row0 + 4u * i, p);                                          \
            [[unroll]] for (uint j = 0u; j < COLS4; j++)                                   \
                bv[j] = LOAD_B(col0 + 4u * j, p);                                          \
            TDM_EACH_BLOCK(partial[i][j] += bv[j] * av[i]);                                \
        }                                                                                  \
        TDM_EACH_BLOCK(acc[i][j] += partial[i][j]);                                        \
    }

// Without shared memory: each invocation loads what its block needs from the matrices.
void blocked_main()
{
    uint m = TDM_U_m, n = TDM_U_n, k = TDM_U_k;
    uint rows = ROWS4 * 4u, cols = COLS4 * 4u;
    uint blocks_n = n / cols + (n % cols != 0u ? 1u : 0u);
    uint blocks = (m / rows + (m % rows != 0u ? 1u : 0u)) * blocks_n;
    bool inputs_aligned = tdm_gemm_quads_a() && tdm_gemm_quads_b();
    uint size = gl_WorkGroupSize.x, slot, slots;
    if (!busy_group(blocks / size + (blocks % size != 0u ? 1u : 0u), slot, slots))
        return;
    uint first = slot * size + gl_LocalInvocationID.x;
    for (uint t = first; t < blocks; t += slots * size) {
        uint row0 = t / blocks_n * rows, col0 = t % blocks_n * cols;
        bool inside = row0 + rows <= m && col0 + cols <= n;
        mat4 acc[ROWS4][COLS4];
        TDM_EACH_BLOCK(acc[i][j] = mat4(0.0));
        // One loop or the other per block, never a choice per quad: a CPU driver runs
        // both sides of a choice its SIMD lanes may not agree on.
        if (inside && inputs_aligned && k % 4u == 0u)
            TDM_GEMM_SUMS(quads_a, quads_b)
        else
            TDM_GEMM_SUMS(singles_a4, singles_b4)
        bool quads = inside && aligned(TDM_OFF(TDM_GEMM_C), TDM_U_ldc);
        TDM_EACH_BLOCK(store_quarter(row0 + 4u * i, col0 + 4u * j, acc[i][j], quads));
    }
}

// With shared memory (see the top), per buffer: op(A)'s STEP_K columns of the tile
// and op(B)'s STEP_K rows, each quad of one k holding 4 rows of op(A) or 4 columns of
// op(B).
shared vec4 staged_a[TILE_BUFFERS * STEP_K * (TILE_ROWS4 + 1u)];
shared vec4 staged_b[TILE_BUFFERS * STEP_K * (TILE_COLS4 + 1u)];

// The quad of op(A)'s rows 4 rq .. 4 rq + 3 of the tile at its k step kk in buffer
// buf, likewise op(B)'s columns; one quad of padding a step spreads the stores of
// neighbouring units over the banks.
uint staged_a_at(uint buf, uint kk, uint rq)
{
    return (buf * STEP_K + kk) * (TILE_ROWS4 + 1u) + rq;
}

uint staged_b_at(uint buf, uint kk, uint cq)
{
    return (buf * STEP_K + kk) * (TILE_COLS4 + 1u) + cq;
}

// Unit u of the staging, 4 x 4 values, the first TILE_ROWS4 * STEP_K / 4 op(A)'s:
// (its quad across the tile's rows or columns, its quad of k). Neighbouring
// invocations take neighbouring quads in memory: along k where the matrix's rows run
// along k, else across.
uvec2 unit_at(uint u)
{
    uint units_a = TILE_ROWS4 * (STEP_K / 4u);
    bool is_a = u < units_a;
    uint v = is_a ? u : u - units_a, across = is_a ? TILE_ROWS4 : TILE_COLS4;
    bool along_k = is_a ? TDM_U_trans_a == 0u : TDM_U_trans_b != 0u;
    return along_k ? uvec2(v / (STEP_K / 4u), v % (STEP_K / 4u))
                   : uvec2(v % across, v / across);
}

// Unit u of the tile (row0, col0) at k step k0, loaded as blocked_main loads its own,
// as 4 quads of one k each.
mat4 load_unit(uint u, uint row0, uint col0, uint k0, bool aligned_a, bool aligned_b)
{
    uvec2 at = unit_at(u);
    uint p = k0 + 4u * at.y;
    if (u < TILE_ROWS4 * (STEP_K / 4u)) {
        uint row = row0 + 4u * at.x;
        bool quads = aligned_a && row + 4u <= TDM_U_m && p + 4u <= TDM_U_k;
        return transpose(quads ? quads_a(row, p) : singles_a4(row, p));
    }
    uint col = col0 + 4u * at.x;
    bool quads = aligned_b && col + 4u <= TDM_U_n && p + 4u <= TDM_U_k;
    return quads ? quads_b(col, p) : singles_b4(col, p);
}

void store_unit(uint u, uint buf, mat4 by_k)
{
    uvec2 at = unit_at(u);
    uint kk = 4u * at.y;
    [[unroll]] for (uint q = 0u; q < 4u; q++)
        if (u < TILE_ROWS4 * (STEP_K / 4u))
            staged_a[staged_a_at(buf, kk + q, at.x)] = by_k[q];
        else
            staged_b[staged_b_at(buf, kk + q, at.x)] = by_k[q];
}

void tiled_main()
{
    uint m = TDM_U_m, n = TDM_U_n, k = TDM_U_k;
    uint tile_rows = 4u * TILE_ROWS4, tile_cols = 4u * TILE_COLS4;
    uint tiles_n = n / tile_cols + (n % tile_cols != 0u ? 1u : 0u);
    uint tiles = (m / tile_rows + (m % tile_rows != 0u ? 1u : 0u)) * tiles_n;
    bool aligned_a = tdm_gemm_quads_a(), aligned_b = tdm_gemm_quads_b();
    bool aligned_c = aligned(TDM_OFF(TDM_GEMM_C), TDM_U_ldc);
    // The group's invocations as a grid of blocks: across, TILE_COLS4 / COLS4 of them.
    uint size = gl_WorkGroupSize.x, id = gl_LocalInvocationID.x, across = TILE_COLS4 / COLS4;
    uint rq0 = id / across * ROWS4, cq0 = id % across * COLS4;
    // Staging units, and an invocation's at most (constants once specialized).
    uint units = (TILE_ROWS4 + TILE_COLS4) * (STEP_K / 4u), each = (units + size - 1u) / size;
    // The buffer after this one: the other of two, else the same.
    uint flip = TILE_BUFFERS - 1u;
    uint slot, slots;
    if (!busy_group(tiles, slot, slots))
        return;
    for (uint t = slot; t < tiles; t += slots) {
        uint row0 = t / tiles_n * tile_rows, col0 = t % tiles_n * tile_cols;
        mat4 held[UNITS_EACH];
        [[unroll]] for (uint r = 0u; r < each; r++)
            if (id + r * size < units) {
                held[r] = load_unit(id + r * size, row0, col0, 0u, aligned_a, aligned_b);
                store_unit(id + r * size, 0u, held[r]);
            }
        barrier();
        mat4 acc[ROWS4][COLS4];
        TDM_EACH_BLOCK(acc[i][j] = mat4(0.0));
        uint buf = 0u;
        for (uint k0 = 0u; k0 < k; k0 += STEP_K) {
            bool more = k0 + STEP_K < k; // the same for the whole group
            if (more)
                [[unroll]] for (uint r = 0u; r < each; r++)
                    if (id + r * size < units)
                        held[r] = load_unit(id + r * size, row0, col0, k0 + STEP_K, aligned_a,
                                            aligned_b);
            mat4 partial[ROWS4][COLS4];
            TDM_EACH_BLOCK(partial[i][j] = mat4(0.0));
            // Zeros past k add nothing: the sums start at +0, so none is -0.
            [[unroll]] for (uint kk = 0u; kk < STEP_K; kk += 4u) {
                mat4 av[ROWS4], bv[COLS4];
                [[unroll]] for (uint i = 0u; i < ROWS4; i++)
                    av[i] = transpose(mat4(staged_a[staged_a_at(buf, kk, rq0 + i)],
                                           staged_a[staged_a_at(buf, kk + 1u, rq0 + i)],
                                           staged_a[staged_a_at(buf, kk + 2u, rq0 + i)],
                                           staged_a[staged_a_at(buf, kk + 3u, rq0 + i)]));
                [[unroll]] for (uint j = 0u; j < COLS4; j++)
                    bv[j] = mat4(staged_b[staged_b_at(buf, kk, cq0 + j)],
                                 staged_b[staged_b_at(buf, kk + 1u, cq0 + j)],
                                 staged_b[staged_b_at(buf, kk + 2u, cq0 + j)],
                                 staged_b[staged_b_at(buf, kk + 3u, cq0 + j)]);
                TDM_EACH_BLOCK(partial[i][j] += bv[j] * av[i]);
            }
            TDM_EACH_BLOCK(acc[i][j] += partial[i][j]);
            if (TILE_BUFFERS == 1u)
                barrier(); // the one buffer is read by all before it is overwritten
            if (more)
                [[unroll]] for (uint r = 0u; r < each; r++)
                    if (id + r * size < units)
                        store_unit(id + r * size, buf ^ flip, held[r]);
            // the next step's units are in place, and (two buffers) this one's were
            // read by all before the step after overwrites them
            barrier();
            buf ^= flip;
        }
        uint block_row0 = row0 + 4u * rq0, block_col0 = col0 + 4u * cq0;
        bool quads = aligned_c && block_row0 + 4u * ROWS4 <= m && block_col0 + 4u * COLS4 <= n;
        TDM_EACH_BLOCK(
            store_quarter(block_row0 + 4u * i, block_col0 + 4u * j, acc[i][j], quads));
    }
}

// One column of each invocation's 4 x 4 sums, per invocation (split_main).
shared vec4 split_sums[SPLIT_SUMS + 1u];

// The sum over the group of each invocation's v (every invocation gets it).
vec4 group_sum(vec4 v)
{
    uint id = gl_LocalInvocationID.x;
    split_sums[id] = v;
    barrier();
    for (uint half_size = SPLIT_SUMS / 2u; half_size > 0u; half_size /= 2u) {
        if (id < half_size)
            split_sums[id] += split_sums[id + half_size];
        barrier();
    }
    vec4 total = split_sums[0];
    barrier(); // read by all before the next sum overwrites it
    return total;
}

void split_main()
{
    uint m = TDM_U_m, n = TDM_U_n, k = TDM_U_k;
    uint blocks_n = n / 4u + (n % 4u != 0u ? 1u : 0u);
    uint blocks = (m / 4u + (m % 4u != 0u ? 1u : 0u)) * blocks_n;
    bool aligned_a = tdm_gemm_quads_a(), aligned_b = tdm_gemm_quads_b();
    bool aligned_c = aligned(TDM_OFF(TDM_GEMM_C), TDM_U_ldc);
    uint id = gl_LocalInvocationID.x;
    for (uint t = gl_WorkGroupID.x; t < blocks; t += gl_NumWorkGroups.x) {
        uint row0 = t / blocks_n * 4u, col0 = t % blocks_n * 4u;
        bool rows_a = aligned_a && row0 + 4u <= m, cols_b = aligned_b && col0 + 4u <= n;
        mat4 acc = mat4(0.0);
        for (uint p = 4u * id; p < k; p += 4u * SPLIT_SUMS) {
            bool whole = p + 4u <= k;
            mat4 av = rows_a && whole ? quads_a(row0, p) : singles_a4(row0, p);
            mat4 bv = cols_b && whole ? quads_b(col0, p) : singles_b4(col0, p);
            acc += bv * av;
        }
        mat4 total;
        [[unroll]] for (uint r = 0u; r < 4u; r++)
            total[r] = group_sum(acc[r]);
        if (id == 0u)
            store_quarter(row0, col0, total, aligned_c && row0 + 4u <= m && col0 + 4u <= n);
    }
}

void main()
{
    if (SPLIT_SUMS != 0u)
        split_main();
    else if (TILE_ROWS4 != 0u)
        tiled_main();
    else
        blocked_main();
}

#endif
