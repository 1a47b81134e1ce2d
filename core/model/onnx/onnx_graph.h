/* Internal: an ONNX graph (onnx.proto's GraphProto) written as it is built, into one
 * Protocol Buffers message: nodes in the order they are made, which is an order
 * where every value is made before it is read, and initializers (constants) beside
 * them. A node is open between tdm_onnx_node_begin and tdm_onnx_node_end, for its
 * attributes; make the constants it reads before it. Running out of memory is kept by
 * the writer and reported once, by tdm_onnx_graph_finish. */
#ifndef TDM_MODEL_ONNX_GRAPH_H
#define TDM_MODEL_ONNX_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "base/protobuf_writer.h"

/* onnx.proto's TensorProto.DataType values the export writes. */
#define TDM_ONNX_FLOAT 1
#define TDM_ONNX_INT64 7

/* A value of the graph, by its name: the graph's inputs and outputs, "input" and
 * "output", constants after the variables ("dense0/kernel"), the others "v<n>". */
typedef struct tdm_onnx_value {
    char name[48];
} tdm_onnx_value;

typedef struct tdm_onnx_graph {
    tdm_pb pb;        /* the GraphProto's fields */
    size_t made;      /* values named "v<n>" so far */
    size_t open_node; /* the open node's mark in pb */
} tdm_onnx_graph;

void tdm_onnx_graph_init(tdm_onnx_graph *g, const char *name);
void tdm_onnx_graph_free(tdm_onnx_graph *g);

/* A node of type op (of ONNX's default domain) reading in[n], writing one new value,
 * returned; attributes follow until tdm_onnx_node_end. */
tdm_onnx_value tdm_onnx_node_begin(tdm_onnx_graph *g, const char *op, const tdm_onnx_value *in,
                                   size_t n);
void tdm_onnx_attr_int(tdm_onnx_graph *g, const char *name, int64_t value);
void tdm_onnx_attr_ints(tdm_onnx_graph *g, const char *name, const int64_t *values, size_t n);
void tdm_onnx_attr_float(tdm_onnx_graph *g, const char *name, float value);
void tdm_onnx_node_end(tdm_onnx_graph *g);

/* x under the name `name` (an Identity node): the graph's outputs. */
tdm_onnx_value tdm_onnx_named(tdm_onnx_graph *g, tdm_onnx_value x, const char *name);

/* A node without attributes of one input, or of two. */
tdm_onnx_value tdm_onnx_op1(tdm_onnx_graph *g, const char *op, tdm_onnx_value a);
tdm_onnx_value tdm_onnx_op2(tdm_onnx_graph *g, const char *op, tdm_onnx_value a, tdm_onnx_value b);

/* A constant of dims[rank]: float32 named name (NULL: a new "v<n>"), or int64. */
tdm_onnx_value tdm_onnx_floats(tdm_onnx_graph *g, const char *name, const int64_t *dims,
                               size_t rank, const float *data);
tdm_onnx_value tdm_onnx_int64s(tdm_onnx_graph *g, const int64_t *dims, size_t rank,
                               const int64_t *data);

/* The graph's input or output `name`: float32 [N, width], N the symbolic batch. */
void tdm_onnx_graph_input(tdm_onnx_graph *g, const char *name, size_t width);
void tdm_onnx_graph_output(tdm_onnx_graph *g, const char *name, size_t width);

/* TDM_OK, or TDM_ERR_OUT_OF_MEMORY where the message could not grow. */
tdm_status tdm_onnx_graph_finish(const tdm_onnx_graph *g);

#endif
