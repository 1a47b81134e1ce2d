/* The public API's argument checks, errors and options, on the reference backend. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

static void check_status_names(void)
{
    CHECK(strcmp(tdm_status_str(TDM_OK), "TDM_OK") == 0);
    CHECK(strcmp(tdm_status_str(TDM_ERR_OUT_OF_MEMORY), "TDM_ERR_OUT_OF_MEMORY") == 0);
    CHECK(strcmp(tdm_status_str((tdm_status)999), "TDM_ERR_UNKNOWN") == 0);
    CHECK(strstr(tdm_status_description(TDM_ERR_NOT_FOUND), "no such device") != NULL);
    CHECK(strstr(tdm_status_description((tdm_status)999), "unknown") != NULL);
    /* Every code of the list has its name and its description. */
#define TDM_STATUS(name, value, description)                                                       \
    CHECK(strcmp(tdm_status_str(name), #name) == 0 &&                                              \
          strcmp(tdm_status_description(name), description) == 0 && description[0]);
#include "tandem/status.def"
#undef TDM_STATUS
    /* Values are ABI: they never move. */
    CHECK(TDM_ERR_INVALID_ARGUMENT == 1 && TDM_ERR_BACKEND == 9 && TDM_ERR_CANCELLED == 11);
    CHECK(strcmp(tdm_backend_name(TDM_BACKEND_VULKAN), "vulkan") == 0);
    CHECK(tdm_backend_built(TDM_BACKEND_REFERENCE));
}

/* The lists of names are the parsers' own: each name parses (to its index where the
 * enum follows the list), and an unknown name's message lists every one. */
static void check_name_lists(void)
{
    const char *const *names = tdm_activation_names();
    size_t i = 0;
    for (; names[i]; i++) {
        tdm_activation act = (tdm_activation)99;
        CHECK_OK(tdm_activation_parse(names[i], &act));
        CHECK((size_t)act == i && !strcmp(tdm_activation_name(act), names[i]));
    }
    CHECK(i == (size_t)TDM_ACT_GELU + 1);
    tdm_activation act;
    CHECK_FAILS(tdm_activation_parse("rleu", &act), TDM_ERR_NOT_FOUND, "no activation 'rleu' (");
    for (i = 0; names[i]; i++)
        CHECK(strstr(tdm_last_error(), names[i]) != NULL);

    names = tdm_optimizer_kind_names();
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    for (i = 0; names[i]; i++)
        CHECK_OK(tdm_optimizer_kind_parse(names[i], &oo));
    CHECK(i == 7 && oo.kind == TDM_OPT_ADAMW);
    CHECK_FAILS(tdm_optimizer_kind_parse("adm", &oo), TDM_ERR_NOT_FOUND, "no optimizer 'adm' (");
    for (i = 0; names[i]; i++)
        CHECK(strstr(tdm_last_error(), names[i]) != NULL);

    names = tdm_conv_algorithm_names();
    for (i = 0; names[i]; i++) {
        tdm_conv_algorithm a = (tdm_conv_algorithm)99;
        CHECK_OK(tdm_conv_algorithm_parse(names[i], &a));
        CHECK((size_t)a == i);
    }
    CHECK(i == (size_t)TDM_CONV_WINOGRAD + 1);

    names = tdm_layer_kind_names();
    for (i = 0; names[i]; i++)
        CHECK(!strcmp(tdm_layer_kind_name((tdm_layer_kind)i), names[i]));
    CHECK(i == (size_t)TDM_LAYER_KIND_COUNT);
    CHECK(!strcmp(tdm_layer_kind_name((tdm_layer_kind)i), "unknown"));
}

