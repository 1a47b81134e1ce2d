/* conv2d's passes through oneDNN (dnnl_conv.h). oneDNN lays the filter out as its
 * fastest kernel wants (format "any"), so the forward and the input gradient reorder
 * f into that layout first, and the filter gradient reorders its result back to HWIO
 * with a sum, which adds it to df as the kernel table asks. The images stay NHWC, as
 * tandem keeps them. oneDNN keeps the kernels it generated in its own cache, so
 * making a pass's primitives again for the next step takes microseconds.
 *
 * Every primitive takes its scratchpad from the pass (user mode), never oneDNN's
 * own: oneDNN 2.x keeps its shared scratchpad per thread, sized by the primitives
 * made on that thread, and a pass is made on the caller's thread but runs on the
 * device queue's. A primitive that needs one (the gemm-based input gradient, which
 * oneDNN picks below AVX-512 for some shapes) then found none on the queue's thread
 * and wrote its columns at address 0 plus an offset: the crash on AVX2 machines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include "device/backend_api.h"
#include "dnnl_conv.h"
#include "dnnl_padding_terms.h"

#define DNNL_FUNCTIONS(X)                                                                          \
    X(dnnl_engine_create)                                                                          \
    X(dnnl_engine_destroy)                                                                         \
    X(dnnl_stream_create)                                                                          \
    X(dnnl_stream_wait)                                                                            \
    X(dnnl_memory_desc_init_by_tag)                                                                \
    X(dnnl_memory_desc_init_by_strides)                                                            \
    X(dnnl_memory_desc_get_size)                                                                   \
    X(dnnl_memory_create)                                                                          \
    X(dnnl_memory_destroy)                                                                         \
    X(dnnl_convolution_forward_desc_init)                                                          \
    X(dnnl_convolution_backward_data_desc_init)                                                    \
    X(dnnl_convolution_backward_weights_desc_init)                                                 \
    X(dnnl_primitive_desc_create)                                                                  \
    X(dnnl_primitive_desc_query_md)                                                                \
    X(dnnl_primitive_desc_destroy)                                                                 \
    X(dnnl_reorder_primitive_desc_create)                                                          \
    X(dnnl_primitive_create)                                                                       \
    X(dnnl_primitive_execute)                                                                      \
    X(dnnl_primitive_destroy)                                                                      \
    X(dnnl_primitive_attr_create)                                                                  \
    X(dnnl_primitive_attr_set_post_ops)                                                            \
    X(dnnl_primitive_attr_set_scratchpad_mode)                                                     \
    X(dnnl_primitive_attr_destroy)                                                                 \
    X(dnnl_post_ops_create)                                                                        \
    X(dnnl_post_ops_append_sum)                                                                    \
    X(dnnl_post_ops_append_eltwise)                                                                \
    X(dnnl_post_ops_destroy)                                                                       \
    X(dnnl_status2str)                                                                             \
    X(dnnl_get_effective_cpu_isa)

/* Each function through a pointer of its own declared type: the header's
 * declaration, so a wrong signature does not compile. */
#define DECLARE(f) static __typeof__(f) *p_##f;
DNNL_FUNCTIONS(DECLARE)
#undef DECLARE

static tdm_library dnnl = TDM_LIBRARY_INIT("oneDNN");
/* oneDNN splits a pass among its OpenMP threads, and the split changes the bits, so
 * the count is fixed to the machine's cores while a pass is made or run, as
 * OpenBLAS's is (opencl_host_gemm.c); the thread's own count, which an application
 * may have set, is put back after. NULL: oneDNN built without OpenMP. */
static void (*omp_set_num_threads_fn)(int);
static int (*omp_get_max_threads_fn)(void);
static dnnl_engine_t engine;
static dnnl_stream_t stream; /* runs one pass at a time (dnnl_conv.h) */

