/* Inference: the forward pass of host rows on the strategy's first device, in
 * chunks, with the first copies of the variables and no dropout. Evaluation and
 * prediction both run on it. */
#include "base/error.h"
#include "model/model_impl.h"

/* Rows per forward pass, and the bytes their buffers may take: bound the device
 * memory (attention's weights take T x T per head and row). */
#define INFER_ROWS 512
#define INFER_BYTES ((size_t)256 << 20)

/* One chunk: upload, forward, read the outputs back. */
static tdm_status run_chunk(tdm_model *m, const float *x, size_t rows, float *out)
{
    size_t cols = m->opts.input_features, outputs = tdm_model_output_count(m);
    tdm_tensor *input = NULL;
    tdm_model_views v;
    tdm_status s = tdm_tensor_slice(m->eval.input, 0, &TDM_SHAPE(rows, cols), &input);
    if (s == TDM_OK)
        s = tdm_tensor_write(input, x, rows * cols * sizeof(float));
    if (s == TDM_OK)
        s = tdm_model_views_make(m, &m->eval, rows, 0, &v);
    if (s != TDM_OK) {
        tdm_tensor_destroy(input);
        return s;
    }
    tdm_forward_args fa = {.x = input};
    s = tdm_model_forward(m, &v, &fa);
    if (s == TDM_OK)
        s = tdm_tensor_read(v.out[v.b.layers - 1], out, rows * outputs * sizeof(float));
    tdm_model_views_free(&v);
    tdm_tensor_destroy(input);
    return s;
}

tdm_status tdm_model_infer(tdm_model *m, const float *x, size_t rows, float *out)
{
    tdm_device *dev = tdm_strategy_device(m->strategy, 0);
    size_t fit = INFER_BYTES / (tdm_model_row_bytes(m) + 1);
    size_t most = fit < 1 ? 1 : fit < INFER_ROWS ? fit : INFER_ROWS;
    size_t chunk = rows < most ? rows : most;
    size_t cols = m->opts.input_features, outputs = tdm_model_output_count(m);
    tdm_status s = tdm_model_scratch_reserve(m, &m->eval, dev, chunk, 0);
    if (s == TDM_OK && !m->eval.input)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(m->eval.rows_capacity, cols),
                              &m->eval.input);
    for (size_t first = 0; first < rows && s == TDM_OK; first += chunk) {
        size_t n = rows - first < chunk ? rows - first : chunk;
        s = run_chunk(m, x + first * cols, n, out + first * outputs);
    }
    return s;
}
