/* tdm_model_export_onnx: the model's inference as an ONNX model (IR version 8, opset
 * 17) computing what tdm_model_predict returns: its inputs, standardised where the
 * model standardises them, each layer's nodes from its type (layer_type.h), and the
 * outputs, written as tdm_model_save writes a model file, through a temporary file
 * renamed over the target. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "checkpoint/checkpoint_files.h"
#include "checkpoint/output_file.h"
#include "model/layers/layer_type.h"
#include "model/onnx/onnx_ops.h"
#include "tandem/tandem.h"

#define ONNX_IR_VERSION 8
#define ONNX_OPSET 17

enum { /* onnx.proto's ModelProto and OperatorSetIdProto */
       MODEL_IR_VERSION = 1,
       MODEL_PRODUCER_NAME = 2,
       MODEL_PRODUCER_VERSION = 3,
       MODEL_DOC_STRING = 6,
       MODEL_GRAPH = 7,
       MODEL_OPSET_IMPORT = 8,
       OPSET_DOMAIN = 1,
       OPSET_VERSION = 2
};

/* Input k's name: "input", then "input1", "input2", as model files name them. */
static void input_name(size_t k, char *buf, size_t size)
{
    if (k)
        snprintf(buf, size, "input%zu", k);
    else
        snprintf(buf, size, "input");
}

/* Each input declared, [N, width], and standardised first where the model keeps
 * statistics: (x - mean) / divisor, the divisor 1 where std is 0, as prediction
 * does it. */
static void inputs(const tdm_model *m, tdm_onnx_graph *g, tdm_onnx_value *in)
{
    size_t widths[TDM_MODEL_MAX_INPUTS];
    size_t count = tdm_model_input_widths(m, widths, TDM_MODEL_MAX_INPUTS);
    size_t features = m->opts.input_features;
    for (size_t k = 0, first = 0; k < count; first += widths[k], k++) {
        input_name(k, in[k].name, sizeof in[k].name);
        tdm_onnx_graph_input(g, in[k].name, widths[k]);
        if (!m->standardize)
            continue;
        char name[48];
        const int64_t width = (int64_t)widths[k];
        snprintf(name, sizeof name, "%.16s/mean", in[k].name);
        tdm_onnx_value mean = tdm_onnx_floats(g, name, &width, 1, m->standardize + first);
        snprintf(name, sizeof name, "%.16s/divisor", in[k].name);
        tdm_onnx_value divisor =
            tdm_onnx_floats(g, name, &width, 1, m->standardize + features + first);
        in[k] = tdm_onnx_op2(g, "Div", tdm_onnx_op2(g, "Sub", in[k], mean), divisor);
    }
}

/* Layer l's inputs as the graph's values: earlier layers' outputs or the model's
 * inputs. */
static void layer_inputs(const tdm_model *m, size_t l, const tdm_onnx_value *model_in,
                         const tdm_onnx_value *outputs, tdm_onnx_value *in)
{
    const tdm_layer_plan *p = &m->plans[l];
    for (size_t k = 0; k < p->input_count; k++)
        in[k] = p->inputs[k] < 0 ? model_in[-1 - p->inputs[k]] : outputs[p->inputs[k]];
}

static tdm_status layers(const tdm_model *m, tdm_onnx_graph *g, const tdm_onnx_value *model_in,
                         tdm_onnx_value *outputs, const char *func)
{
    tdm_status s = TDM_OK;
    for (size_t l = 0; l < m->opts.layer_count && s == TDM_OK; l++) {
        const tdm_layer *d = &m->layers[l];
        const tdm_layer_type *t = tdm_layer_type_of(d->kind);
        if (!t->onnx)
            return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: layer %zu (%s) has no ONNX form", func, l,
                            tdm_layer_kind_name(d->kind));
        tdm_onnx_value in[TDM_LAYER_MAX_INPUTS];
        layer_inputs(m, l, model_in, outputs, in);
        s = t->onnx(m, l, g, in, &outputs[l]);
        if (s == TDM_OK && (t->takes & TDM_TAKES_ACTIVATION)) /* dropout: none in inference */
            outputs[l] = tdm_onnx_activation(g, d->activation, outputs[l]);
        if (s != TDM_OK)
            tdm_fail_context(s, "%s: layer %zu (%s)", func, l, tdm_layer_kind_name(d->kind));
    }
    return s;
}

