/* Prediction: the model's outputs for host rows, standardised first when the model
 * carries an input standardisation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/model_impl.h"
#include "input/standardize.h"

#define STANDARDIZE_ROWS 512 /* rows standardised at a time into a host copy */

static tdm_status predict_standardized(tdm_model *m, const float *x, size_t rows, float *out)
{
    size_t cols = m->opts.input_features, outputs = tdm_model_output_count(m);
    size_t chunk = rows < STANDARDIZE_ROWS ? rows : STANDARDIZE_ROWS;
    float *copy = malloc(chunk * cols * sizeof *copy);
    tdm_status s = copy ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    for (size_t first = 0; first < rows && s == TDM_OK; first += chunk) {
        size_t n = rows - first < chunk ? rows - first : chunk;
        memcpy(copy, x + first * cols, n * cols * sizeof *copy);
        tdm_standardize_rows(copy, n, cols, m->standardize);
        s = tdm_model_infer(m, copy, n, out + first * outputs);
    }
    free(copy);
    return s;
}

tdm_status tdm_model_predict(tdm_model *m, const float *features, size_t rows, float *outputs)
{
    const char *func = "tdm_model_predict";
    TDM_CHECK_ARG(m, func);
    if (!rows)
        return TDM_OK;
    TDM_CHECK_ARG(features, func);
    TDM_CHECK_ARG(outputs, func);
    size_t cols = m->opts.input_features;
    for (size_t i = 0; i < rows * cols; i++) /* as a dataset refuses them for training */
        if (!isfinite(features[i]))
            return tdm_fail(TDM_ERR_NUMERIC, "%s: feature %zu of example %zu is %g", func,
                            i % cols, i / cols, (double)features[i]);
    tdm_status s = m->standardize ? predict_standardized(m, features, rows, outputs)
                                  : tdm_model_infer(m, features, rows, outputs);
    return s == TDM_OK ? TDM_OK : tdm_fail_context(s, "%s", func);
}