/* Returns the count to put back with threads_end. */
static int threads_begin(void)
{
    if (!omp_set_num_threads_fn || !omp_get_max_threads_fn)
        return 0;
    const int was = omp_get_max_threads_fn();
    omp_set_num_threads_fn(tdm_host_cores());
    return was;
}

static void threads_end(int was)
{
    if (was > 0)
        omp_set_num_threads_fn(was);
}

/* The instruction set oneDNN's kernels use here: the CPU's widest, or lower where
 * ONEDNN_MAX_CPU_ISA says so. */
static const char *isa_name(dnnl_cpu_isa_t isa)
{
    switch (isa) {
    case dnnl_cpu_isa_sse41: return "SSE4.1";
    case dnnl_cpu_isa_avx: return "AVX";
    case dnnl_cpu_isa_avx2: return "AVX2";
    case dnnl_cpu_isa_avx2_vnni: return "AVX2 VNNI";
    case dnnl_cpu_isa_avx512_mic:
    case dnnl_cpu_isa_avx512_mic_4ops: return "AVX-512 (Xeon Phi)";
    case dnnl_cpu_isa_avx512_core: return "AVX-512";
    case dnnl_cpu_isa_avx512_core_vnni: return "AVX-512 VNNI";
    case dnnl_cpu_isa_avx512_core_bf16: return "AVX-512 BF16";
    case dnnl_cpu_isa_avx512_core_amx: return "AMX";
    default: return "unnamed";
    }
}

static int resolve(tdm_library *lib)
{
    int found = 1;
#define FETCH(f) TDM_LIBRARY_FETCH(lib, p_##f, #f, found);
    DNNL_FUNCTIONS(FETCH)
#undef FETCH
    if (!found)
        return 0;
    *(void **)&omp_set_num_threads_fn = tdm_dynlib_symbol(lib->handle, "omp_set_num_threads");
    *(void **)&omp_get_max_threads_fn = tdm_dynlib_symbol(lib->handle, "omp_get_max_threads");
    if (p_dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) {
        snprintf(lib->note, sizeof lib->note, "%s makes no CPU engine", tdm_dynlib_file(lib->name));
        return 0;
    }
    if (p_dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        p_dnnl_engine_destroy(engine);
        engine = NULL;
        snprintf(lib->note, sizeof lib->note, "%s makes no stream on its CPU engine",
                 tdm_dynlib_file(lib->name));
        return 0;
    }
    const size_t used = strlen(lib->note);
    snprintf(lib->note + used, sizeof lib->note - used, " (its %s kernels)",
             isa_name(p_dnnl_get_effective_cpu_isa()));
    return 1;
}

int tdm_dnnl_load(const char **note)
{
    int loaded = tdm_library_load(&dnnl, resolve);
    if (note)
        *note = dnnl.note;
    return loaded;
}

struct tdm_dnnl_conv {
    tdm_dnnl_pass pass;
    tdm_dnnl_window win;
    tdm_dnnl_operands at;
    dnnl_primitive_t conv;
    /* Before the forward and the input gradient: f into the layout conv reads. After
     * the filter gradient: conv's result back to HWIO, added to df. NULL: none. */
    dnnl_primitive_t reorder;
    dnnl_memory_t image, output, filter, bias, laid_out, scratchpad;
    void *laid_out_storage, *scratchpad_storage;
    int zero_first; /* what the pass writes is filled with zeros before conv runs */
    float *written; /* what the pass writes (NaN if oneDNN fails while it runs) */
    float *bias_sums; /* the filter gradient's sums of dy's columns, for db */
    size_t written_count;
};

void tdm_dnnl_conv_free(tdm_dnnl_conv *c)
{
    if (!c)
        return;
    if (c->conv)
        p_dnnl_primitive_destroy(c->conv);
    if (c->reorder)
        p_dnnl_primitive_destroy(c->reorder);
    dnnl_memory_t memories[] = {c->image, c->output,   c->filter,
                                c->bias,  c->laid_out, c->scratchpad};
    for (size_t i = 0; i < sizeof memories / sizeof memories[0]; i++)
        if (memories[i])
            p_dnnl_memory_destroy(memories[i]);
    tdm_host_aligned_free(c->laid_out_storage);
    tdm_host_aligned_free(c->scratchpad_storage);
    tdm_host_aligned_free(c->bias_sums);
    free(c);
}

