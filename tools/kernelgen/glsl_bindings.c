/* Build-time generator: writes kernel_bindings.glsl from kernels.def, the names every
 * shader gets its arguments by (the Vulkan counterpart of the TDM_SIGNATURE the OpenCL
 * backend generates when it builds a program). A shader defines TDM_KERNEL_<name> and
 * includes the file, whose section for that kernel declares
 *   - the work-group size: the table's, which the backend may specialize per device
 *     (constant 0);
 *   - per buffer, in table order: TDM_BIND_<buffer> (its binding), TDM_ACCESS_<buffer>
 *     (readonly where the table only reads it, writeonly where it only writes it),
 *     TDM_TYPE_<buffer> and TDM_TYPE4_<buffer> (the table's element type and the
 *     vector of four elements) and TDM_OFF_<buffer> (its element offset); the
 *     declaration macros of kernel_args.glsl take the element type from the shader,
 *     so a family may view a buffer as other words (copy moves float bits as uint);
 *   - TDM_U_<uint> and TDM_F_<float>, the push constants by name.
 * So a shader cannot disagree with the table on its bindings, its arguments or its
 * group size. An entry the push constants cannot hold fails the build.
 * usage: glsl_bindings OUTPUT */
#include <stdio.h>

#include "device/kernel_flags.h"

/* The sizes of kernel_args.glsl's push-constant arrays. */
enum { MAX_BUFFERS = 8, MAX_UINTS = 16, MAX_FLOATS = 8 };

static FILE *out;
static const char *kernel;
static unsigned buffer_count, uint_count, float_count;
static int failed;

static void begin(const char *name, unsigned wg)
{
    kernel = name;
    buffer_count = uint_count = float_count = 0;
    fprintf(out, "\n#if defined(TDM_KERNEL_%s)\n#define TDM_KERNEL_DECLARED\n", name);
    fprintf(out, "layout(local_size_x = %u, local_size_x_id = 0) in;\n", wg);
    if (wg == 0) {
        fprintf(stderr, "glsl_bindings: kernel %s: work-group size 0\n", name);
        failed = 1;
    }
}

/* The next index of a push-constant array of max entries, or a failure. */
static unsigned next(unsigned *count, unsigned max, const char *what)
{
    if (*count == max) {
        fprintf(stderr, "glsl_bindings: kernel %s: more than %u %s\n", kernel, max, what);
        failed = 1;
    }
    return (*count)++;
}

/* One buffer's names. Its access: readonly where the table only reads it, writeonly
 * where it only writes it, except a float16 view, whose words hold two halves of which
 * the view may own one: the other is read to be kept. */
static void buffer(const char *name, const char *type, const char *type4, int half, int flags)
{
    unsigned b = next(&buffer_count, MAX_BUFFERS, "buffers");
    const char *access = !(flags & TDM_W)            ? "readonly"
                         : !(flags & TDM_R) && !half ? "writeonly"
                                                     : "";
    fprintf(out, "#define TDM_BIND_%s %u\n", name, b);
    fprintf(out, "#define TDM_ACCESS_%s %s\n", name, access);
    fprintf(out, "#define TDM_TYPE_%s %s\n#define TDM_TYPE4_%s %s\n", name, type, name, type4);
    fprintf(out, "#define TDM_OFF_%s args.off[%u]\n", name, b);
}

static void uint_arg(const char *name)
{
    fprintf(out, "#define TDM_U_%s args.u[%u]\n", name, next(&uint_count, MAX_UINTS, "uints"));
}

static void float_arg(const char *name)
{
    fprintf(out, "#define TDM_F_%s args.f[%u]\n", name, next(&float_count, MAX_FLOATS, "floats"));
}

static void end(void)
{
    fprintf(out, "#define TDM_BUFFER_COUNT %u\n#endif\n", buffer_count);
}

/* Element and 4-element types; float16 buffers are uint words of two halves, so four
 * halves are a uvec2. */
#define GLSL_TYPES_F32 "float", "vec4", 0
#define GLSL_TYPES_F16 "uint", "uvec2", 1
#define GLSL_TYPES_U32 "uint", "uvec4", 0

#define TDM_BUFFERS(...) __VA_ARGS__
#define TDM_UINTS(...) __VA_ARGS__
#define TDM_FLOATS(...) __VA_ARGS__
#define TDM_BUF(name, type, extent, flags) buffer(#name, GLSL_TYPES_##type, (flags));
#define TDM_U(name) uint_arg(#name);
#define TDM_F(name, min, max) float_arg(#name);
#define TDM_KERNEL(name, grid, wg, tolerance, buffers, uints, floats)                              \
    begin(#name, wg);                                                                              \
    buffers uints floats end();

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: glsl_bindings OUTPUT\n");
        return 2;
    }
    out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "// Generated from core/device/kernels.def by tools/kernelgen/glsl_bindings.c.\n"
                 "// A shader defines TDM_KERNEL_<name>, then includes this file.\n"
                 "#include \"kernel_args.glsl\"\n");
#include "device/kernels.def"
    fprintf(out, "\n#ifndef TDM_KERNEL_DECLARED\n"
                 "#error \"define TDM_KERNEL_<name> of kernels.def before including this file\"\n"
                 "#endif\n");
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    if (failed)
        remove(argv[1]); /* no stale output for the next build to trust */
    return failed;
}
