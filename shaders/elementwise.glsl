// The main() of element-wise kernels: n = args.u[0] items, every view indexed by the
// item, with a vec4 path. On CPU drivers every buffer access is a loop over the SIMD
// lanes, so one vec4 access in place of four scalar ones is most of the speed.
//
// A view's offset off[b] may be any element count, so items go four at a time only
// where every view is at the same offset modulo 4: the items before the first
// multiple of 4 (head) and those after the last whole quad (tail) go one by one;
// views at different phases go one by one throughout.
//
// The including shader declares its buffers (TDM_BUFFER_AND_QUADS) and defines
//   TDM_EW_VIEWS               the number of views, at bindings 0 .. TDM_EW_VIEWS - 1
//                              (an expression: accumulate's depends on its inputs)
//   void tdm_ew_item(uint i)   item i through the scalar arrays
//   void tdm_ew_quad(uint i)   items i .. i + 3 through the vec4 arrays (TDM_QUAD)
#ifndef TDM_ELEMENTWISE_GLSL
#define TDM_ELEMENTWISE_GLSL

TDM_GROUP_SIZE;

void main()
{
    uint n = args.u[0];
    uint phase = args.off[0] & 3u;
    bool in_phase = true;
    for (uint b = 1u; b < uint(TDM_EW_VIEWS); b++)
        in_phase = in_phase && (args.off[b] & 3u) == phase;
    uint head = in_phase ? min(n, (4u - phase) & 3u) : n;
    uint quads = (n - head) / 4u;
    uint tail = head + 4u * quads;
    uint first = gl_GlobalInvocationID.x;
    for (uint q = first; q < quads; q += TDM_STRIDE)
        tdm_ew_quad(head + 4u * q);
    for (uint i = first; i < head; i += TDM_STRIDE)
        tdm_ew_item(i);
    for (uint i = tail + first; i < n; i += TDM_STRIDE)
        tdm_ew_item(i);
}

#endif
