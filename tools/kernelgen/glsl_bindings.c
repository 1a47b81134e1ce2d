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
 *   - per buffer but a float16 view of words, the accessors of its element i and of
 *     the 4-vector at i by the view's name (kernel_args.glsl's TDM_LOAD, TDM_STORE,
 *     TDM_LOAD4, TDM_STORE4, through the arrays of TDM_VIEW_AND_QUADS), which let
 *     one source serve a kernel and its float16 twin;
 *   - TDM_U_<uint> and TDM_F_<float>, the push constants by name.
 * Before the sections, for every kernel: TDM_ACT_<name>, the values of an activation
 * argument (kernel_flags.h).
 * A kernel with a TDM_HALF_TWIN line has two sections: its own where TDM_HALF_TWIN is
 * not defined, and its twin's where it is (glslang -DTDM_HALF_TWIN builds the module
 * NAME_f16, cmake/CompileShaders.cmake). The twin's bindings and arguments are the
 * kernel's; its TDM_ACT buffers are arrays of uint16_t (GL_EXT_shader_16bit_storage:
 * one element per half, so that storing one does not race its neighbour's store
 * into the same word), whose accessors convert exactly with half.glsl's bit-pattern
 * conversions (nearest even, denormals kept) rather than float16_t arithmetic or
 * packHalf2x16, whose rounding the implementation chooses.
 * So a shader cannot disagree with the table on its bindings, its arguments or its
 * group size. An entry the push constants cannot hold fails the build.
 * usage: glsl_bindings OUTPUT */
#include <stdio.h>
#include <string.h>

#include "kernel/kernel_flags.h"
#include "tandem/nn.h"

/* The sizes of kernel_args.glsl's push-constant arrays. */
enum { MAX_BUFFERS = 8, MAX_UINTS = 16, MAX_FLOATS = 8 };

/* Bounds the TDM_HALF_TWIN lines the generator keeps. */
enum { MAX_TWINS = 64 };

static FILE *out;
static const char *kernel;
static unsigned buffer_count, uint_count, float_count;
static int failed;
static const char *twins[MAX_TWINS]; /* the kernels with a TDM_HALF_TWIN line */
static unsigned twin_count;
static int in_twin; /* writing a twin's section */

static void add_twin(const char *name)
{
    if (twin_count == MAX_TWINS) {
        fprintf(stderr, "glsl_bindings: more than %u TDM_HALF_TWIN lines\n", MAX_TWINS);
        failed = 1;
        return;
    }
    twins[twin_count++] = name;
}

static int has_twin(const char *name)
{
    for (unsigned t = 0; t < twin_count; t++)
        if (strcmp(twins[t], name) == 0)
            return 1;
    return 0;
}

