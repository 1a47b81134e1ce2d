// The arguments every kernel of core/device/kernels.def receives (96 bytes of push
// constants; the Vulkan backend pushes them for every launch).
//
// Buffer b of the kernel's table line is bound at set 0, binding b, as a window of
// the tdm_buffer that starts on a minStorageBufferOffsetAlignment boundary; off[b]
// is where the kernel's view starts within that window, in elements of the buffer's
// type (float16 buffers: in halves, always even, so the first word is off[b] / 2).
// u[] and f[] are the table's uint and float arguments, in the table's order.
#ifndef TDM_KERNEL_ARGS_GLSL
#define TDM_KERNEL_ARGS_GLSL

layout(push_constant) uniform Args {
    uint off[8];
    uint u[8];
    float f[8];
} args;

// The work-group size: the table's 64 unless the backend specializes constant 0 for
// its device (vulkan_device.c). Shaders built around a fixed size (gemm) declare their
// own.
#define TDM_GROUP_SIZE layout(local_size_x = 64, local_size_x_id = 0) in

// Grid-stride loops: invocations in the whole dispatch, so that any group count
// (up to 65535) covers any number of items.
#define TDM_STRIDE (gl_NumWorkGroups.x * gl_WorkGroupSize.x)

// Storage buffer declarations: binding b, block Buffer<b>, array `name`.
#define TDM_BUFFER(b, qualifier, type, name) \
    layout(std430, set = 0, binding = b) qualifier buffer Buffer##b { type name[]; }

// The same binding also as an array of 4-vectors, `name`4: a vec4 of view b covers
// elements i .. i + 3 where off[b] + i is a multiple of 4, at TDM_QUAD(b, i).
#define TDM_BUFFER_AND_QUADS(b, qualifier, type, type4, name) \
    TDM_BUFFER(b, qualifier, type, name);                     \
    layout(std430, set = 0, binding = b) qualifier buffer Buffer##b##Quads { type4 name##4[]; }
#define TDM_QUAD(b, i) ((args.off[b] + (i)) >> 2)

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
