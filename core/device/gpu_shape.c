/* The GPU-shape test mode: a decorated copy of each backend's table without the
 * slots a discrete card lacks. Copying and in-queue ordering stay the backend's. */
#include <stdlib.h>
#include <string.h>

#include "device/context_impl.h"
#include "device/gpu_shape.h"
#include "platform/tdm_thread.h"

static tdm_backend_ops shaped[TDM_MAX_BACKENDS];
static tdm_mutex shaping = TDM_MUTEX_INIT;

int tdm_gpu_shape_wanted(void)
{
    const char *env = getenv("TDM_TEST_GPU_SHAPE");
    return env && strcmp(env, "1") == 0;
}

const tdm_backend_ops *tdm_gpu_shape_ops(const tdm_backend_ops *ops)
{
    tdm_backend_ops *t = &shaped[ops->kind];
    tdm_mutex_lock(&shaping);
    if (!t->describe) { /* first use: the backend's own slots */
        *t = *ops;
        t->host_address = NULL;  /* the core stages every host transfer */
        t->shares_memory = NULL; /* no kernel reaches another device's buffers */
    }
    tdm_mutex_unlock(&shaping);
    return t;
}

int tdm_gpu_shaped(const tdm_backend_ops *ops)
{
    for (size_t i = 0; i < TDM_MAX_BACKENDS; i++)
        if (ops == &shaped[i])
            return 1;
    return 0;
}
