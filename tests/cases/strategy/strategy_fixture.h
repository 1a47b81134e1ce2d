/* The strategy case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_STRATEGY_FIXTURE_H
#define TDM_TEST_STRATEGY_FIXTURE_H

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "harness.h"

#define MAX_REPLICAS 3

extern tdm_context *strat_ctx;
extern tdm_device *strat_devs[MAX_REPLICAS];
extern size_t strat_n_devs;

tdm_tensor *strat_tensor_of(tdm_device *dev, tdm_shape shape, const float *data);

float strat_read_at(const tdm_tensor *t, size_t i);

/* A PER_REPLICA value: replica i holds `count` elements base + 10 i + j. */
tdm_value *strat_per_replica(tdm_strategy *s, size_t count, float base);

tdm_strategy *strat_mirrored(const tdm_strategy_options *opts);

/* strategy_cross_device.c */
void strat_check_mirrored_devices(void);
void strat_check_same_hardware(void);
void strat_check_reduce_to(void);
void strat_check_batch_and_broadcast(void);
void strat_check_reduce_axis(void);
void strat_check_reduce_kinds(void);
void strat_check_module_functions(void);
void strat_check_default_strategy(void);

#endif
