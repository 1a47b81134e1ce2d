// The main() of the float16 casts: one item per pair of elements, that is per word of
// the float16 view (whose offset is even). Where both views are at the same
// offset modulo 4, pairs go two at a time: four elements, one vec4 of the float view
// and one uvec2 of the float16 view (TDM_QUAD indexes both in elements); the pairs
// before and after go one by one, as do all when the phases differ.
//
// The including shader declares views y and x and defines
//   void tdm_cast_pair(uint p)   elements 2p and 2p + 1 (if below n)
//   void tdm_cast_quad(uint i)   elements i .. i + 3, all below n
#ifndef TDM_CAST_PAIRS_GLSL
#define TDM_CAST_PAIRS_GLSL

void main()
{
    uint n = TDM_U_n;
    uint pairs = n / 2u + (n & 1u);
    bool in_phase = ((TDM_OFF_y ^ TDM_OFF_x) & 3u) == 0u;
    uint head = in_phase ? min(pairs, ((4u - (TDM_OFF_y & 3u)) & 3u) / 2u) : pairs;
    uint quads = n > 2u * head ? (n - 2u * head) / 4u : 0u;
    uint tail = head + 2u * quads;
    uint first = gl_GlobalInvocationID.x;
    for (uint q = first; q < quads; q += TDM_STRIDE)
        tdm_cast_quad(2u * head + 4u * q);
    for (uint p = first; p < head; p += TDM_STRIDE)
        tdm_cast_pair(p);
    for (uint p = tail + first; p < pairs; p += TDM_STRIDE)
        tdm_cast_pair(p);
}

#endif
