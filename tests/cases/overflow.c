/* Sizes from user input never wrap: a shape, a layer or a batch whose bytes do not
 * fit in a size_t is refused, and a batch larger than the data costs no more memory
 * than the data (a batch of 2^62 once overflowed the step buffer and crashed). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "train_fixture.h"

#define HUGE ((size_t)1 << 62)

static tdm_context *ctx;
static tdm_device *devs[3];

static void check_shapes(void)
{
    /* [2^62, 4] once counted 0 elements and made a tensor of no bytes. */
    tdm_shape huge = TDM_SHAPE(HUGE, 4), bytes_wrap = TDM_SHAPE(HUGE, 2),
              empty = TDM_SHAPE(HUGE, 8, 0), fits = TDM_SHAPE(HUGE / 2);
    CHECK(tdm_shape_count(&huge) == SIZE_MAX);
    CHECK(tdm_shape_count(&bytes_wrap) == HUGE * 2);
    CHECK(tdm_shape_count(&empty) == 0);
    tdm_tensor *t = NULL;
    CHECK_FAILS(tdm_tensor_create(devs[0], TDM_F32, &huge, &t), TDM_ERR_INVALID_ARGUMENT,
                "shape [4611686018427387904, 4] has more elements than a size_t can count");
    CHECK_FAILS(tdm_tensor_create(devs[0], TDM_F32, &bytes_wrap, &t), TDM_ERR_INVALID_ARGUMENT,
                "size_t");
    CHECK(t == NULL);
    /* Within size_t but beyond the device: refused by the allocator, not wrapped. */
    CHECK_FAILS(tdm_tensor_create(devs[0], TDM_F32, &fits, &t), TDM_ERR_OUT_OF_MEMORY,
                "cannot allocate");
    CHECK_OK(tdm_tensor_create(devs[0], TDM_F32, &empty, &t));
    CHECK(tdm_tensor_bytes(t) == 0);
    tdm_tensor *slice = NULL;
    CHECK_FAILS(tdm_tensor_slice(t, 0, &huge, &slice), TDM_ERR_INVALID_ARGUMENT, "size_t");
    tdm_tensor_destroy(t);

    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, 3, NULL, &s));
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.shape = huge;
    tdm_variable *v = NULL;
    CHECK_FAILS(tdm_variable_create(s, &vo, &v), TDM_ERR_INVALID_ARGUMENT, "size_t");
    tdm_layer layers[] = {TDM_DENSE(HUGE, TDM_ACT_RELU, 0.0f), TDM_DENSE(4, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = 8;
    mo.layers = layers;
    mo.layer_count = 2;
    tdm_model *m = NULL;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0: a kernel of [8, 4611686018427387904] is more than memory can address");
    tdm_strategy_destroy(s);
}

/* A model too large for its device: refused by the limits the device describes, its
 * parameters before any value is built on the host (a model of 16 GiB once grew the
 * host's memory for minutes before the allocator refused it), its gradients and
 * Adam's two slots before the train op makes them. On a 64th of the reference
 * device, so that what fits stays small on any machine. */
static void check_device_room(void)
{
    tdm_context *own = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *root = NULL, *parts[64];
    CHECK_OK(tdm_context_device(own, 0, &root));
    CHECK_OK(tdm_device_split(root, 64, parts));
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(parts[0], &d));
    /* The fixture's model, 8 -> hidden -> 4, holds 13 * hidden + 4 floats, its first
     * kernel 8 * hidden. */
    size_t memory = (size_t)d.global_memory;
    fixture f;
    fixture_options o = FIXTURE_OPTIONS_INIT;
    o.hidden = d.max_allocation / 32 + 1;
    CHECK_FAILS(fixture_open(&f, own, parts, 1, &o), TDM_ERR_OUT_OF_MEMORY,
                "tdm_model_create: variable 'dense0/kernel' needs");
    CHECK(strstr(tdm_last_error(), "its max single allocation is") != NULL);
    CHECK(f.model == NULL);
    fixture_close(&f);
    o.hidden = memory / 40; /* each variable fits, but not all of them */
    CHECK_FAILS(fixture_open(&f, own, parts, 1, &o), TDM_ERR_OUT_OF_MEMORY,
                "tdm_model_create: the model's parameters need");
    fixture_close(&f);
    o.hidden = memory / 156; /* a third of the memory, then twice as much for Adam */
    CHECK_FAILS(fixture_open(&f, own, parts, 1, &o), TDM_ERR_OUT_OF_MEMORY,
                "tdm_train_op_create: its gradients and the optimizer's slots need");
    CHECK(f.model != NULL && f.op == NULL);
    fixture_close(&f);
    tdm_context_destroy(own);
}

static void check_host_tables(void)
{
    float x[4] = {0};
    int32_t y[1] = {0};
    tdm_dataset *ds = NULL;
    CHECK_FAILS(tdm_dataset_from_arrays(x, y, HUGE, 8, 1, &ds), TDM_ERR_OUT_OF_MEMORY, "too large");
    CHECK(ds == NULL);
}

/* The reported crash: a step's host buffer sized batch x features x 4 without a
 * check. Now a huge batch is one batch of the whole epoch, for training and for
 * evaluation; SIZE_MAX once wrapped the count of batches per epoch to 0 too. */
static void check_huge_batch(size_t batch)
{
    fixture f;
    fixture_options o = FIXTURE_OPTIONS_INIT;
    o.batch = batch;
    o.epochs = 2;
    CHECK_OK(fixture_open(&f, ctx, devs, 3, &o));
    CHECK(tdm_dataset_batches_per_epoch(f.data) == 1);
    uint64_t done = 0;
    if (f.monitor)
        CHECK_OK(tdm_monitor_run_steps(f.monitor, 0, &done));
    CHECK(done == 2 && tdm_train_op_global_step(f.op) == 2);
    tdm_evaluation ev;
    if (f.model)
        CHECK_OK(tdm_model_evaluate(f.model, f.data, &ev));
    fixture_close(&f);
}

void test_case_overflow(const test_run *run)
{
    (void)run;
    ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    CHECK(test_scenario_devices(ctx, "reference", devs) == 3);
    check_shapes();
    check_host_tables();
    check_device_room();
    check_huge_batch(HUGE);
    check_huge_batch(SIZE_MAX);
    tdm_context_destroy(ctx);
}
