/* Internal: a typed call per kernel of kernels.def, generated from its entry.
 * tdm_<kernel>_args names the kernel's buffer views, uints and floats as the table
 * does; tdm_<kernel>_call builds the positional tdm_kernel_call from them, and
 * tdm_<kernel>_run launches it; a backend reads a launch's scalars by name with
 * tdm_<kernel>_scalars_of and finds its buffers with tdm_<kernel>_slots_of; the
 * core's code of one kernel finds a uint in u with TDM_UINT_AT(kernel, name). So no
 * caller spells an argument's position, and a misspelt argument does not compile. */
#ifndef TDM_CORE_KERNEL_ARGS_H
#define TDM_CORE_KERNEL_ARGS_H

#include <stddef.h>
#include <string.h>

#include "kernel/kernel.h"

#define TDM_BUFFERS(...) __VA_ARGS__
#define TDM_UINTS(...) __VA_ARGS__
#define TDM_FLOATS(...) __VA_ARGS__

#define TDM_BUF(name, type, extent, flags) tdm_buffer_view name;
#define TDM_U(name) uint32_t name;
#define TDM_F(name, min, max) float name;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    typedef struct tdm_##name##_args {                                                             \
        buffers uints floats                                                                       \
    } tdm_##name##_args;
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_BUF
#undef TDM_U
#undef TDM_F

#define TDM_BUF(name, type, extent, flags) call.views[b++] = args->name;
#define TDM_U(name) call.u[u++] = args->name;
#define TDM_F(name, min, max) call.f[f++] = args->name;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    static inline tdm_kernel_call tdm_##name##_call(const tdm_##name##_args *args)                 \
    {                                                                                              \
        tdm_kernel_call call;                                                                      \
        unsigned b = 0, u = 0, f = 0;                                                              \
        memset(&call, 0, sizeof call);                                                             \
        call.kernel = TDM_KERNEL_##name;                                                           \
        buffers uints floats;                                                                      \
        (void)b, (void)u, (void)f;                                                                 \
        return call;                                                                               \
    }                                                                                              \
    static inline tdm_status tdm_##name##_run(tdm_device *dev, const tdm_##name##_args *args)      \
    {                                                                                              \
        tdm_kernel_call call = tdm_##name##_call(args);                                            \
        return tdm_kernel_run(dev, &call);                                                         \
    }
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_BUF
#undef TDM_U
#undef TDM_F

/* For backends: a launch's scalars by name (tdm_<kernel>_scalars_of). */
#define TDM_BUF(name, type, extent, flags)
#define TDM_U(name) uint32_t name;
#define TDM_F(name, min, max) float name;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    typedef struct tdm_##name##_scalars {                                                          \
        uints floats                                                                               \
    } tdm_##name##_scalars;
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_U
#undef TDM_F

#define TDM_U(name) scalars.name = launch->u[u++];
#define TDM_F(name, min, max) scalars.name = launch->f[f++];
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    static inline tdm_##name##_scalars tdm_##name##_scalars_of(const tdm_launch *launch)           \
    {                                                                                              \
        tdm_##name##_scalars scalars;                                                              \
        unsigned u = 0, f = 0;                                                                     \
        uints floats;                                                                              \
        (void)u, (void)f;                                                                          \
        return scalars;                                                                            \
    }
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_BUF
#undef TDM_U
#undef TDM_F

/* For backends: where each buffer sits in a launch (tdm_<kernel>_slots()). */
#define TDM_U(name)
#define TDM_F(name, min, max)
#define TDM_BUF(name, type, extent, flags) unsigned name;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    typedef struct tdm_##name##_slots {                                                            \
        buffers                                                                                    \
    } tdm_##name##_slots;
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_BUF

#define TDM_BUF(name, type, extent, flags) slots.name = b++;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    static inline tdm_##name##_slots tdm_##name##_slots_of(void)                                   \
    {                                                                                              \
        tdm_##name##_slots slots;                                                                  \
        unsigned b = 0;                                                                            \
        buffers return slots;                                                                      \
    }
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_BUF
#undef TDM_U

/* The kernel's uint `name`'s place in u, a constant; an argument the kernel lacks
 * does not compile. Its uints alone make a struct, of uint32_t members, whose
 * offsets count the places: the items of a list cannot paste the kernel's name
 * into an enum constant. */
#define TDM_U(name) uint32_t name;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    typedef struct tdm_##name##_uint_places {                                                      \
        uints                                                                                      \
    } tdm_##name##_uint_places;
#include "kernel/kernels.def"
#undef TDM_KERNEL
#define TDM_UINT_AT(kernel, name)                                                                  \
    ((unsigned)(offsetof(tdm_##kernel##_uint_places, name) / sizeof(uint32_t)))
#undef TDM_U

/* Likewise the kernel's float `name`'s place in f. */
#undef TDM_F
#define TDM_U(name)
#define TDM_F(name, min, max) float name;
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    typedef struct tdm_##name##_float_places {                                                     \
        float before; /* the struct of a kernel without floats is not empty */                     \
        floats                                                                                     \
    } tdm_##name##_float_places;
#include "kernel/kernels.def"
#undef TDM_KERNEL
#define TDM_FLOAT_AT(kernel, name)                                                                 \
    ((unsigned)(offsetof(tdm_##kernel##_float_places, name) / sizeof(float) - 1))

#undef TDM_U
#undef TDM_F
#undef TDM_BUFFERS
#undef TDM_UINTS
#undef TDM_FLOATS

#endif
