// The body of the chunked reductions (sum, sum_squares, max, all_finite):
// out[c] = reduce(x[c * chunk .. min(n, (c + 1) * chunk))) for c < ceil(n / chunk).
// One work-group per chunk, grid-stride over chunks: each invocation folds a strided
// part of the chunk (vec4 loads from the chunk's first multiple of 4 on), then a tree
// in shared memory combines the group's partials (the group size is a power of 2).
// Barriers stay in group-uniform control flow (the chunk loop's bounds are uniform).
//
// The including shader defines, before including this file:
//   TDM_REDUCE_T             the partial's type
//   TDM_REDUCE_IDENTITY      the identity of the combination
//   TDM_REDUCE_LOAD(v)       the partial of one element v (a float)
//   TDM_REDUCE_COMBINE(a, b) two partials combined
//   TDM_REDUCE_STORE(p)      the float written for a chunk's result p
// and, for sums (a float partial combined by +), TDM_REDUCE_KAHAN, which compensates
// each invocation's long sequential sum (kahan.glsl). Binds the table's out (as
// out_: `out` is a GLSL keyword) and x.
#ifndef TDM_CHUNK_REDUCE_GLSL
#define TDM_CHUNK_REDUCE_GLSL

#include "kahan.glsl"

TDM_VIEW_AS(out, out_, float);
TDM_VIEW_AND_QUADS(x);

shared TDM_REDUCE_T partials[gl_WorkGroupSize.x];

// Four partials per invocation, one per component of the vec4 loads (the scalar head
// and tail go to the first): independent chains, combined at the end.
#ifdef TDM_REDUCE_KAHAN
float sums[4], comps[4];
#define TDM_FOLD(k, v) tdm_kahan_add(sums[k], comps[k], TDM_REDUCE_LOAD(v))
#else
TDM_REDUCE_T parts[4];
#define TDM_FOLD(k, v) parts[k] = TDM_REDUCE_COMBINE(parts[k], TDM_REDUCE_LOAD(v))
#endif

// The invocation's share of elements [base, base + count) of x's window: scalar up to
// the first multiple of 4, then vec4s, then the scalar rest.
TDM_REDUCE_T fold(uint base, uint count)
{
    uint t = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    for (int k = 0; k < 4; k++) {
#ifdef TDM_REDUCE_KAHAN
        sums[k] = 0.0;
        comps[k] = 0.0;
#else
        parts[k] = TDM_REDUCE_IDENTITY;
#endif
    }
    uint head = min(count, (4u - (base & 3u)) & 3u);
    uint quads = (count - head) / 4u;
    for (uint i = t; i < head; i += size)
        TDM_FOLD(0, x[base + i]);
    uint first_quad = (base + head) >> 2;
    for (uint q = t; q < quads; q += size) {
        vec4 v = x4[first_quad + q];
        TDM_FOLD(0, v.x);
        TDM_FOLD(1, v.y);
        TDM_FOLD(2, v.z);
        TDM_FOLD(3, v.w);
    }
    for (uint i = head + 4u * quads + t; i < count; i += size)
        TDM_FOLD(0, x[base + i]);
#ifdef TDM_REDUCE_KAHAN
    return ((sums[0] - comps[0]) + (sums[1] - comps[1])) + ((sums[2] - comps[2]) + (sums[3] - comps[3]));
#else
    return TDM_REDUCE_COMBINE(TDM_REDUCE_COMBINE(parts[0], parts[1]),
                              TDM_REDUCE_COMBINE(parts[2], parts[3]));
#endif
}

void main()
{
    uint n = TDM_U_n, chunk = TDM_U_chunk;
    uint nchunks = n / chunk + (n % chunk != 0u ? 1u : 0u);
    uint t = gl_LocalInvocationID.x;
    for (uint c = gl_WorkGroupID.x; c < nchunks; c += gl_NumWorkGroups.x) {
        uint start = c * chunk;
        partials[t] = fold(TDM_OFF_x + start, min(chunk, n - start));
        barrier();
        for (uint half_ = gl_WorkGroupSize.x / 2u; half_ > 0u; half_ /= 2u) {
            if (t < half_)
                partials[t] = TDM_REDUCE_COMBINE(partials[t], partials[t + half_]);
            barrier();
        }
        if (t == 0u)
            out_[TDM_OFF_out + c] = TDM_REDUCE_STORE(partials[0]);
        barrier(); // partials[0] is read before the next chunk overwrites it
    }
}

#endif
