// The main() of element-wise kernels: n = TDM_U_n items, every view indexed by the
// item, with a vec4 path. On CPU drivers every buffer access is a loop over the SIMD
// lanes, so one vec4 access in place of four scalar ones is most of the speed.
//
// A view's offset may be any element count, so items go four at a time only
// where every view is at the same offset modulo 4: the items before the first
// multiple of 4 (head) and those after the last whole quad (tail) go one by one;
// views at different phases go one by one throughout.
//
// The including shader declares its buffers (TDM_VIEW_AND_QUADS) and defines
//   TDM_EW_VIEWS               the views read or written, the kernel's first ones
//                              (an expression: accumulate's depends on its inputs);
//                              all of the kernel's buffers unless defined
//   void tdm_ew_item(uint i)   item i through the scalar arrays
//   void tdm_ew_quad(uint i)   items i .. i + 3 through the vec4 arrays (TDM_QUAD)
#ifndef TDM_ELEMENTWISE_GLSL
#define TDM_ELEMENTWISE_GLSL

#ifndef TDM_EW_VIEWS
#define TDM_EW_VIEWS TDM_BUFFER_COUNT
#endif

void main()
{
    uint n = TDM_U_n;
    uint phase = TDM_OFF_OF(0u) & 3u;
    bool in_phase = true;
    for (uint b = 1u; b < uint(TDM_EW_VIEWS); b++)
        in_phase = in_phase && (TDM_OFF_OF(b) & 3u) == phase;
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
