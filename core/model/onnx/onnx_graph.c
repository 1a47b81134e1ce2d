/* An ONNX graph as Protocol Buffers fields: onnx.proto's field numbers for the
 * GraphProto, NodeProto, AttributeProto, TensorProto and ValueInfoProto that the
 * export writes, and nothing of what ONNX means by them. */
#include <stdio.h>
#include <string.h>

#include "model/onnx/onnx_graph.h"

enum { /* onnx.proto field numbers */
       GRAPH_NODE = 1,
       GRAPH_NAME = 2,
       GRAPH_INITIALIZER = 5,
       GRAPH_INPUT = 11,
       GRAPH_OUTPUT = 12,
       NODE_INPUT = 1,
       NODE_OUTPUT = 2,
       NODE_OP_TYPE = 4,
       NODE_ATTRIBUTE = 5,
       ATTR_NAME = 1,
       ATTR_F = 2,
       ATTR_I = 3,
       ATTR_INTS = 8,
       ATTR_TYPE = 20,
       ATTR_FLOAT = 1, /* AttributeType */
       ATTR_INT = 2,
       ATTR_INTS_TYPE = 7,
       TENSOR_DIMS = 1,
       TENSOR_DATA_TYPE = 2,
       TENSOR_NAME = 8,
       TENSOR_RAW_DATA = 9,
       VALUE_NAME = 1,
       VALUE_TYPE = 2,
       TYPE_TENSOR = 1,
       TENSOR_TYPE_ELEM = 1,
       TENSOR_TYPE_SHAPE = 2,
       SHAPE_DIM = 1,
       DIM_VALUE = 1,
       DIM_PARAM = 2
};

void tdm_onnx_graph_init(tdm_onnx_graph *g, const char *name)
{
    *g = (tdm_onnx_graph){0};
    tdm_pb_init(&g->pb);
    tdm_pb_string(&g->pb, GRAPH_NAME, name);
}

void tdm_onnx_graph_free(tdm_onnx_graph *g)
{
    tdm_pb_free(&g->pb);
}

static tdm_onnx_value fresh(tdm_onnx_graph *g)
{
    tdm_onnx_value v;
    snprintf(v.name, sizeof v.name, "v%zu", g->made++);
    return v;
}

static void node_open(tdm_onnx_graph *g, const char *op, const tdm_onnx_value *in, size_t n,
                      const tdm_onnx_value *out)
{
    g->open_node = tdm_pb_begin(&g->pb, GRAPH_NODE);
    for (size_t k = 0; k < n; k++)
        tdm_pb_string(&g->pb, NODE_INPUT, in[k].name);
    tdm_pb_string(&g->pb, NODE_OUTPUT, out->name);
    tdm_pb_string(&g->pb, NODE_OP_TYPE, op);
}

tdm_onnx_value tdm_onnx_node_begin(tdm_onnx_graph *g, const char *op, const tdm_onnx_value *in,
                                   size_t n)
{
    tdm_onnx_value out = fresh(g);
    node_open(g, op, in, n, &out);
    return out;
}

tdm_onnx_value tdm_onnx_named(tdm_onnx_graph *g, tdm_onnx_value x, const char *name)
{
    tdm_onnx_value out;
    snprintf(out.name, sizeof out.name, "%s", name);
    node_open(g, "Identity", &x, 1, &out);
    tdm_onnx_node_end(g);
    return out;
}

void tdm_onnx_node_end(tdm_onnx_graph *g)
{
    tdm_pb_end(&g->pb, g->open_node);
}

void tdm_onnx_attr_int(tdm_onnx_graph *g, const char *name, int64_t value)
{
    size_t mark = tdm_pb_begin(&g->pb, NODE_ATTRIBUTE);
    tdm_pb_string(&g->pb, ATTR_NAME, name);
    tdm_pb_varint(&g->pb, ATTR_TYPE, ATTR_INT);
    tdm_pb_varint(&g->pb, ATTR_I, (uint64_t)value);
    tdm_pb_end(&g->pb, mark);
}

void tdm_onnx_attr_ints(tdm_onnx_graph *g, const char *name, const int64_t *values, size_t n)
{
    size_t mark = tdm_pb_begin(&g->pb, NODE_ATTRIBUTE);
    tdm_pb_string(&g->pb, ATTR_NAME, name);
    tdm_pb_varint(&g->pb, ATTR_TYPE, ATTR_INTS_TYPE);
    for (size_t k = 0; k < n; k++)
        tdm_pb_varint(&g->pb, ATTR_INTS, (uint64_t)values[k]);
    tdm_pb_end(&g->pb, mark);
}

void tdm_onnx_attr_float(tdm_onnx_graph *g, const char *name, float value)
{
    size_t mark = tdm_pb_begin(&g->pb, NODE_ATTRIBUTE);
    tdm_pb_string(&g->pb, ATTR_NAME, name);
    tdm_pb_varint(&g->pb, ATTR_TYPE, ATTR_FLOAT);
    tdm_pb_float(&g->pb, ATTR_F, value);
    tdm_pb_end(&g->pb, mark);
}

