/* Internal to the reference backend: each kernel's arguments by name, generated from
 * its kernels.def entry and unpacked from a tdm_launch in the table's order: buffers
 * as pointers of their type into the host memory given for each (memory[b]) at their
 * views' offsets (NULL for an unused optional one), then the uints and floats. */
#ifndef TDM_REF_ARGS_H
#define TDM_REF_ARGS_H

#include <stdint.h>

#include "device/backend_api.h"

#define REF_TYPE_F32 float
#define REF_TYPE_F16 uint16_t
#define REF_TYPE_U32 uint32_t

#define TDM_BUFFERS(...) __VA_ARGS__
#define TDM_UINTS(...) __VA_ARGS__
#define TDM_FLOATS(...) __VA_ARGS__

#define TDM_BUF(name, type, extent, flags) REF_TYPE_##type *name;
#define TDM_U(name) uint32_t name;
#define TDM_F(name, min, max) float name;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    typedef struct ref_##name##_args {                                                             \
        buffers uints floats                                                                       \
    } ref_##name##_args;
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_BUF
#undef TDM_U
#undef TDM_F

#define TDM_BUF(name, type, extent, flags)                                                         \
    args.name = memory[b] ? (REF_TYPE_##type *)memory[b] + launch->offsets[b] : NULL;              \
    b++;
#define TDM_U(name) args.name = launch->u[u++];
#define TDM_F(name, min, max) args.name = launch->f[f++];
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    static inline ref_##name##_args ref_##name##_unpack(const tdm_launch *launch,                  \
                                                        void *const *memory)                       \
    {                                                                                              \
        ref_##name##_args args;                                                                    \
        unsigned b = 0, u = 0, f = 0;                                                              \
        buffers uints floats;                                                                      \
        (void)b, (void)u, (void)f;                                                                 \
        return args;                                                                               \
    }
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_BUF
#undef TDM_U
#undef TDM_F
#undef TDM_BUFFERS
#undef TDM_UINTS
#undef TDM_FLOATS

#endif
