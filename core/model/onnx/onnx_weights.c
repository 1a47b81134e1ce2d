/* The ONNX export's weights: each variable's first copy read back to the host. */
#include <stdlib.h>

#include "base/error.h"
#include "model/onnx/onnx_weights.h"

static tdm_status read_back(const tdm_variable *var, float **out, tdm_shape *shape)
{
    *shape = tdm_variable_shape(var);
    size_t bytes = tdm_shape_count(shape) * sizeof(float);
    *out = malloc(bytes ? bytes : 1);
    if (!*out)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    tdm_status s = tdm_tensor_read(tdm_variable_copy(var, 0), *out, bytes);
    if (s != TDM_OK) {
        free(*out);
        *out = NULL;
    }
    return s;
}

tdm_status tdm_onnx_read_variable(const tdm_model *m, size_t l, size_t k, float **out,
                                  tdm_shape *shape)
{
    return read_back(m->vars[m->plans[l].first_var + k], out, shape);
}

tdm_status tdm_onnx_read_state(const tdm_model *m, size_t l, size_t k, float **out,
                               tdm_shape *shape)
{
    return read_back(m->states[m->plans[l].first_state + k], out, shape);
}

static tdm_status constant(tdm_onnx_graph *g, const tdm_variable *var, tdm_onnx_value *out)
{
    float *values = NULL;
    tdm_shape shape;
    tdm_status s = read_back(var, &values, &shape);
    if (s != TDM_OK)
        return s;
    int64_t dims[TDM_MAX_RANK];
    for (size_t k = 0; k < shape.rank; k++)
        dims[k] = (int64_t)shape.dims[k];
    *out = tdm_onnx_floats(g, tdm_variable_name(var), dims, shape.rank, values);
    free(values);
    return TDM_OK;
}

tdm_status tdm_onnx_variable(tdm_onnx_graph *g, const tdm_model *m, size_t l, size_t k,
                             tdm_onnx_value *out)
{
    return constant(g, m->vars[m->plans[l].first_var + k], out);
}

tdm_status tdm_onnx_state(tdm_onnx_graph *g, const tdm_model *m, size_t l, size_t k,
                          tdm_onnx_value *out)
{
    return constant(g, m->states[m->plans[l].first_state + k], out);
}
