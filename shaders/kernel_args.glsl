// The arguments every kernel of core/kernel/kernels.def receives (128 bytes of push,
// Vulkan's least maxPushConstantsSize; the Vulkan backend pushes them for every
// launch).
//
// Buffer b of the kernel's table line is bound at set 0, binding b, as a window of
// the tdm_buffer that starts on a minStorageBufferOffsetAlignment boundary; off[b]
// is where the kernel's view starts within that window, in elements of the buffer's
// type (float16 buffers: in halves, always even, so the first word is off[b] / 2).
// u[] and f[] are the table's uint and float arguments, in the table's order.
// Shaders reach all of them by name (kernel_bindings.glsl, generated from the table),
// never by position.
#ifndef TDM_KERNEL_ARGS_GLSL
#define TDM_KERNEL_ARGS_GLSL

// IEEE 754's NaN, infinities, signed zeros and denormals on 32-bit floats, as OpenCL
// gives by default, where a driver would otherwise compile as fast math (NVIDIA's
// drops NaN tests and zero signs and flushes denormal results):
// SignedZeroInfNanPreserve (capability 4466, execution mode 4461) and DenormPreserve
// (4464, 4459). The backend takes out a request the device cannot keep
// (vulkan_float_controls.c).
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4466], 4461, 32);
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);

layout(push_constant) uniform Args {
    uint off[8];
    uint u[16];
    float f[8];
} args;

// Grid-stride loops: invocations in the whole dispatch, so that any group count
// (up to 65535) covers any number of items.
#define TDM_STRIDE (gl_NumWorkGroups.x * gl_WorkGroupSize.x)

// Buffers by their names in the table: kernel_bindings.glsl defines, per buffer v,
// its binding TDM_BIND_v, access TDM_ACCESS_v, element types TDM_TYPE_v and
// TDM_TYPE4_v, and element offset TDM_OFF_v. The macros below expand their view
// argument first, so a family may pass a macro naming the view.
#define TDM_PASTE(a, b) a##b
#define TDM_OFF(view) TDM_PASTE(TDM_OFF_, view)

// View `view` declared as the array `array` of `type` (the table's or other words of
// the same size: copy moves float bits as uint).
#define TDM_VIEW_AS(view, array, type)                                          \
    layout(std430, set = 0, binding = TDM_PASTE(TDM_BIND_, view))               \
        TDM_PASTE(TDM_ACCESS_, view) buffer TDM_PASTE(View_, array) { type array[]; }

// The same binding also as the array `array`4 of 4-vectors: one covers elements
// i .. i + 3 of the view where its offset + i is a multiple of 4, at TDM_QUAD(view, i).
#define TDM_VIEW_AND_QUADS_AS(view, array, type, type4)                         \
    TDM_VIEW_AS(view, array, type);                                             \
    layout(std430, set = 0, binding = TDM_PASTE(TDM_BIND_, view))               \
        TDM_PASTE(TDM_ACCESS_, view) buffer TDM_PASTE(Quads_, array) { type4 TDM_PASTE(array, 4)[]; }
#define TDM_QUAD(view, i) ((TDM_OFF(view) + (i)) >> 2)

// TDM_VIEW_AND_QUADS_AS without the table's access qualifier, for code that serves a
// view written only in some kernels and read and written in others (gemm.glsl's C,
// which it reads only where beta is not 0).
#define TDM_VIEW_AND_QUADS_READ_WRITE_AS(view, array, type, type4)              \
    layout(std430, set = 0, binding = TDM_PASTE(TDM_BIND_, view))               \
        buffer TDM_PASTE(View_, array) { type array[]; };                       \
    layout(std430, set = 0, binding = TDM_PASTE(TDM_BIND_, view))               \
        buffer TDM_PASTE(Quads_, array) { type4 TDM_PASTE(array, 4)[]; }

// The offset of the kernel's b-th buffer, for code that runs over all of its views
// (b < TDM_BUFFER_COUNT).
#define TDM_OFF_OF(b) args.off[b]

// A view under its own name, as the table's element type.
#define TDM_VIEW(view) TDM_VIEW_AS(view, view, TDM_PASTE(TDM_TYPE_, view))
#define TDM_VIEW_AND_QUADS(view) \
    TDM_VIEW_AND_QUADS_AS(view, view, TDM_PASTE(TDM_TYPE_, view), TDM_PASTE(TDM_TYPE4_, view))

// Element i of a view and the 4-vector of elements i .. i + 3 (the TDM_QUAD rule),
// the view declared under its own name (TDM_VIEW, TDM_VIEW_AND_QUADS, or the _AS
// forms with array = view), as values: floats for float views and for a float16
// twin's activations, which kernel_bindings.glsl converts from and to halves, so that
// one source serves a kernel and its twin; a view declared as other words (copy's
// uint) gives and takes those words.
#define TDM_LOAD(view, i) TDM_PASTE(TDM_LOAD_, view)(i)
#define TDM_STORE(view, i, value) TDM_PASTE(TDM_STORE_, view)(i, value)
#define TDM_LOAD4(view, i) TDM_PASTE(TDM_LOAD4_, view)(i)
#define TDM_STORE4(view, i, value) TDM_PASTE(TDM_STORE4_, view)(i, value)

// A quiet NaN and infinities (GLSL has no literals for them).
float tdm_nan()
{
    return uintBitsToFloat(0x7fc00000u);
}

float tdm_inf()
{
    return uintBitsToFloat(0x7f800000u);
}

#endif