static tdm_status failed(const char *what, dnnl_status_t st)
{
    return tdm_fail(st == dnnl_out_of_memory ? TDM_ERR_OUT_OF_MEMORY : TDM_ERR_UNSUPPORTED,
                    "oneDNN: %s: %s", what, p_dnnl_status2str(st));
}

/* The shapes of a pass as oneDNN reads them: dims in its logical order (N, C, H, W;
 * O, I, H, W), NHWC and HWIO in memory. Where the last window ends short of the
 * image by less than a stride (VALID with rows left over), oneDNN takes the whole,
 * dense image without padding after: it rounds the output size down, as such a layer
 * does. Given a strided view instead, it refuses its vectorised kernels (some 60x
 * slower). Only a window ending a stride or more short, which no layer's output size
 * gives, is seen through a view of the rows and columns the windows reach (its
 * strides the whole image's), so that the padding is never negative. */
typedef struct shapes {
    dnnl_memory_desc_t image, output, filter, filter_any, bias;
    dnnl_dims_t strides, pad_before, pad_after;
    int image_whole; /* the view is the whole image */
} shapes;

static dnnl_status_t describe(const tdm_dnnl_window *w, shapes *s)
{
    const int64_t reach_h = (int64_t)(w->oh - 1) * w->stride_h + w->kh - w->pad_top,
                  reach_w = (int64_t)(w->ow - 1) * w->stride_w + w->kw - w->pad_left;
    const int64_t view_h = reach_h <= (int64_t)w->h - w->stride_h ? reach_h : w->h,
                  view_w = reach_w <= (int64_t)w->w - w->stride_w ? reach_w : w->w;
    s->image_whole = view_h == w->h && view_w == w->w;
    s->strides[0] = w->stride_h, s->strides[1] = w->stride_w;
    s->pad_before[0] = w->pad_top, s->pad_before[1] = w->pad_left;
    s->pad_after[0] = reach_h > view_h ? reach_h - view_h : 0;
    s->pad_after[1] = reach_w > view_w ? reach_w - view_w : 0;
    const dnnl_dims_t image = {w->batch, w->c, view_h, view_w},
                      image_strides = {(int64_t)w->h * w->w * w->c, 1, (int64_t)w->w * w->c, w->c},
                      output = {w->batch, w->oc, w->oh, w->ow},
                      filter = {w->oc, w->c, w->kh, w->kw};
    dnnl_status_t st =
        p_dnnl_memory_desc_init_by_strides(&s->image, 4, image, dnnl_f32, image_strides);
    if (st == dnnl_success)
        st = p_dnnl_memory_desc_init_by_tag(&s->output, 4, output, dnnl_f32, dnnl_nhwc);
    if (st == dnnl_success)
        st = p_dnnl_memory_desc_init_by_tag(&s->filter, 4, filter, dnnl_f32, dnnl_hwio);
    if (st == dnnl_success)
        st = p_dnnl_memory_desc_init_by_tag(&s->filter_any, 4, filter, dnnl_f32,
                                            dnnl_format_tag_any);
    const dnnl_dims_t bias = {w->oc};
    if (st == dnnl_success)
        st = p_dnnl_memory_desc_init_by_tag(&s->bias, 1, bias, dnnl_f32, dnnl_a);
    return st;
}

typedef enum { NO_POST_OP, SUM, RELU } post_op;

/* Attributes whose primitive takes its scratchpad from the caller, with a post-op:
 * SUM adds to what the destination holds; RELU is the table's relu (NaN kept, +0
 * below 0) as ELU with alpha 0, x > 0 ? x : 0 * (exp(x) - 1), then 1 * that + 0, which
 * turns its -0 into +0. oneDNN's own ReLU post-op is a max with 0 in its vectorised
 * kernels, which makes NaN 0. */
