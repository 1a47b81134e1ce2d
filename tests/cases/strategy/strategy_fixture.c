/* The strategy case's shared set-up and checks (the case: strategy.c). */
#include "strategy_fixture.h"

tdm_context *strat_ctx;
tdm_device *strat_devs[MAX_REPLICAS];
size_t strat_n_devs;

tdm_tensor *strat_tensor_of(tdm_device *dev, tdm_shape shape, const float *data)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &t));
    if (t && data)
        CHECK_OK(tdm_tensor_write(t, data, tdm_tensor_bytes(t)));
    return t;
}

float strat_read_at(const tdm_tensor *t, size_t i)
{
    float v[64] = {0};
    CHECK(tdm_tensor_count(t) <= 64);
    CHECK_OK(tdm_tensor_read(t, v, tdm_tensor_bytes(t)));
    return v[i];
}

/* A PER_REPLICA value: replica i holds `count` elements base + 10 i + j. */
tdm_value *strat_per_replica(tdm_strategy *s, size_t count, float base)
{
    tdm_tensor *t[MAX_REPLICAS];
    for (size_t i = 0; i < tdm_strategy_num_replicas(s); i++) {
        float data[16];
        for (size_t j = 0; j < count; j++)
            data[j] = base + 10.0f * (float)i + (float)j;
        t[i] = strat_tensor_of(tdm_strategy_device(s, i), TDM_SHAPE(count), data);
    }
    tdm_value *v = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, tdm_strategy_num_replicas(s), &v));
    return v;
}

tdm_strategy *strat_mirrored(const tdm_strategy_options *opts)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(strat_ctx, strat_devs, strat_n_devs, opts, &s));
    return s;
}