tdm_onnx_value tdm_onnx_op1(tdm_onnx_graph *g, const char *op, tdm_onnx_value a)
{
    tdm_onnx_value out = tdm_onnx_node_begin(g, op, &a, 1);
    tdm_onnx_node_end(g);
    return out;
}

tdm_onnx_value tdm_onnx_op2(tdm_onnx_graph *g, const char *op, tdm_onnx_value a, tdm_onnx_value b)
{
    const tdm_onnx_value in[2] = {a, b};
    tdm_onnx_value out = tdm_onnx_node_begin(g, op, in, 2);
    tdm_onnx_node_end(g);
    return out;
}

/* A TensorProto's header; its data follows as raw little-endian bytes. */
static size_t tensor_begin(tdm_onnx_graph *g, const tdm_onnx_value *name, int type,
                           const int64_t *dims, size_t rank)
{
    size_t mark = tdm_pb_begin(&g->pb, GRAPH_INITIALIZER);
    for (size_t k = 0; k < rank; k++)
        tdm_pb_varint(&g->pb, TENSOR_DIMS, (uint64_t)dims[k]);
    tdm_pb_varint(&g->pb, TENSOR_DATA_TYPE, (uint64_t)type);
    tdm_pb_string(&g->pb, TENSOR_NAME, name->name);
    return mark;
}

static size_t element_count(const int64_t *dims, size_t rank)
{
    size_t n = 1;
    for (size_t k = 0; k < rank; k++)
        n *= (size_t)dims[k];
    return n;
}

/* raw_data, each element's bytes least significant first whatever the host's order,
 * a block at a time. */
static void raw_data(tdm_onnx_graph *g, size_t count, size_t width, const void *data)
{
    size_t mark = tdm_pb_begin(&g->pb, TENSOR_RAW_DATA);
    const unsigned char *bytes = data;
    unsigned char block[1024];
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t word = 0;
        if (width == 4) {
            uint32_t w32;
            memcpy(&w32, bytes + i * 4, 4);
            word = w32;
        } else {
            memcpy(&word, bytes + i * 8, 8);
        }
        for (size_t b = 0; b < width; b++)
            block[used++] = (unsigned char)(word >> (8 * b));
        if (used + width > sizeof block || i + 1 == count) {
            tdm_pb_raw(&g->pb, block, used);
            used = 0;
        }
    }
    tdm_pb_end(&g->pb, mark);
}

tdm_onnx_value tdm_onnx_floats(tdm_onnx_graph *g, const char *name, const int64_t *dims,
                               size_t rank, const float *data)
{
    tdm_onnx_value v = fresh(g);
    if (name)
        snprintf(v.name, sizeof v.name, "%s", name);
    size_t mark = tensor_begin(g, &v, TDM_ONNX_FLOAT, dims, rank);
    raw_data(g, element_count(dims, rank), 4, data);
    tdm_pb_end(&g->pb, mark);
    return v;
}

tdm_onnx_value tdm_onnx_int64s(tdm_onnx_graph *g, const int64_t *dims, size_t rank,
                               const int64_t *data)
{
    tdm_onnx_value v = fresh(g);
    size_t mark = tensor_begin(g, &v, TDM_ONNX_INT64, dims, rank);
    raw_data(g, element_count(dims, rank), 8, data);
    tdm_pb_end(&g->pb, mark);
    return v;
}

/* A ValueInfoProto: float32 [N, width]. */
static void value_info(tdm_onnx_graph *g, uint32_t field, const char *name, size_t width)
{
    size_t info = tdm_pb_begin(&g->pb, field);
    tdm_pb_string(&g->pb, VALUE_NAME, name);
    size_t type = tdm_pb_begin(&g->pb, VALUE_TYPE);
    size_t tensor = tdm_pb_begin(&g->pb, TYPE_TENSOR);
    tdm_pb_varint(&g->pb, TENSOR_TYPE_ELEM, TDM_ONNX_FLOAT);
    size_t shape = tdm_pb_begin(&g->pb, TENSOR_TYPE_SHAPE);
    size_t dim = tdm_pb_begin(&g->pb, SHAPE_DIM);
    tdm_pb_string(&g->pb, DIM_PARAM, "N");
    tdm_pb_end(&g->pb, dim);
    dim = tdm_pb_begin(&g->pb, SHAPE_DIM);
    tdm_pb_varint(&g->pb, DIM_VALUE, width);
    tdm_pb_end(&g->pb, dim);
    tdm_pb_end(&g->pb, shape);
    tdm_pb_end(&g->pb, tensor);
    tdm_pb_end(&g->pb, type);
    tdm_pb_end(&g->pb, info);
}

void tdm_onnx_graph_input(tdm_onnx_graph *g, const char *name, size_t width)
{
    value_info(g, GRAPH_INPUT, name, width);
}

void tdm_onnx_graph_output(tdm_onnx_graph *g, const char *name, size_t width)
{
    value_info(g, GRAPH_OUTPUT, name, width);
}

tdm_status tdm_onnx_graph_finish(const tdm_onnx_graph *g)
{
    return tdm_pb_finish(&g->pb, "the ONNX graph");
}