static dnnl_status_t user_scratchpad_attr(post_op post, dnnl_primitive_attr_t *attr)
{
    dnnl_post_ops_t ops = NULL;
    dnnl_status_t st = p_dnnl_primitive_attr_create(attr);
    if (st == dnnl_success)
        st = p_dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
    if (st == dnnl_success && post != NO_POST_OP)
        st = p_dnnl_post_ops_create(&ops);
    if (st == dnnl_success && post == SUM)
        st = p_dnnl_post_ops_append_sum(ops, 1.0f);
    if (st == dnnl_success && post == RELU)
        st = p_dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_elu, 0.0f, 0.0f);
    if (st == dnnl_success && post == RELU)
        st = p_dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_linear, 1.0f, 0.0f);
    if (st == dnnl_success && post != NO_POST_OP)
        st = p_dnnl_primitive_attr_set_post_ops(*attr, ops);
    if (ops)
        p_dnnl_post_ops_destroy(ops);
    return st;
}

/* The pass's primitive descriptor (the forward's is the hint the gradients need). */
static tdm_status choose(tdm_dnnl_pass pass, int bias, shapes *s, const_dnnl_primitive_attr_t attr,
                         dnnl_primitive_desc_t *out)
{
    dnnl_convolution_desc_t forward, backward;
    dnnl_primitive_desc_t hint = NULL;
    dnnl_status_t st = p_dnnl_convolution_forward_desc_init(
        &forward, dnnl_forward_training, dnnl_convolution_direct, &s->image, &s->filter_any,
        bias ? &s->bias : NULL, &s->output, s->strides, s->pad_before, s->pad_after);
    if (st == dnnl_success)
        st = pass == TDM_DNNL_FORWARD
                 ? p_dnnl_primitive_desc_create(out, &forward, attr, engine, NULL)
                 : p_dnnl_primitive_desc_create(&hint, &forward, NULL, engine, NULL);
    if (st != dnnl_success)
        return failed("the forward convolution", st);
    if (pass == TDM_DNNL_FORWARD)
        return TDM_OK;
    st = pass == TDM_DNNL_GRAD_INPUT
             ? p_dnnl_convolution_backward_data_desc_init(&backward, dnnl_convolution_direct,
                                                          &s->image, &s->filter_any, &s->output,
                                                          s->strides, s->pad_before, s->pad_after)
             : p_dnnl_convolution_backward_weights_desc_init(
                   &backward, dnnl_convolution_direct, &s->image, &s->filter_any,
                   bias ? &s->bias : NULL, &s->output, s->strides, s->pad_before, s->pad_after);
    if (st == dnnl_success)
        st = p_dnnl_primitive_desc_create(out, &backward, attr, engine, hint);
    p_dnnl_primitive_desc_destroy(hint);
    return st == dnnl_success
               ? TDM_OK
               : failed(pass == TDM_DNNL_GRAD_INPUT ? "the input gradient" : "the filter gradient",
                        st);
}

/* Bytes of scratchpad primitive descriptor pd asks of its caller. */
static size_t scratchpad_bytes(const_dnnl_primitive_desc_t pd)
{
    const dnnl_memory_desc_t *md = p_dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    return md ? p_dnnl_memory_desc_get_size(md) : 0;
}

/* The filter in the layout pd reads or writes, and the reorder between it and HWIO:
 * into it before the forward and the input gradient; out of it, added to df, after
 * the filter gradient. *scratch: the bytes of scratchpad the reorder needs. */
