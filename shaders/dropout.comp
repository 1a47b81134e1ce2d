#version 450
// dropout: y[i] = keep ? x[i] / (1 - rate) : 0, keep = u >= rate for the uniform
// u = (r >> 8) * 2^-24, r = word (j & 3) of Philox4x32-10 (Random123's philox4x32,
// 10 rounds) with counter (j >> 2, 0, 0, 0) and key (seed_lo, seed_hi), where
// j = offset + i (mod 2^32). The mask depends only on (seed, j): every backend draws
// the same one.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, float, x);

// One Philox round: two 32 x 32 -> 64-bit products, their halves mixed with the
// other counter words and the key.
uvec4 philox_round(uvec4 ctr, uvec2 key)
{
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, ctr.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, ctr.z, hi1, lo1);
    return uvec4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
}

// Philox4x32-10: ten rounds, the key bumped by the Weyl constants between rounds.
uvec4 philox4x32_10(uvec4 ctr, uvec2 key)
{
    for (int round_ = 0; round_ < 10; round_++) {
        if (round_ > 0)
            key += uvec2(0x9E3779B9u, 0xBB67AE85u);
        ctr = philox_round(ctr, key);
    }
    return ctr;
}

void main()
{
    uint n = args.u[0];
    uvec2 key = uvec2(args.u[1], args.u[2]);
    uint offset = args.u[3];
    float rate = args.f[0];
    float keep_scale = 1.0 - rate;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        uint j = offset + i; // wraps mod 2^32
        uvec4 r = philox4x32_10(uvec4(j >> 2, 0u, 0u, 0u), key);
        float u = float(r[j & 3u] >> 8) * (1.0 / 16777216.0);
        float xi = x[args.off[1] + i];
        y[args.off[0] + i] = u >= rate ? xi / keep_scale : 0.0;
    }
}
