// The body of the chunked reductions (sum, sum_squares, max, all_finite):
// out[c] = reduce(x[c * chunk .. min(n, (c + 1) * chunk))) for c < ceil(n / chunk).
// One work-group per chunk, grid-stride over chunks: each invocation folds a strided
// part of the chunk, then a tree in shared memory combines the group's partials.
// Barriers stay in group-uniform control flow (the chunk loop's bounds are uniform).
//
// The including shader defines, before including this file:
//   TDM_REDUCE_T             the partial's type
//   TDM_REDUCE_IDENTITY      the identity of the combination
//   TDM_REDUCE_LOAD(v)       the partial of one element v (a float)
//   TDM_REDUCE_COMBINE(a, b) two partials combined
//   TDM_REDUCE_STORE(p)      the float written for a chunk's result p
// and, for sums (a float partial combined by +), TDM_REDUCE_KAHAN, which compensates
// each invocation's long sequential sum (kahan.glsl). Binds out (binding 0, float)
// and x (binding 1, float).
#ifndef TDM_CHUNK_REDUCE_GLSL
#define TDM_CHUNK_REDUCE_GLSL

#include "kahan.glsl"

#define TDM_REDUCE_WG 64
layout(local_size_x = TDM_REDUCE_WG) in;
TDM_BUFFER(0, writeonly, float, out_);
TDM_BUFFER(1, readonly, float, x);

shared TDM_REDUCE_T partials[TDM_REDUCE_WG];

void main()
{
    uint n = args.u[0], chunk = args.u[1];
    uint nchunks = n / chunk + (n % chunk != 0u ? 1u : 0u);
    uint t = gl_LocalInvocationID.x;
    for (uint c = gl_WorkGroupID.x; c < nchunks; c += gl_NumWorkGroups.x) {
        uint start = c * chunk;
        uint count = min(chunk, n - start);
#ifdef TDM_REDUCE_KAHAN
        float p = 0.0, comp = 0.0;
        for (uint i = t; i < count; i += TDM_REDUCE_WG)
            tdm_kahan_add(p, comp, TDM_REDUCE_LOAD(x[args.off[1] + start + i]));
        partials[t] = p - comp;
#else
        TDM_REDUCE_T p = TDM_REDUCE_IDENTITY;
        for (uint i = t; i < count; i += TDM_REDUCE_WG)
            p = TDM_REDUCE_COMBINE(p, TDM_REDUCE_LOAD(x[args.off[1] + start + i]));
        partials[t] = p;
#endif
        barrier();
        for (uint half_ = TDM_REDUCE_WG / 2; half_ > 0u; half_ /= 2u) {
            if (t < half_)
                partials[t] = TDM_REDUCE_COMBINE(partials[t], partials[t + half_]);
            barrier();
        }
        if (t == 0u)
            out_[args.off[0] + c] = TDM_REDUCE_STORE(partials[0]);
        barrier(); // partials[0] is read before the next chunk overwrites it
    }
}

#endif