static tdm_status lay_out(tdm_dnnl_conv *c, const shapes *s, const_dnnl_primitive_desc_t pd,
                          size_t *scratch)
{
    const int gradient = c->pass == TDM_DNNL_GRAD_FILTER;
    const dnnl_memory_desc_t *laid = p_dnnl_primitive_desc_query_md(
        pd, gradient ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    size_t bytes = p_dnnl_memory_desc_get_size(laid);
    c->laid_out_storage = tdm_host_aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!c->laid_out_storage)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "oneDNN: no host memory for a filter of %zu bytes",
                        bytes);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t reorder = NULL;
    dnnl_status_t st = p_dnnl_memory_create(&c->laid_out, laid, engine, c->laid_out_storage);
    if (st == dnnl_success)
        st = user_scratchpad_attr(gradient ? SUM : NO_POST_OP, &attr);
    if (st == dnnl_success)
        st = gradient ? p_dnnl_reorder_primitive_desc_create(&reorder, laid, engine, &s->filter,
                                                             engine, attr)
                      : p_dnnl_reorder_primitive_desc_create(&reorder, &s->filter, engine, laid,
                                                             engine, attr);
    if (st == dnnl_success)
        st = p_dnnl_primitive_create(&c->reorder, reorder);
    if (st == dnnl_success)
        *scratch = scratchpad_bytes(reorder);
    if (reorder)
        p_dnnl_primitive_desc_destroy(reorder);
    if (attr)
        p_dnnl_primitive_attr_destroy(attr);
    return st == dnnl_success ? TDM_OK : failed("the filter's reorder", st);
}

/* One scratchpad for the pass's primitives, which run one after another: the larger
 * of their needs, none where neither has one. */
static tdm_status give_scratchpad(tdm_dnnl_conv *c, size_t bytes)
{
    if (!bytes)
        return TDM_OK;
    c->scratchpad_storage = tdm_host_aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!c->scratchpad_storage)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "oneDNN: no host memory for a scratchpad of %zu bytes", bytes);
    const dnnl_dims_t dims = {(dnnl_dim_t)bytes};
    dnnl_memory_desc_t md;
    dnnl_status_t st = p_dnnl_memory_desc_init_by_tag(&md, 1, dims, dnnl_u8, dnnl_a);
    if (st == dnnl_success)
        st = p_dnnl_memory_create(&c->scratchpad, &md, engine, c->scratchpad_storage);
    return st == dnnl_success ? TDM_OK : failed("the scratchpad", st);
}

static tdm_status build(tdm_dnnl_conv *c, const tdm_dnnl_window *w, const tdm_dnnl_operands *o)
{
    shapes s;
    dnnl_status_t st = describe(w, &s);
    if (st != dnnl_success)
        return failed("the shapes", st);
    dnnl_primitive_attr_t attr = NULL;
    st = user_scratchpad_attr(o->bias && c->pass == TDM_DNNL_FORWARD ? RELU : NO_POST_OP, &attr);
    if (st != dnnl_success) {
        if (attr)
            p_dnnl_primitive_attr_destroy(attr);
        return failed("the convolution's attributes", st);
    }
    dnnl_primitive_desc_t pd = NULL;
    size_t reorder_scratch = 0;
    tdm_status result = choose(c->pass, o->bias != NULL, &s, attr, &pd);
    p_dnnl_primitive_attr_destroy(attr);
    if (result == TDM_OK)
        result = lay_out(c, &s, pd, &reorder_scratch);
    if (result == TDM_OK) {
        const size_t conv_scratch = scratchpad_bytes(pd);
        result =
            give_scratchpad(c, conv_scratch > reorder_scratch ? conv_scratch : reorder_scratch);
    }
    if (result == TDM_OK && o->bias && c->pass == TDM_DNNL_GRAD_FILTER) {
        c->bias_sums = tdm_host_aligned_alloc(64, ((size_t)w->oc * sizeof(float) + 63) / 64 * 64);
        if (!c->bias_sums)
            result =
                tdm_fail(TDM_ERR_OUT_OF_MEMORY, "oneDNN: no host memory for %u bias sums", w->oc);
    }
    if (result == TDM_OK) {
        st = p_dnnl_primitive_create(&c->conv, pd);
        if (st == dnnl_success)
            st = p_dnnl_memory_create(&c->image, &s.image, engine, o->image);
        if (st == dnnl_success)
            st = p_dnnl_memory_create(&c->output, &s.output, engine, o->output);
        if (st == dnnl_success)
            st = p_dnnl_memory_create(&c->filter, &s.filter, engine, o->filter);
        /* the forward reads the bias; the filter gradient writes its sums apart */
        if (st == dnnl_success && o->bias)
            st = p_dnnl_memory_create(&c->bias, &s.bias, engine,
                                      c->pass == TDM_DNNL_FORWARD ? o->bias : c->bias_sums);
        if (st != dnnl_success)
            result = failed("the convolution", st);
    }
    if (pd)
        p_dnnl_primitive_desc_destroy(pd);
    /* the input gradient is zero where no window reaches, outside the view */
    if (result == TDM_OK && c->pass == TDM_DNNL_GRAD_INPUT && !s.image_whole)
        c->zero_first = 1;
    return result;
}

