/* Per-replica activation buffers of the model, grown to the largest slice seen. */
#include <stdlib.h>

#include "error.h"
#include "model_impl.h"

void tdm_model_scratch_free(const tdm_model *m, tdm_model_scratch *sc)
{
    for (size_t l = 0; l < m->opts.layer_count; l++) {
        tdm_tensor_destroy(sc->z ? sc->z[l] : NULL);
        tdm_tensor_destroy(sc->a ? sc->a[l] : NULL);
        tdm_tensor_destroy(sc->dropped ? sc->dropped[l] : NULL);
        tdm_tensor_destroy(sc->g ? sc->g[l] : NULL);
    }
    free(sc->z);
    free(sc->a);
    free(sc->dropped);
    free(sc->g);
    tdm_tensor_destroy(sc->losses);
    tdm_tensor_destroy(sc->target);
    *sc = (tdm_model_scratch){0};
}

static tdm_status matrix(tdm_device *dev, size_t rows, size_t cols, tdm_tensor **out)
{
    return tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, cols), out);
}

static tdm_status allocate(const tdm_model *m, tdm_model_scratch *sc, size_t rows)
{
    size_t layers = m->opts.layer_count;
    sc->z = calloc(layers, sizeof *sc->z);
    sc->a = calloc(layers, sizeof *sc->a);
    sc->dropped = calloc(layers, sizeof *sc->dropped);
    sc->g = calloc(layers, sizeof *sc->g);
    if (!sc->z || !sc->a || !sc->dropped || !sc->g)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "model: out of host memory");
    tdm_status s = TDM_OK;
    for (size_t l = 0; l < layers && s == TDM_OK; l++) {
        size_t units = m->layers[l].units;
        s = matrix(sc->device, rows, units, &sc->z[l]);
        if (s == TDM_OK)
            s = matrix(sc->device, rows, units, &sc->a[l]);
        if (s == TDM_OK)
            s = matrix(sc->device, rows, units, &sc->g[l]);
        if (s == TDM_OK && m->layers[l].dropout > 0.0f)
            s = matrix(sc->device, rows, units, &sc->dropped[l]);
    }
    size_t classes = m->layers[layers - 1].units;
    if (s == TDM_OK)
        s = tdm_tensor_create(sc->device, TDM_F32, &TDM_SHAPE(rows), &sc->losses);
    if (s == TDM_OK)
        s = matrix(sc->device, rows, classes, &sc->target);
    return s;
}

tdm_status tdm_model_scratch_reserve(const tdm_model *m, tdm_model_scratch *sc, tdm_device *dev,
                                     size_t rows)
{
    if (sc->device == dev && sc->rows_capacity >= rows)
        return TDM_OK;
    tdm_model_scratch_free(m, sc);
    sc->device = dev;
    tdm_status s = allocate(m, sc, rows);
    if (s != TDM_OK) {
        tdm_model_scratch_free(m, sc);
        return s;
    }
    sc->rows_capacity = rows;
    return TDM_OK;
}

/* A slice of t's first rows rows (t is [capacity, cols] or [capacity]). */
static tdm_status rows_of(tdm_tensor *t, size_t rows, tdm_tensor **out)
{
    if (!t) {
        *out = NULL;
        return TDM_OK;
    }
    tdm_shape shape = tdm_tensor_shape(t);
    shape.dims[0] = rows;
    return tdm_tensor_slice(t, 0, &shape, out);
}

static tdm_status views_alloc(tdm_model_views *v, size_t layers)
{
    v->layers = layers;
    v->z = calloc(layers, sizeof *v->z);
    v->a = calloc(layers, sizeof *v->a);
    v->dropped = calloc(layers, sizeof *v->dropped);
    v->g = calloc(layers, sizeof *v->g);
    v->out = calloc(layers, sizeof *v->out);
    if (!v->z || !v->a || !v->dropped || !v->g || !v->out)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "model: out of host memory");
    return TDM_OK;
}

tdm_status tdm_model_views_make(const tdm_model *m, tdm_model_scratch *sc, size_t rows,
                                int training, tdm_model_views *v)
{
    *v = (tdm_model_views){.rows = rows};
    tdm_status s = views_alloc(v, m->opts.layer_count);
    for (size_t l = 0; l < v->layers && s == TDM_OK; l++) {
        s = rows_of(sc->z[l], rows, &v->z[l]);
        if (s == TDM_OK)
            s = rows_of(sc->a[l], rows, &v->a[l]);
        if (s == TDM_OK)
            s = rows_of(sc->g[l], rows, &v->g[l]);
        if (s == TDM_OK && training)
            s = rows_of(sc->dropped[l], rows, &v->dropped[l]);
        v->out[l] = v->dropped[l] ? v->dropped[l] : v->a[l];
    }
    if (s == TDM_OK)
        s = rows_of(sc->losses, rows, &v->losses);
    if (s == TDM_OK)
        s = rows_of(sc->target, rows, &v->target);
    if (s != TDM_OK)
        tdm_model_views_free(v);
    return s;
}

void tdm_model_views_free(tdm_model_views *v)
{
    for (size_t l = 0; l < v->layers; l++) {
        tdm_tensor_destroy(v->z ? v->z[l] : NULL);
        tdm_tensor_destroy(v->a ? v->a[l] : NULL);
        tdm_tensor_destroy(v->dropped ? v->dropped[l] : NULL);
        tdm_tensor_destroy(v->g ? v->g[l] : NULL);
    }
    free(v->z);
    free(v->a);
    free(v->dropped);
    free(v->g);
    free(v->out);
    tdm_tensor_destroy(v->losses);
    tdm_tensor_destroy(v->target);
    *v = (tdm_model_views){0};
}