static void check_options(void)
{
    tdm_context *ctx = (tdm_context *)1;
    tdm_context_options opts = TDM_CONTEXT_OPTIONS_INIT;
    opts.size = 0;
    CHECK_FAILS(tdm_context_create(&opts, &ctx), TDM_ERR_INVALID_ARGUMENT, "_INIT");
    CHECK(ctx == NULL);
    opts.size = sizeof opts + 8;
    CHECK_FAILS(tdm_context_create(&opts, &ctx), TDM_ERR_INVALID_ARGUMENT, "size field");
    CHECK_FAILS(tdm_context_create(NULL, NULL), TDM_ERR_INVALID_ARGUMENT, "'out'");
    /* An older caller's smaller struct: the missing fields keep their defaults. */
    opts.size = offsetof(tdm_context_options, log);
    opts.backends = TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE);
    CHECK_OK(tdm_context_create(&opts, &ctx));
    CHECK(tdm_context_device_count(ctx) == 1);
    tdm_context_destroy(ctx);
    tdm_context_destroy(NULL);
}

/* Whether a struct ends with its last field: bytes of tail padding would let a 4-byte
 * field added there keep the size, and a caller built before it would pass the
 * padding's garbage as its value. */
#define ENDS_WITH(type, last) (sizeof(type) == offsetof(type, last) + sizeof(((type *)0)->last))

/* Every options struct versioned by its size field grows when a field is added. */
static void check_no_tail_padding(void)
{
    CHECK(ENDS_WITH(tdm_context_options, vulkan_validation));
    CHECK(ENDS_WITH(tdm_csv_options, label_columns));
    CHECK(ENDS_WITH(tdm_idx_options, max_class_count));
    CHECK(ENDS_WITH(tdm_device_desc, gemm_tuning));
    CHECK(ENDS_WITH(tdm_device_counters, host_waits));
    CHECK(ENDS_WITH(tdm_distribute_options, cache_on_devices));
    CHECK(ENDS_WITH(tdm_model_options, reserved));
    CHECK(ENDS_WITH(tdm_distribute_config, eval_distribute));
    CHECK(ENDS_WITH(tdm_monitor_options, trace_last_step));
    CHECK(ENDS_WITH(tdm_optimizer_options, reserved));
    CHECK(ENDS_WITH(tdm_single_loss_step_options, distribute));
    CHECK(ENDS_WITH(tdm_training_description, monitor_options));
    CHECK(ENDS_WITH(tdm_strategy_options, reserved));
    CHECK(ENDS_WITH(tdm_train_op_options, reserved));
    CHECK(ENDS_WITH(tdm_variable_options, initial_int64));
}

/* Each backend says whether it loaded and why not; ctx has the reference alone. */
static void check_backend_status(tdm_context *ctx)
{
    tdm_status status = TDM_ERR_BACKEND;
    const char *message = NULL;
    CHECK_OK(tdm_context_backend_status(ctx, TDM_BACKEND_REFERENCE, &status, &message));
    CHECK(status == TDM_OK && message && strcmp(message, "built in") == 0);
    CHECK_OK(tdm_context_backend_status(ctx, TDM_BACKEND_OPENCL, &status, &message));
    CHECK(status ==
          (tdm_backend_built(TDM_BACKEND_OPENCL) ? TDM_ERR_NOT_FOUND : TDM_ERR_UNSUPPORTED));
    CHECK(strstr(message, tdm_backend_built(TDM_BACKEND_OPENCL) ? "not requested" : "no opencl"));
    CHECK_OK(tdm_context_backend_status(ctx, TDM_BACKEND_VULKAN, &status, NULL));
    CHECK_FAILS(tdm_context_backend_status(ctx, (tdm_backend_kind)7, &status, &message),
                TDM_ERR_INVALID_ARGUMENT, "kind 7");
    CHECK_FAILS(tdm_context_backend_status(NULL, TDM_BACKEND_OPENCL, &status, &message),
                TDM_ERR_INVALID_ARGUMENT, "'ctx'");
    CHECK_FAILS(tdm_context_backend_status(ctx, TDM_BACKEND_OPENCL, NULL, &message),
                TDM_ERR_INVALID_ARGUMENT, "'status'");
}