tdm_status tdm_dnnl_conv_prepare(tdm_dnnl_pass pass, const tdm_dnnl_window *w,
                                 const tdm_dnnl_operands *o, tdm_dnnl_conv **out)
{
    *out = NULL;
    const size_t image = (size_t)w->batch * w->h * w->w * w->c,
                 output = (size_t)w->batch * w->oh * w->ow * w->oc,
                 filter = (size_t)w->kh * w->kw * w->c * w->oc,
                 positions = (size_t)w->batch * w->oh * w->ow;
    const size_t written = pass == TDM_DNNL_FORWARD      ? output
                           : pass == TDM_DNNL_GRAD_INPUT ? image
                                                         : filter;
    const int sums_bias = pass == TDM_DNNL_GRAD_FILTER && o->bias && w->oc;
    /* nothing written, or a filter gradient adding empty sums */
    if ((!written && !sums_bias) || (pass == TDM_DNNL_GRAD_FILTER && !positions))
        return TDM_OK;
    tdm_dnnl_conv *c = calloc(1, sizeof *c);
    if (!c)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "oneDNN: out of host memory");
    c->pass = pass, c->win = *w, c->at = *o;
    c->written = pass == TDM_DNNL_FORWARD      ? o->output
                 : pass == TDM_DNNL_GRAD_INPUT ? o->image
                                               : o->filter;
    c->written_count = written;
    /* empty sums: a forward over no channels, an input gradient with no window or
     * no output channel, a filter gradient of no elements (its bias's sums alone) */
    if ((pass == TDM_DNNL_FORWARD && !w->c) ||
        (pass == TDM_DNNL_GRAD_INPUT && !(positions && w->oc)) || !written) {
        c->zero_first = 1;
        *out = c;
        return TDM_OK;
    }
    const int threads = threads_begin();
    tdm_status st = build(c, w, o);
    threads_end(threads);
    if (st != TDM_OK) {
        tdm_dnnl_conv_free(c);
        return st;
    }
    *out = c;
    return TDM_OK;
}

/* Runs p on args and the pass's scratchpad (oneDNN ignores one a primitive does not
 * use), then waits for it. */
static dnnl_status_t execute(const tdm_dnnl_conv *c, dnnl_primitive_t p, int n,
                             const dnnl_exec_arg_t *args)
{
    dnnl_exec_arg_t all[5];
    for (int i = 0; i < n; i++)
        all[i] = args[i];
    if (c->scratchpad)
        all[n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, c->scratchpad};
    dnnl_status_t st = p_dnnl_primitive_execute(p, stream, n, all);
    return st == dnnl_success ? p_dnnl_stream_wait(stream) : st;
}

/* The pass's primitives in turn: the filter into conv's layout, conv, or conv and
 * its filter gradient back, added to df. */