/* "output", what tdm_model_predict returns, and for the cross-entropies
 * "probabilities": the softmax over each position's channels (over the whole output
 * where it is flat), or each output's sigmoid. */
static void outputs(const tdm_model *m, tdm_onnx_graph *g, tdm_onnx_value last)
{
    size_t width = tdm_model_output_count(m), positions = tdm_model_output_positions(m);
    tdm_onnx_named(g, last, "output");
    tdm_onnx_graph_output(g, "output", width);
    tdm_loss_kind loss = m->opts.loss;
    tdm_onnx_value p;
    if (loss == TDM_LOSS_SIGMOID_CROSS_ENTROPY) {
        p = tdm_onnx_op1(g, "Sigmoid", last);
    } else if (loss == TDM_LOSS_SOFTMAX_CROSS_ENTROPY ||
               loss == TDM_LOSS_CATEGORICAL_CROSS_ENTROPY) {
        tdm_onnx_value x = tdm_onnx_positions(g, last, positions, width / positions);
        p = tdm_onnx_flatten(g, tdm_onnx_softmax(g, x));
    } else {
        return; /* a regression's values are its outputs */
    }
    tdm_onnx_named(g, p, "probabilities");
    tdm_onnx_graph_output(g, "probabilities", width);
}

/* The ModelProto around the graph: the IR version, the opset, who made it. */
static void model_proto(const tdm_onnx_graph *g, tdm_pb *pb)
{
    tdm_pb_varint(pb, MODEL_IR_VERSION, ONNX_IR_VERSION);
    tdm_pb_string(pb, MODEL_PRODUCER_NAME, "tandem");
    tdm_pb_string(pb, MODEL_PRODUCER_VERSION, tdm_version());
    tdm_pb_string(pb, MODEL_DOC_STRING,
                  "inputs [N, features], standardised inside where the model was; "
                  "output: tdm_model_predict's outputs; probabilities: their softmax or "
                  "sigmoid (classifiers)");
    size_t opset = tdm_pb_begin(pb, MODEL_OPSET_IMPORT);
    tdm_pb_string(pb, OPSET_DOMAIN, "");
    tdm_pb_varint(pb, OPSET_VERSION, ONNX_OPSET);
    tdm_pb_end(pb, opset);
    tdm_pb_bytes(pb, MODEL_GRAPH, g->pb.data, g->pb.size);
}

static tdm_status write_file(const char *path, const tdm_pb *pb, const char *func)
{
    tdm_output_file out;
    tdm_status s = tdm_output_open(path, TDM_OUTPUT_WHOLE, func, &out);
    if (s != TDM_OK)
        return s;
    if (fwrite(pb->data, 1, pb->size, out.f) != pb->size) {
        s = tdm_ckpt_os_fail(errno, func, "write", path);
        tdm_output_abort(&out);
        return s;
    }
    return tdm_output_commit(&out, func);
}

tdm_status tdm_model_export_onnx(const tdm_model *m, const char *path)
{
    const char *func = "tdm_model_export_onnx";
    TDM_CHECK_ARG(m, func);
    TDM_CHECK_ARG(path, func);
    if (!*path || path[strlen(path) - 1] == '/')
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: '%s' names no file", func, path);
    size_t count = m->opts.layer_count;
    tdm_onnx_value *values = calloc(count, sizeof *values);
    if (!values)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_onnx_graph g;
    tdm_onnx_graph_init(&g, "tandem");
    tdm_onnx_value in[TDM_MODEL_MAX_INPUTS];
    inputs(m, &g, in);
    tdm_status s = layers(m, &g, in, values, func);
    if (s == TDM_OK)
        outputs(m, &g, values[count - 1]);
    tdm_pb model;
    tdm_pb_init(&model);
    if (s == TDM_OK) {
        s = tdm_onnx_graph_finish(&g);
        if (s == TDM_OK) {
            model_proto(&g, &model);
            s = tdm_pb_finish(&model, "the ONNX model");
        }
        if (s != TDM_OK)
            tdm_fail_context(s, "%s", func);
    }
    if (s == TDM_OK)
        s = write_file(path, &model, func);
    tdm_pb_free(&model);
    tdm_onnx_graph_free(&g);
    free(values);
    return s;
}
