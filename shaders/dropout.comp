#version 450
// dropout: y[i] = keep ? x[i] / (1 - rate) : 0, keep = u >= rate for the uniform
// u = (r >> 8) * 2^-24, r = word (j & 3) of Philox4x32-10 (Random123's philox4x32,
// 10 rounds) with counter (j >> 2, 0, 0, 0) and key (seed_lo, seed_hi), where
// j = offset + i (mod 2^32). The mask depends only on (seed, j): every backend draws
// the same one. y and x are views of halves in the float16 twin (the accessors of
// kernel_args.glsl serve both).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_dropout
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(y);
TDM_VIEW_AND_QUADS(x);

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

// Element i of the view: kept (scaled) or dropped by word r of its Philox block.
float dropout_one(float xi, uint r)
{
    float rate = TDM_F_rate;
    float u = float(r >> 8) * (1.0 / 16777216.0);
    return u >= rate ? xi / (1.0 - rate) : 0.0;
}

uvec4 philox_block(uint j)
{
    return philox4x32_10(uvec4(j >> 2, 0u, 0u, 0u), uvec2(TDM_U_seed_lo, TDM_U_seed_hi));
}

uint philox_word(uint j)
{
    return philox_block(j)[j & 3u];
}

void tdm_ew_item(uint i)
{
    uint j = TDM_U_offset + i; // wraps mod 2^32
    TDM_STORE(y, i, dropout_one(TDM_LOAD(x, i), philox_word(j)));
}

// Where j is a multiple of 4 one Philox block serves the four items.
void tdm_ew_quad(uint i)
{
    uint j = TDM_U_offset + i;
    uvec4 r = (j & 3u) == 0u ? philox_block(j)
                             : uvec4(philox_word(j), philox_word(j + 1u), philox_word(j + 2u),
                                     philox_word(j + 3u));
    vec4 xq = TDM_LOAD4(x, i);
    TDM_STORE4(y, i, vec4(dropout_one(xq.x, r.x), dropout_one(xq.y, r.y), dropout_one(xq.z, r.z),
                          dropout_one(xq.w, r.w)));
}

#include "elementwise.glsl"