static dnnl_status_t compute(const tdm_dnnl_conv *c)
{
    const dnnl_exec_arg_t into_layout[] = {{DNNL_ARG_FROM, c->filter}, {DNNL_ARG_TO, c->laid_out}},
                          back_added[] = {{DNNL_ARG_FROM, c->laid_out}, {DNNL_ARG_TO, c->filter}};
    const dnnl_exec_arg_t forward[] = {{DNNL_ARG_SRC, c->image},
                                       {DNNL_ARG_WEIGHTS, c->laid_out},
                                       {DNNL_ARG_DST, c->output},
                                       {DNNL_ARG_BIAS, c->bias}},
                          grad_input[] = {{DNNL_ARG_DIFF_SRC, c->image},
                                          {DNNL_ARG_WEIGHTS, c->laid_out},
                                          {DNNL_ARG_DIFF_DST, c->output}},
                          grad_filter[] = {{DNNL_ARG_SRC, c->image},
                                           {DNNL_ARG_DIFF_WEIGHTS, c->laid_out},
                                           {DNNL_ARG_DIFF_DST, c->output},
                                           {DNNL_ARG_DIFF_BIAS, c->bias}};
    dnnl_status_t st = dnnl_success;
    if (c->pass != TDM_DNNL_GRAD_FILTER)
        st = execute(c, c->reorder, 2, into_layout);
    if (st == dnnl_success)
        st = execute(c, c->conv, c->bias ? 4 : 3,
                     c->pass == TDM_DNNL_FORWARD      ? forward
                     : c->pass == TDM_DNNL_GRAD_INPUT ? grad_input
                                                      : grad_filter);
    if (st == dnnl_success && c->pass == TDM_DNNL_GRAD_FILTER)
        st = execute(c, c->reorder, 2, back_added);
    return st;
}

/* A forward with a bias over no channels: every sum is 0, so y is relu(b). */
static void bias_relu_alone(const tdm_dnnl_conv *c)
{
    for (size_t e = 0; e < c->written_count; e++) {
        const float z = c->at.bias[e % c->win.oc];
        c->written[e] = isnan(z) || z > 0.0f ? z : 0.0f;
    }
}

/* db += the sums of dy's columns: oneDNN's, which it writes apart (it would write
 * over db); where no primitive ran (a filter of no elements, no channels in), summed
 * here in double as the reference sums them. */
static void add_bias_sums(const tdm_dnnl_conv *c)
{
    const size_t positions = (size_t)c->win.batch * c->win.oh * c->win.ow;
    float *db = c->at.bias;
    for (size_t o = 0; o < c->win.oc; o++) {
        if (c->conv) {
            db[o] += c->bias_sums[o];
            continue;
        }
        double sum = 0.0;
        for (size_t p = 0; p < positions; p++)
            sum += c->at.output[p * c->win.oc + o];
        db[o] = (float)(sum + db[o]);
    }
}

void tdm_dnnl_conv_run(tdm_dnnl_conv *c)
{
    if (c->zero_first)
        memset(c->written, 0, c->written_count * sizeof *c->written);
    if (c->pass == TDM_DNNL_FORWARD && c->at.bias && !c->conv)
        bias_relu_alone(c);
    const int threads = threads_begin();
    const int ok = !c->conv || compute(c) == dnnl_success;
    threads_end(threads);
    const int sums_bias = c->pass == TDM_DNNL_GRAD_FILTER && c->at.bias;
    if (!ok) {
        for (size_t i = 0; i < c->written_count; i++)
            c->written[i] = NAN;
        for (size_t o = 0; sums_bias && o < c->win.oc; o++)
            c->at.bias[o] = NAN;
        return;
    }
    if (c->pass == TDM_DNNL_FORWARD)
        tdm_padding_terms_forward(&c->win, c->at.filter, c->at.output);
    else if (c->pass == TDM_DNNL_GRAD_INPUT)
        tdm_padding_terms_grad_input(&c->win, c->at.filter, c->at.image);
    else
        tdm_padding_terms_grad_filter(&c->win, c->at.output, c->at.filter);
    if (sums_bias)
        add_bias_sums(c);
}