/* A kernel's section applies to the build of its own module, or of its twin's. */
static void begin(const char *name, unsigned wg)
{
    kernel = name;
    buffer_count = uint_count = float_count = 0;
    fprintf(out, "\n#if defined(TDM_KERNEL_%s) && %sdefined(TDM_HALF_TWIN)\n", name,
            in_twin ? "" : "!");
    fprintf(out, "#define TDM_KERNEL_DECLARED\n");
    if (in_twin)
        fprintf(out, "#include \"half.glsl\"\n");
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

/* The accessors of a view whose elements are its values (float, or the words a
 * family declares it as). */
static void plain_accessors(const char *v)
{
    fprintf(out, "#define TDM_LOAD_%s(i) %s[TDM_OFF_%s + (i)]\n", v, v, v);
    fprintf(out, "#define TDM_STORE_%s(i, value) %s[TDM_OFF_%s + (i)] = (value)\n", v, v, v);
    fprintf(out, "#define TDM_LOAD4_%s(i) %s4[TDM_QUAD(%s, i)]\n", v, v, v);
    fprintf(out, "#define TDM_STORE4_%s(i, value) %s4[TDM_QUAD(%s, i)] = (value)\n", v, v, v);
}

/* The accessors of a twin's activation: float values from and to uint16_t halves. */
static void half_accessors(const char *v)
{
    fprintf(out, "#define TDM_LOAD_%s(i) tdm_half_value(uint(%s[TDM_OFF_%s + (i)]))\n", v, v, v);
    fprintf(
        out,
        "#define TDM_STORE_%s(i, value) %s[TDM_OFF_%s + (i)] = uint16_t(tdm_half_bits(value))\n", v,
        v, v);
    fprintf(out, "#define TDM_LOAD4_%s(i) tdm_half_values(uvec4(%s4[TDM_QUAD(%s, i)]))\n", v, v, v);
    fprintf(
        out,
        "#define TDM_STORE4_%s(i, value) %s4[TDM_QUAD(%s, i)] = u16vec4(tdm_half_bits4(value))\n",
        v, v, v);
}

/* One buffer's names. Its access: readonly where the table only reads it, writeonly
 * where it only writes it, except a float16 view of words, which hold two halves of
 * which the view may own one: the other is read to be kept. A twin's activation is
 * an array of halves instead, each its own element. */
static void buffer(const char *name, const char *type, const char *type4, int half, int flags)
{
    unsigned b = next(&buffer_count, MAX_BUFFERS, "buffers");
    int act = in_twin && (flags & TDM_ACT);
    if (act && half) {
        fprintf(stderr, "glsl_bindings: kernel %s: activation %s is float16 already\n", kernel,
                name);
        failed = 1;
    }
    const char *access = !(flags & TDM_W)            ? "readonly"
                         : !(flags & TDM_R) && !half ? "writeonly"
                                                     : "";
    fprintf(out, "#define TDM_BIND_%s %u\n", name, b);
    fprintf(out, "#define TDM_ACCESS_%s %s\n", name, access);
    fprintf(out, "#define TDM_TYPE_%s %s\n#define TDM_TYPE4_%s %s\n", name, act ? "uint16_t" : type,
            name, act ? "u16vec4" : type4);
    fprintf(out, "#define TDM_OFF_%s args.off[%u]\n", name, b);
    if (act)
        half_accessors(name);
    else if (!half) /* a float16 view of words has its family's own pair code */
        plain_accessors(name);
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
/* A section per kernel, and one more for its twin. */
#define SECTIONS(name, grid, wg, tolerance, buffers, uints, floats)                                \
    for (in_twin = 0; in_twin <= has_twin(#name); in_twin++) {                                     \
        begin(#name, wg);                                                                          \
        buffers uints floats end();                                                                \
    }

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
    /* First the kernels that have a twin, which the table lists last. */
#define TDM_KERNEL(...)
#define TDM_HALF_TWIN(name) add_twin(#name);
#include "kernel/kernels.def"
#undef TDM_KERNEL
#undef TDM_HALF_TWIN
    fprintf(out, "// Generated from core/kernel/kernels.def by tools/kernelgen/glsl_bindings.c.\n"
                 "// A shader defines TDM_KERNEL_<name>, then includes this file; the build of\n"
                 "// a float16 twin defines TDM_HALF_TWIN as well.\n"
                 "#ifdef TDM_HALF_TWIN\n"
                 "#extension GL_EXT_shader_16bit_storage : require\n"
                 "#endif\n"
                 "#include \"kernel_args.glsl\"\n");
#define ACTIVATION(name) fprintf(out, "#define TDM_ACT_" #name " %uu\n", (unsigned)TDM_ACT_##name);
    TDM_KERNEL_ACTIVATIONS(ACTIVATION)
#define TDM_KERNEL SECTIONS
#include "kernel/kernels.def"
    fprintf(out, "\n#if !defined(TDM_KERNEL_DECLARED) && defined(TDM_HALF_TWIN)\n"
                 "#error \"TDM_HALF_TWIN: define TDM_KERNEL_<name> of a TDM_HALF_TWIN line of "
                 "kernels.def\"\n"
                 "#elif !defined(TDM_KERNEL_DECLARED)\n"
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
