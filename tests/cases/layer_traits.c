/* The traits tandem/layer_kinds.def gives each kind of layer agree with what the
 * model accepts: a kind takes an activation and a dropout rate (or a dropout rate
 * alone) exactly when its traits say so, and refuses a flat input exactly when they say it needs an image. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* A layer of each kind that the model accepts as its first layer or after a
 * convolution that keeps a 4 x 4 x 1 image's shape; a kind missing here fails. */
static const tdm_layer valid[TDM_LAYER_KIND_COUNT] = {
    [TDM_LAYER_DENSE] = TDM_DENSE(4, TDM_ACT_LINEAR, 0.0f),
    [TDM_LAYER_CONV2D] = TDM_CONV2D(2, 3, TDM_ACT_LINEAR),
    [TDM_LAYER_MAX_POOL2D] = TDM_MAX_POOL2D(2),
    [TDM_LAYER_AVG_POOL2D] = TDM_AVG_POOL2D(2),
    [TDM_LAYER_BATCH_NORM] = TDM_BATCH_NORM(),
    [TDM_LAYER_LAYER_NORM] = TDM_LAYER_NORM(),
    [TDM_LAYER_RESIDUAL] = TDM_RESIDUAL(1),
    [TDM_LAYER_EMBEDDING] = TDM_EMBEDDING(8, 2),
    [TDM_LAYER_GLOBAL_AVG_POOL2D] = TDM_GLOBAL_AVG_POOL2D(),
    [TDM_LAYER_ADD] = TDM_ADD(TDM_MODEL_INPUT, TDM_MODEL_INPUT),
    [TDM_LAYER_CONCATENATE] = TDM_CONCATENATE(TDM_MODEL_INPUT, TDM_MODEL_INPUT),
    [TDM_LAYER_MULTIPLY] = TDM_MULTIPLY(TDM_MODEL_INPUT, TDM_MODEL_INPUT),
    [TDM_LAYER_POSITION_EMBEDDING] = TDM_POSITION_EMBEDDING(),
    [TDM_LAYER_ATTENTION] = TDM_ATTENTION(1),
    [TDM_LAYER_FEED_FORWARD] = TDM_FEED_FORWARD(),
};

/* Creates a model of layer d at position `at` (0, or 1 after a shape-keeping
 * convolution) before a dense output layer, on a 4 x 4 x 1 image or a flat input of
 * 16; its status, the model destroyed. */
static tdm_status create(tdm_strategy *s, const tdm_layer *d, size_t at, int image)
{
    tdm_layer layers[3] = {TDM_CONV2D(1, 3, TDM_ACT_LINEAR)};
    layers[at] = *d;
    layers[at + 1] = (tdm_layer)TDM_DENSE(3, TDM_ACT_LINEAR, 0.0f);
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.layers = layers;
    mo.layer_count = at + 2;
    mo.input_features = 16;
    if (image)
        mo.input_height = mo.input_width = 4, mo.input_channels = 1;
    tdm_model *m = NULL;
    tdm_status st = tdm_model_create(s, &mo, &m);
    tdm_model_destroy(m);
    return st;
}

static void check_kind(tdm_strategy *s, tdm_layer_kind k)
{
    const char *name = tdm_layer_kind_name(k);
    unsigned traits = tdm_layer_kind_traits(k);
    tdm_layer d = valid[k];
    if (d.kind != k) {
        fprintf(stderr, "layer_traits: no valid layer of kind %s in the test\n", name);
        CHECK(!"every kind has a valid layer");
        return;
    }
    /* where the model accepts the plain layer */
    size_t at = create(s, &d, 0, 1) == TDM_OK ? 0 : 1;
    CHECK_OK(create(s, &d, at, 1));

    int takes = (traits & TDM_LAYER_TAKES_ACTIVATION) != 0;
    int takes_dropout = takes || (traits & TDM_LAYER_TAKES_DROPOUT);
    tdm_layer act = d, drop = d;
    act.activation = TDM_ACT_RELU;
    drop.dropout = 0.5f;
    int act_ok = create(s, &act, at, 1) == TDM_OK, drop_ok = create(s, &drop, at, 1) == TDM_OK;
    if (act_ok != takes || drop_ok != takes_dropout)
        fprintf(stderr,
                "layer_traits: %s: traits say it takes %s activation and %s dropout rate; the "
                "model %s one and %s a dropout rate\n",
                name, takes ? "an" : "no", takes_dropout ? "a" : "no",
                act_ok ? "takes" : "refuses", drop_ok ? "takes" : "refuses");
    CHECK(act_ok == takes && drop_ok == takes_dropout);

    int needs = (traits & TDM_LAYER_NEEDS_IMAGE) != 0;
    int refused = create(s, &d, 0, 0) != TDM_OK && strstr(tdm_last_error(), "needs an image");
    if (refused != needs)
        fprintf(stderr, "layer_traits: %s: traits say it %s an image; the model %s a flat input\n",
                name, needs ? "needs" : "needs no", refused ? "refuses" : "takes");
    CHECK(refused == needs);
}

void test_case_layer_traits(const test_run *run)
{
    (void)run;
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_strategy *s = NULL;
    CHECK_OK(
        tdm_strategy_create_one_device(test_first_device(ctx, TDM_BACKEND_REFERENCE), NULL, &s));
    for (size_t k = 0; k < TDM_LAYER_KIND_COUNT; k++)
        check_kind(s, (tdm_layer_kind)k);
    CHECK(tdm_layer_kind_traits(TDM_LAYER_KIND_COUNT) == 0);
    tdm_strategy_destroy(s);
    tdm_context_destroy(ctx);
}