static void check_device_args(tdm_context *ctx, tdm_device *dev)
{
    tdm_device *out;
    CHECK_FAILS(tdm_context_device(ctx, 99, &out), TDM_ERR_NOT_FOUND, "99");
    CHECK_FAILS(tdm_context_device(NULL, 0, &out), TDM_ERR_INVALID_ARGUMENT, "'ctx'");
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    desc.size = 3;
    CHECK_FAILS(tdm_device_describe(dev, &desc), TDM_ERR_INVALID_ARGUMENT, "desc: size field");
    /* A caller built before the PCI fields: the fields it knows, its size kept. */
    tdm_device_desc older = {.size = offsetof(tdm_device_desc, vendor_id)};
    older.vendor_id = 12345;
    CHECK_OK(tdm_device_describe(dev, &older));
    CHECK(older.size == offsetof(tdm_device_desc, vendor_id) && older.name[0] != '\0' &&
          older.vendor_id == 12345);
    CHECK_FAILS(tdm_device_describe(NULL, &desc), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    CHECK_FAILS(tdm_device_finish(NULL), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    tdm_device *logical[2];
    CHECK_FAILS(tdm_device_split(dev, 0, logical), TDM_ERR_INVALID_ARGUMENT, "count");
    CHECK_FAILS(tdm_device_split(dev, 65, logical), TDM_ERR_INVALID_ARGUMENT, "count");
    CHECK_FAILS(tdm_device_split(NULL, 2, logical), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    CHECK_OK(tdm_device_split(dev, 2, logical));
    CHECK_FAILS(tdm_device_split(logical[0], 2, logical), TDM_ERR_INVALID_ARGUMENT,
                "already a logical device");
    CHECK_FAILS(tdm_device_record_event(NULL, NULL), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    CHECK_FAILS(tdm_event_wait(NULL), TDM_ERR_INVALID_ARGUMENT, "'event'");
    tdm_event_destroy(NULL);
}

static void check_logical_descriptions(tdm_context *ctx, tdm_device *dev)
{
    tdm_device_desc parent = TDM_DEVICE_DESC_INIT, child = TDM_DEVICE_DESC_INIT;
    tdm_device *logical[4];
    CHECK_OK(tdm_device_split(dev, 4, logical));
    CHECK_OK(tdm_device_describe(dev, &parent));
    CHECK_OK(tdm_device_describe(logical[3], &child));
    CHECK(child.parent == (int)tdm_device_index(dev));
    CHECK(child.logical_index == 3 && child.logical_count == 4);
    CHECK(child.global_memory == parent.global_memory / 4);
    CHECK(strcmp(child.id, "reference:0/3") == 0);
    CHECK(tdm_device_index(logical[3]) == tdm_context_device_count(ctx) - 1);
}

/* The run-time version is the header's. */
static void check_version(void)
{
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", TDM_VERSION_MAJOR, TDM_VERSION_MINOR,
             TDM_VERSION_PATCH);
    CHECK(strcmp(tdm_version(), expected) == 0);
    CHECK(tdm_version_number() ==
          (unsigned)(TDM_VERSION_MAJOR * 10000 + TDM_VERSION_MINOR * 100 + TDM_VERSION_PATCH));
}

/* Whether jobs of processes can run: an answer with its reason, the same each time.
 * (tandem_tests is not beside libtandem_mpi: the answer depends on the search path;
 * cli_devices checks the plugin's own.) */
static void check_multi_process_support(void)
{
    CHECK_FAILS(tdm_multi_process_support(NULL), TDM_ERR_INVALID_ARGUMENT, "message is NULL");
    const char *first = NULL, *again = NULL;
    tdm_status s = tdm_multi_process_support(&first);
    CHECK(s == TDM_OK || s == TDM_ERR_UNSUPPORTED);
    CHECK(first && first[0]);
    CHECK(s == TDM_OK || strstr(first, "no transport between processes"));
    CHECK(tdm_multi_process_support(&again) == s && again == first);
}

/* A device found by the id `tandem devices` shows, logical ones included; an
 * unknown id's message names the ids there are. */
static void check_find_device(tdm_context *ctx, tdm_device *dev)
{
    tdm_device *found = NULL;
    CHECK_OK(tdm_context_find_device(ctx, "reference:0", &found));
    CHECK(found == dev);
    CHECK_OK(tdm_context_find_device(ctx, "reference:0/3", &found));
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(found, &desc));
    CHECK(found != dev && strcmp(desc.id, "reference:0/3") == 0);
    CHECK_FAILS(tdm_context_find_device(ctx, "opencl:0", &found), TDM_ERR_NOT_FOUND,
                "no device 'opencl:0'");
    CHECK(found == NULL && strstr(tdm_last_error(), "reference:0, reference:0/0") != NULL);
    CHECK_FAILS(tdm_context_find_device(ctx, "reference", &found), TDM_ERR_NOT_FOUND,
                "reference:0");
    CHECK_FAILS(tdm_context_find_device(NULL, "reference:0", &found), TDM_ERR_INVALID_ARGUMENT,
                "'ctx'");
    CHECK_FAILS(tdm_context_find_device(ctx, NULL, &found), TDM_ERR_INVALID_ARGUMENT, "'id'");
    CHECK_FAILS(tdm_context_find_device(ctx, "reference:0", NULL), TDM_ERR_INVALID_ARGUMENT,
                "'out'");
}

/* A logical device's memory share is a budget: allocations past it fail. */
static void check_memory_budget(tdm_device *dev)
{
    tdm_device *logical[64];
    CHECK_OK(tdm_device_split(dev, 64, logical));
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(logical[0], &desc));
    size_t part = (size_t)(desc.global_memory / 5 * 2);
    tdm_buffer *a = NULL, *b = NULL, *c = NULL;
    CHECK_OK(tdm_buffer_alloc(logical[0], part, &a));
    CHECK_OK(tdm_buffer_alloc(logical[0], part, &b));
    CHECK_FAILS(tdm_buffer_alloc(logical[0], part, &c), TDM_ERR_OUT_OF_MEMORY, "in use");
    tdm_buffer_free(b);
    CHECK_OK(tdm_buffer_alloc(logical[0], part, &c)); /* freeing returned the budget */
    tdm_buffer_free(a);
    tdm_buffer_free(c);
}

static void check_buffer_args(tdm_device *dev)
{
    tdm_buffer *buf = NULL, *other = NULL;
    unsigned char bytes[64] = {0};
    CHECK_FAILS(tdm_buffer_alloc(dev, 0, &buf), TDM_ERR_INVALID_ARGUMENT, "'size' is 0");
    CHECK_FAILS(tdm_buffer_alloc(NULL, 16, &buf), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    CHECK_FAILS(tdm_buffer_alloc(dev, 16, NULL), TDM_ERR_INVALID_ARGUMENT, "'out'");
    CHECK_FAILS(tdm_buffer_alloc(dev, SIZE_MAX, &buf), TDM_ERR_OUT_OF_MEMORY,
                "max single allocation");
    CHECK_OK(tdm_buffer_alloc(dev, 16, &buf));
    CHECK_OK(tdm_buffer_alloc(dev, 16, &other));
    CHECK_FAILS(tdm_buffer_write(NULL, 0, bytes, 1), TDM_ERR_INVALID_ARGUMENT, "'buf'");
    CHECK_FAILS(tdm_buffer_write(buf, 0, NULL, 1), TDM_ERR_INVALID_ARGUMENT, "'src'");
    CHECK_FAILS(tdm_buffer_write(buf, 10, bytes, 7), TDM_ERR_INVALID_ARGUMENT, "past the end");
    CHECK_FAILS(tdm_buffer_write(buf, 17, bytes, 0), TDM_ERR_INVALID_ARGUMENT, "past the end");
    CHECK_FAILS(tdm_buffer_read(buf, SIZE_MAX, bytes, 2), TDM_ERR_INVALID_ARGUMENT, "past the end");
    CHECK_FAILS(tdm_buffer_read(buf, 0, NULL, 1), TDM_ERR_INVALID_ARGUMENT, "'dst'");
    CHECK_OK(tdm_buffer_read(buf, 16, NULL, 0));
    CHECK_FAILS(tdm_buffer_fill(buf, 0, bytes, 3, 6), TDM_ERR_INVALID_ARGUMENT, "pattern_size");
    CHECK_FAILS(tdm_buffer_fill(buf, 0, bytes, 128, 0), TDM_ERR_INVALID_ARGUMENT, "pattern_size");
    CHECK_FAILS(tdm_buffer_fill(buf, 2, bytes, 4, 8), TDM_ERR_INVALID_ARGUMENT, "multiples");
    CHECK_FAILS(tdm_buffer_fill(buf, 0, bytes, 4, 6), TDM_ERR_INVALID_ARGUMENT, "multiples");
    CHECK_FAILS(tdm_buffer_fill(buf, 8, bytes, 4, 12), TDM_ERR_INVALID_ARGUMENT, "past the end");
    CHECK_FAILS(tdm_buffer_fill(buf, 0, NULL, 4, 4), TDM_ERR_INVALID_ARGUMENT, "'pattern'");
    tdm_buffer_view a = {buf, 0, 8}, b = {other, 0, 9}, c = {buf, 4, 8}, none = {NULL, 0, 0};
    CHECK_FAILS(tdm_buffer_copy(&a, &b), TDM_ERR_INVALID_ARGUMENT, "differs");
    CHECK_FAILS(tdm_buffer_copy(&a, &c), TDM_ERR_INVALID_ARGUMENT, "overlaps");
    CHECK_FAILS(tdm_buffer_copy(&a, NULL), TDM_ERR_INVALID_ARGUMENT, "'src'");
    CHECK_FAILS(tdm_buffer_copy(&none, &a), TDM_ERR_INVALID_ARGUMENT, "dst->buffer");
    b.size = 8;
    b.offset = 9;
    CHECK_FAILS(tdm_buffer_copy(&a, &b), TDM_ERR_INVALID_ARGUMENT, "src offset 9");
    CHECK(tdm_buffer_size(buf) == 16 && tdm_buffer_device(buf) == dev);
    CHECK(tdm_buffer_size(NULL) == 0 && tdm_buffer_device(NULL) == NULL);
    tdm_buffer_free(other);
    tdm_buffer_free(NULL);
    (void)buf; /* left allocated: the context frees it */
}

/* Each thread keeps its own last error. */
static void *fail_in_thread(void *arg)
{
    tdm_buffer_alloc(NULL, 1, NULL);
    return strstr(tdm_last_error(), "'dev'") ? arg : NULL;
}

static void check_thread_local_errors(tdm_device *dev)
{
    tdm_buffer *buf;
    CHECK_FAILS(tdm_buffer_alloc(dev, 0, &buf), TDM_ERR_INVALID_ARGUMENT, "'size' is 0");
    static int marker;
    pthread_t thread;
    void *result = NULL;
    CHECK(pthread_create(&thread, NULL, fail_in_thread, &marker) == 0);
    CHECK(pthread_join(thread, &result) == 0);
    CHECK(result == &marker);
    CHECK(strstr(tdm_last_error(), "'size' is 0") != NULL);
}

void test_case_api(const test_run *run)
{
    (void)run;
    check_status_names();
    check_name_lists();
    check_options();
    check_no_tail_padding();
    check_version();
    check_multi_process_support();
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *dev;
    CHECK_OK(tdm_context_device(ctx, 0, &dev));
    check_backend_status(ctx);
    check_device_args(ctx, dev);
    check_logical_descriptions(ctx, dev);
    check_find_device(ctx, dev);
    check_memory_budget(dev);
    check_buffer_args(dev);
    check_thread_local_errors(dev);
    tdm_context_destroy(ctx);
}
