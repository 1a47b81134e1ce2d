/* The model's text: a graph text read into layers that name their inputs, written
 * back and read again to the same layers; a text of a stack makes the stack; every
 * line that makes no layer refused naming its line; and the stacked string's
 * refusals through the library's call. */
#include <string.h>

#include "harness.h"

static const char *const two_branches =
    "# two branches of the image, joined\n"
    "a = conv8k3(input) relu\n"
    "b = conv4k1(input) tanh ; c = concatenate(a, b)\n"
    "   \n"
    "d = pool2(c)\n"
    "e = dense32(d) gelu dropout=0.25\n"
    "f = add(e, e)\n"
    "out = dense10(f)\n";

static void check_graph(void)
{
    tdm_layer layers[16], back[16];
    size_t n = 0, m = 0;
    CHECK_OK(tdm_graph_parse(two_branches, layers, 16, &n, NULL));
    CHECK(n == 7);
    CHECK(layers[0].kind == TDM_LAYER_CONV2D && layers[0].units == 8 &&
          layers[0].activation == TDM_ACT_RELU && layers[0].input_count == 0);
    CHECK(layers[1].kind == TDM_LAYER_CONV2D && layers[1].kernel_h == 1 &&
          layers[1].input_count == 1 && layers[1].inputs[0] == TDM_MODEL_INPUT);
    CHECK(layers[2].kind == TDM_LAYER_CONCATENATE && layers[2].input_count == 2 &&
          layers[2].inputs[0] == 0 && layers[2].inputs[1] == 1);
    CHECK(layers[3].kind == TDM_LAYER_MAX_POOL2D && layers[3].input_count == 0);
    CHECK(layers[4].activation == TDM_ACT_GELU && layers[4].dropout == 0.25f);
    CHECK(layers[5].kind == TDM_LAYER_ADD && layers[5].inputs[0] == 4 && layers[5].inputs[1] == 4);
    CHECK(layers[6].kind == TDM_LAYER_DENSE && layers[6].activation == TDM_ACT_LINEAR);
    char text[1024], again[1024];
    CHECK_OK(tdm_graph_format(layers, n, NULL, text, sizeof text));
    CHECK(strstr(text, "concatenate2 = concatenate(conv2d0, conv2d1)") != NULL);
    CHECK(strstr(text, "dense4 = dense32(max_pool2d3) gelu dropout=0.25") != NULL);
    CHECK_OK(tdm_graph_parse(text, back, 16, &m, NULL));
    CHECK(m == n && memcmp(back, layers, n * sizeof layers[0]) == 0);
    CHECK_OK(tdm_graph_format(back, m, NULL, again, sizeof again));
    CHECK(strcmp(text, again) == 0);
    CHECK_FAILS(tdm_graph_format(layers, n, NULL, text, 40), TDM_ERR_INVALID_ARGUMENT,
                "7 layers take more than 40 bytes");
    /* a stack written as a graph is that stack */
    tdm_layer stack[4];
    CHECK_OK(tdm_layers_parse("conv8k3,pool2,res1,16", stack, 4, &n));
    CHECK_OK(tdm_graph_format(stack, n, NULL, text, sizeof text));
    CHECK_OK(tdm_graph_parse(text, back, 16, &m, NULL));
    CHECK(m == 4 && memcmp(back, stack, sizeof stack) == 0);
    CHECK(back[2].kind == TDM_LAYER_RESIDUAL && back[2].skip == 1);
}

