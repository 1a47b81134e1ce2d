/* The kernel table as data: kernels.def's strings parsed once into tdm_kernel_info. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

typedef struct kernel_line {
    const char *name;
    tdm_grid grid;
    unsigned wg;
    const char *buffers, *uints, *floats;
    tdm_tolerance tolerance;
} kernel_line;

#define TDM_TOL(ulps, rel, linear)                                                                 \
    {                                                                                              \
        ulps, rel, linear                                                                          \
    }
static const kernel_line lines[TDM_KERNEL_COUNT] = {
#define TDM_KERNEL(name, grid, wg, buffers, uints, floats, tol)                                    \
    {#name, grid, wg, buffers, uints, floats, tol},
#include "kernels.def"
#undef TDM_KERNEL
};
#undef TDM_TOL

static tdm_kernel_info infos[TDM_KERNEL_COUNT];
static pthread_once_t parsed = PTHREAD_ONCE_INIT;

static tdm_extent parse_extent(const char *s)
{
    static const char *const names[] = {"N", "P", "R", "C", "RC", "SC", "GA", "GB", "GC"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i]) == 0)
            return (tdm_extent)i;
    return TDM_EXTENT_INVALID; /* test_kernel_run checks that no entry has one */
}

/* "name:type:extent[:flags]" */
static void parse_buffer(char *spec, tdm_kernel_buffer *b)
{
    char *save = NULL, *name = strtok_r(spec, ":", &save), *type = strtok_r(NULL, ":", &save);
    char *extent = strtok_r(NULL, ":", &save), *flags = strtok_r(NULL, ":", &save);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->type = type ? type[0] : '?';
    b->extent = parse_extent(extent ? extent : "");
    flags = flags ? flags : "";
    b->written = strchr(flags, 'w') != NULL;
    b->read = !b->written || strchr(flags, 'r') != NULL;
    b->positive = strchr(flags, 'p') != NULL;
    b->labels = strchr(flags, 'l') != NULL;
    b->indices = strchr(flags, 'i') != NULL;
    b->optional = strchr(flags, 'o') != NULL;
}

/* Calls fn for each space-separated word of list; returns the count. */
static unsigned each_word(const char *list, unsigned max, void (*fn)(char *, unsigned, void *),
                          void *arg)
{
    char copy[512], *save = NULL;
    snprintf(copy, sizeof copy, "%s", list);
    unsigned n = 0;
    for (char *w = strtok_r(copy, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
        fn(w, n++, arg);
    return n;
}

static void add_buffer(char *word, unsigned i, void *info)
{
    parse_buffer(word, &((tdm_kernel_info *)info)->buffers[i]);
}

static void add_uint(char *word, unsigned i, void *info)
{
    snprintf(((tdm_kernel_info *)info)->uint_names[i], 16, "%s", word);
}

/* "name:min:max" */
static void add_float(char *word, unsigned i, void *arg)
{
    tdm_kernel_info *info = arg;
    char *save = NULL, *name = strtok_r(word, ":", &save), *lo = strtok_r(NULL, ":", &save);
    char *hi = strtok_r(NULL, ":", &save);
    snprintf(info->float_names[i], 16, "%s", name);
    info->float_min[i] = lo ? strtof(lo, NULL) : 0.0f;
    info->float_max[i] = hi ? strtof(hi, NULL) : 0.0f;
}

static void parse_all(void)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++) {
        const kernel_line *l = &lines[k];
        tdm_kernel_info *info = &infos[k];
        info->name = l->name;
        info->grid = l->grid;
        info->wg = l->wg;
        info->tolerance = l->tolerance;
        info->buffer_count = each_word(l->buffers, TDM_KERNEL_MAX_BUFFERS, add_buffer, info);
        info->uint_count = each_word(l->uints, TDM_KERNEL_MAX_UINTS, add_uint, info);
        info->float_count = each_word(l->floats, TDM_KERNEL_MAX_FLOATS, add_float, info);
    }
}

const tdm_kernel_info *tdm_kernel_get(tdm_kernel kernel)
{
    pthread_once(&parsed, parse_all);
    return kernel < TDM_KERNEL_COUNT ? &infos[kernel] : NULL;
}

tdm_kernel tdm_kernel_find(const char *name)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++)
        if (strcmp(lines[k].name, name) == 0)
            return (tdm_kernel)k;
    return TDM_KERNEL_COUNT;
}

unsigned tdm_kernel_type_size(char type)
{
    return type == 'h' ? 2 : 4;
}

uint64_t tdm_kernel_uint(const tdm_kernel_info *info, const uint32_t *u, const char *name)
{
    for (unsigned i = 0; i < info->uint_count; i++)
        if (strcmp(info->uint_names[i], name) == 0)
            return u[i];
    return 0;
}

unsigned tdm_kernel_input_count(const tdm_kernel_info *info)
{
    unsigned n = 0;
    for (unsigned b = 0; b < info->buffer_count; b++)
        n += !info->buffers[b].written;
    return n;
}

int tdm_kernel_buffer_used(const tdm_kernel_info *info, const uint32_t *u, unsigned b)
{
    if (!info->buffers[b].optional)
        return 1;
    unsigned k = 0; /* b's place among the read-only buffers */
    for (unsigned i = 0; i < b; i++)
        k += !info->buffers[i].written;
    return k < tdm_kernel_uint(info, u, "inputs");
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : 0;
}

/* Elements a stored row-major matrix of rows x cols with leading dimension ld spans. */
static uint64_t matrix_span(uint64_t rows, uint64_t cols, uint64_t ld)
{
    return rows && cols ? (rows - 1) * ld + cols : 0;
}

uint64_t tdm_kernel_extent(const tdm_kernel_info *info, const uint32_t *u, tdm_extent extent)
{
#define U(name) tdm_kernel_uint(info, u, name)
    uint64_t n = U("n"), rows = U("rows"), cols = U("cols"), m = U("m"), k = U("k");
    int ta = U("trans_a") != 0, tb = U("trans_b") != 0;
    switch (extent) {
    case TDM_EXTENT_N: return n;
    case TDM_EXTENT_P: return ceil_div(n, U("chunk"));
    case TDM_EXTENT_R: return rows;
    case TDM_EXTENT_C: return cols;
    case TDM_EXTENT_RC: return rows * cols;
    case TDM_EXTENT_SC: return U("src_rows") * cols;
    case TDM_EXTENT_GA: return matrix_span(ta ? k : m, ta ? m : k, U("lda"));
    case TDM_EXTENT_GB: return matrix_span(tb ? n : k, tb ? k : n, U("ldb"));
    case TDM_EXTENT_GC: return matrix_span(m, n, U("ldc"));
    case TDM_EXTENT_INVALID: break;
    }
    return 0;
#undef U
}