/* Each bad text refused with its line and reason. */
static void check_refusals(void)
{
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"", "no layers: give one a line"},
        {"# only a comment\n", "no layers"},
        {"a = conv8k3(input)\nb conv8k3(a)", "line 2: not NAME = ITEM(INPUTS)"},
        {"a = conv8k3(input)\nb = conv8k9x(a)", "line 2: 'conv8k9x' is not a layer: give"},
        {"a = 16(input)\nb = 16(q)", "line 2: 'q' is not a layer or input named above, nor 'input'"},
        {"x = input(3)\na = 16(input)", "line 2: 'input' is the model's one input, but this text declares"},
        {"a = 16(input)\nx = input(3)\nb = add(a, x)", "line 2: a line above read 'input'"},
        {"x = input(0)\na = 16(x)", "line 1: an input is NAME = input(WIDTH)"},
        {"x = input(3) relu\na = 16(x)", "line 1: an input is NAME = input(WIDTH)"},
        {"x = input(3)\ny = input(2)\na = 16(x)", "the input 'y' is read by no line"},
        {"x = input(3)\nx = input(2)", "line 2: a name given twice: x"},
        {"a = 16(input)\na = 16(a)", "line 2: a name given twice: a"},
        {"input = 16(input)", "line 1: a name is a letter or _"},
        {"2a = 16(input)", "line 1: a name is a letter or _"},
        {"a = 16(input)\nb = add(a)", "line 2: a merge takes 2 to 8 inputs"},
        {"a = 16(input)\nb = 16(a, input)", "line 2: a dense layer takes one input, not 2"},
        {"a = 16(input) swish", "line 1: 'swish' is neither an activation"},
        {"a = 16(input) dropout=1", "line 1: a dropout rate is a decimal in [0, 1): dropout=1"},
        {"a = 16(input) dropout=0,5", "line 1: a dropout rate is a decimal"},
        {"a = pool2(input) relu", "line 1: 'relu': a max_pool2d layer takes no activation"},
        {"a = 16(input)\nb = 16(input)\nc = res1(a)", "line 3: a residual reads the line before"},
        {"a = 16(input)\nb = add(a, a, a, a, a, a, a, a, a)", "line 2: more inputs than a layer takes"},
    };
    tdm_layer layers[4];
    size_t n = 99;
    tdm_graph_inputs inputs = {.count = 9};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_FAILS(tdm_graph_parse(bad[i].text, layers, 4, &n, &inputs), TDM_ERR_INVALID_ARGUMENT,
                    bad[i].needle);
        CHECK(n == 0 && inputs.count == 0);
    }
    CHECK_FAILS(tdm_graph_parse("x = input(3)\na = 16(x)", layers, 4, &n, NULL),
                TDM_ERR_INVALID_ARGUMENT, "line 1: this reader takes the model's one input");
    CHECK_FAILS(tdm_graph_parse("a = 16(input)\nb = 16(a)\nc = 16(b)", layers, 2, &n, NULL),
                TDM_ERR_INVALID_ARGUMENT, "line 3: at most 2 layers");
    CHECK_FAILS(tdm_layers_parse("16,conv", layers, 4, &n), TDM_ERR_INVALID_ARGUMENT,
                "'conv' is not a layer: give <units> or dense<units> (1 to 65536), "
                "conv<filters>k<size>");
    CHECK_FAILS(tdm_layers_parse("16,16,16,16,16", layers, 4, &n), TDM_ERR_INVALID_ARGUMENT,
                "at most 4 layers");
    CHECK_FAILS(tdm_graph_parse(NULL, layers, 4, &n, NULL), TDM_ERR_INVALID_ARGUMENT, "text");
}

/* Declared inputs: read in order with their widths, named by the layers that read
 * them, written back as input<k> and read again to the same model. */
static void check_inputs(void)
{
    static const char *const text = "wide = input(13)\n"
                                    "deep = input(4)\n"
                                    "a = dense16(deep) relu\n"
                                    "b = dense8(a) relu\n"
                                    "c = concatenate(wide, b)\n"
                                    "out = dense1(c)\n";
    tdm_layer layers[8], back[8];
    tdm_graph_inputs inputs, again;
    size_t n = 0, m = 0;
    CHECK_OK(tdm_graph_parse(text, layers, 8, &n, &inputs));
    CHECK(n == 4 && inputs.count == 2 && inputs.widths[0] == 13 && inputs.widths[1] == 4);
    CHECK(layers[0].input_count == 1 && layers[0].inputs[0] == TDM_MODEL_INPUT_AT(1));
    CHECK(layers[1].input_count == 0);
    CHECK(layers[2].input_count == 2 && layers[2].inputs[0] == TDM_MODEL_INPUT_AT(0) &&
          layers[2].inputs[1] == 1);
    char written[512], rewritten[512];
    CHECK_OK(tdm_graph_format(layers, n, &inputs, written, sizeof written));
    CHECK(strncmp(written, "input0 = input(13)\ninput1 = input(4)\ndense0 = dense16(input1) relu",
                  64) == 0);
    CHECK(strstr(written, "concatenate2 = concatenate(input0, dense1)") != NULL);
    CHECK_OK(tdm_graph_parse(written, back, 8, &m, &again));
    CHECK(m == n && memcmp(back, layers, n * sizeof layers[0]) == 0);
    CHECK(memcmp(&again, &inputs, sizeof inputs) == 0);
    CHECK_OK(tdm_graph_format(back, m, &again, rewritten, sizeof rewritten));
    CHECK(strcmp(written, rewritten) == 0);
}

void test_case_model_text(const test_run *run)
{
    (void)run;
    check_graph();
    check_inputs();
    check_refusals();
}
