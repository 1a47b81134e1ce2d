/* tandem train's options: every value is checked as it is read (no wrapping, no NaN,
 * no silent default), the message names the option and its range, and a mistyped
 * option gets the nearest one suggested. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "scratch.h"
#include "train_options.h"

/* Splits a command line at spaces into argv (after "train"). */
static int split(char *line, char **argv, int max)
{
    int argc = 0;
    argv[argc++] = "train";
    for (char *t = strtok(line, " "); t && argc < max; t = strtok(NULL, " "))
        argv[argc++] = t;
    return argc;
}

static cli_result read_line(const char *line, train_options *o, char *err, size_t err_size)
{
    static char copy[512];
    char *argv[32];
    snprintf(copy, sizeof copy, "%s", line);
    err[0] = '\0';
    return train_options_read(split(copy, argv, 32), argv, o, err, err_size);
}

/* A command line that must be refused with a message containing `needle`. */
static void refused_(const char *line, const char *needle, int at)
{
    train_options o;
    char err[512];
    cli_result r = read_line(line, &o, err, sizeof err);
    if (r != CLI_ERROR || !strstr(err, needle)) {
        test_failures++;
        fprintf(stderr, "line %d: '%s': got %d '%s', expected an error with '%s'\n", at, line,
                (int)r, err, needle);
    }
}
#define REFUSED(line, needle) refused_(line, needle, __LINE__)

static train_options accepted_(const char *line, int at)
{
    train_options o;
    char err[512];
    if (read_line(line, &o, err, sizeof err) != CLI_OK) {
        test_failures++;
        fprintf(stderr, "line %d: '%s' refused: %s\n", at, line, err);
    }
    return o;
}
#define ACCEPTED(line) accepted_(line, __LINE__)

static void test_refusals(void)
{
    /* The values a user found wrapping or replaced without a word. */
    REFUSED("--epochs -3", "--epochs: '-3' is not a whole number from 1 to 1000000");
    REFUSED("--conv gemm", "--conv: no convolution algorithm 'gemm' (auto, direct, lowered, "
                           "measured, implicit, winograd)");
    REFUSED("--conv direct --mixed-precision",
            "--conv direct: --mixed-precision's f16 operands are a matrix product's");
    REFUSED("--f16-activations --conv direct",
            "--conv direct: --mixed-precision's f16 operands are a matrix product's");
    REFUSED("--conv implicit --mixed-precision",
            "--conv implicit: --mixed-precision's f16 operands are a matrix product's");
    REFUSED("--f16-activations --conv winograd",
            "--conv winograd: --mixed-precision's f16 operands are a matrix product's");
    REFUSED("--mixed-products f16", "--mixed-products f16 is for --mixed-precision");
    REFUSED("--mixed-products bf16 --mixed-precision",
            "--mixed-products: no choice of products 'bf16'; did you mean f16? (measured, f16, "
            "f32)");
    REFUSED("--f16-activations --mixed-products f32",
            "--mixed-products f32 with --f16-activations: the stored f16 activations are the "
            "products' operands");
    REFUSED("--epochs -1", "--epochs: '-1' is not a whole number");
    REFUSED("--epochs 4294967296", "--epochs: 4294967296 is out of range");
    REFUSED("--epochs 0", "from 1 to 1000000");
    REFUSED("--epochs 18446744073709551616", "out of range");
    REFUSED("--epochs 3x", "'3x' is not a whole number");
    REFUSED("--epochs 1e3", "not a whole number");
    REFUSED("--lr nan", "--lr: 'nan' is not a finite number: expected a number x with 0 < x");
    REFUSED("--lr inf", "not a finite number");
    REFUSED("--lr -1", "--lr: -1 is out of range");
    REFUSED("--lr 0", "0 < x <= 1000");
    REFUSED("--lr 1e-50", "as a 32-bit float");
    REFUSED("--lr 0.1.", "not a number");
    REFUSED("--label-column 4294967296",
            "--label-column: 4294967296 is out of range: expected a whole number from 0");
    REFUSED("--label-column -1", "neither a column index");
    REFUSED("--label-column +5", "neither a column index");
    REFUSED("--skip-rows -1", "--skip-rows: '-1' is not a whole number from 0 to 1000000000");
    REFUSED("--skip-rows 1000000001", "out of range");
    REFUSED("--label-column name", "a column name needs --header");
    REFUSED("--batch -3", "--batch: '-3' is not a whole number from 1 to 1048576");
    REFUSED("--batch 4611686018427387904", "--batch: 4611686018427387904 is out of range");
    REFUSED("--batch 0", "from 1 to");
    REFUSED("--test-fraction 1.5", "--test-fraction: 1.5 is out of range: expected a number x "
                                   "with 0 < x < 1");
    REFUSED("--test-fraction 0", "out of range");
    REFUSED("--test-fraction -0.5", "out of range");
    REFUSED("--dropout 1", "0 <= x < 1");
    REFUSED("--dropout -0.1", "out of range");
    REFUSED("--seed -1", "--seed: '-1' is not a whole number from 0 to 18446744073709551615");
    REFUSED("--seed 18446744073709551616", "out of range");
    REFUSED("--layers 0", "--layers: '0' is not a layer");
    REFUSED("--layers 128,,3", "'' is not a layer");
    REFUSED("--layers 128,", "'' is not a layer");
    REFUSED("--layers 99999999999999999999",
            "is not a layer: give <units> or dense<units> (1 to 65536)");
    REFUSED("--layers 65537", "'65537' is not a layer");
    REFUSED("--layers conv32", "'conv32' is not a layer");
    REFUSED("--layers conv32k0", "'conv32k0' is not a layer");
    REFUSED("--layers conv32k3s0", "'conv32k3s0' is not a layer");
    REFUSED("--layers pool2same", "'pool2same' is not a layer");
    REFUSED("--layers dense", "'dense' is not a layer");
    REFUSED("--input-shape 28x28", "'28x28' is not HEIGHTxWIDTHxCHANNELS");
    REFUSED("--input-shape 28x0x1", "'28x0x1' is not HEIGHTxWIDTHxCHANNELS");
    REFUSED("--input-shape 28x28x1x", "'28x28x1x' is not HEIGHTxWIDTHxCHANNELS");
    REFUSED("--layers block1,block1,block1,block1,block1,block1,block1,block1,block1,block1,"
            "block1,ln",
            "at most 64 layers (a block is 6)");
    REFUSED("--layers block1,block1,block1,block1,block1,block1,block1,block1,block1,block1,"
            "1,1,1,1,1",
            "at most 64 layers");
    REFUSED("--layers 8,res0", "'res0' is not a layer");
    REFUSED("--layers 8,res", "'res' is not a layer");
    REFUSED("--layers emb17,8", "'emb17' is not a layer");
    REFUSED("--layers emb16777217x2", "'emb16777217x2' is not a layer");
    REFUSED("--devices a,,b", "has an empty device id");
    REFUSED("--devices "
            "0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2",
            "more than 32 device ids");
    REFUSED("--activation rleu", "--activation: no activation 'rleu'");
    REFUSED("--optimizer adm", "--optimizer: no optimizer 'adm'; did you mean adam? (sgd, ");
    REFUSED("--strategy mirored", "no strategy 'mirored'; did you mean mirrored?");
    REFUSED("--lr-decay cos", "no learning-rate decay 'cos'; did you mean cosine? (none, cosine)");
    /* Names, values and the rules between options. */
    REFUSED("--epoch 3", "unknown option --epoch; did you mean --epochs?");
    REFUSED("--chekpoint-dir x", "did you mean --checkpoint-dir?");
    REFUSED("--zzzzzz", "unknown option --zzzzzz (--help lists the options)");
    REFUSED("--epochs", "--epochs needs a value");
    REFUSED("--data --epochs 3", "--data needs a value");
    REFUSED("--header=1", "--header takes no value");
    REFUSED("stray", "unexpected argument 'stray'");
    REFUSED("--resume", "--resume needs --checkpoint-dir");
    REFUSED("--data a --labels b --header", "--labels reads IDX files");
    REFUSED("--data a --labels b --skip-rows 1", "--skip-rows are for CSV");
    REFUSED("--test-labels t", "--test-data and --test-labels go with --data and --labels");
    REFUSED("--data a --labels b --test-data t", "IDX images and labels for both");
    REFUSED("--checkpoint-dir d --resume --allow-config-change lt",
            "no item 'lt'; did you mean lr?");
    REFUSED("--allow-config-change lr", "--allow-config-change is for --resume");
    REFUSED("--strategy parameter-server --ps-processes 1 --lr-decay cosine",
            "the steps the rate decays over are not known in advance");
}

/* The compact description: each item's fields, and its canonical text read back. */
static void test_layer_spec(void)
{
    train_options o =
        ACCEPTED("--layers conv32k5x3s2valid,pool3s2,maxpool2,avgpool2x1,dense10,conv8k3s1 "
                 "--input-shape 28x14x3");
    const tdm_layer *h = o.hidden;
    CHECK(o.hidden_count == 6);
    CHECK(h[0].kind == TDM_LAYER_CONV2D && h[0].units == 32 && h[0].kernel_h == 5 &&
          h[0].kernel_w == 3 && h[0].stride_h == 2 && h[0].stride_w == 2 &&
          h[0].padding == TDM_PADDING_VALID);
    CHECK(h[1].kind == TDM_LAYER_MAX_POOL2D && h[1].kernel_h == 3 && h[1].stride_w == 2 &&
          h[1].padding == TDM_PADDING_SAME);
    CHECK(h[2].kind == TDM_LAYER_MAX_POOL2D && h[2].kernel_w == 2 && h[2].stride_h == 0);
    CHECK(h[3].kind == TDM_LAYER_AVG_POOL2D && h[3].kernel_h == 2 && h[3].kernel_w == 1);
    CHECK(h[4].kind == TDM_LAYER_DENSE && h[4].units == 10);
    CHECK(h[5].kind == TDM_LAYER_CONV2D && h[5].stride_h == 1);
    CHECK(o.input_shape[0] == 28 && o.input_shape[1] == 14 && o.input_shape[2] == 3);
    char text[256];
    tdm_layers_format(h, o.hidden_count, text, sizeof text);
    CHECK(!strcmp(text, "conv32k5x3s2valid,pool3s2,pool2,avgpool2x1,10,conv8k3"));
    tdm_layer back[MAX_LAYERS];
    size_t n = 0;
    CHECK(tdm_layers_parse(text, back, MAX_LAYERS, &n) == TDM_OK && n == 6);
    CHECK(back[0].kind == h[0].kind && back[0].units == 32 && back[0].kernel_w == 3 &&
          back[0].stride_w == 2 && back[0].padding == TDM_PADDING_VALID && back[5].units == 8);
    o = ACCEPTED("--layers 16,bn,16,res2,ln");
    CHECK(o.hidden_count == 5 && h[3].kind == TDM_LAYER_RESIDUAL && h[3].skip == 2 &&
          h[1].kind == TDM_LAYER_BATCH_NORM && h[4].kind == TDM_LAYER_LAYER_NORM);
    CHECK(!tdm_layers_need_image(h, o.hidden_count)); /* normalising a flat input keeps it flat */
    tdm_layers_format(h, o.hidden_count, text, sizeof text);
    CHECK(!strcmp(text, "16,bn,16,res2,ln"));
    CHECK(o.standardize == 1);
    o = ACCEPTED("--layers emb17x4,conv8k3,pool2,16"); /* ids are not standardised */
    CHECK(h[0].kind == TDM_LAYER_EMBEDDING && h[0].vocab == 17 && h[0].units == 4 &&
          o.standardize == 0);
    tdm_layers_format(h, o.hidden_count, text, sizeof text);
    CHECK(!strcmp(text, "emb17x4,conv8k3,pool2,16"));
}

static void test_acceptance(void)
{
    train_options o = ACCEPTED("");
    CHECK(o.epochs == 10 && o.batch == 64 && o.lr == 0.0f && o.seed == 1);
    CHECK(o.hidden_count == 2 && o.hidden[1].units == 128 && fabs(o.test_fraction - 0.2) < 1e-12);
    o = ACCEPTED("--epochs 1000000 --batch=1048576 --lr 1000 --seed 18446744073709551615");
    CHECK(o.epochs == 1000000 && o.batch == 1048576 && o.lr == 1000.0f);
    CHECK(o.seed == UINT64_MAX);
    o = ACCEPTED("--layers 3,65536 --dropout 0 --test-fraction 0.999 --label-column 2147483646");
    CHECK(o.hidden_count == 2 && o.hidden[0].units == 3 && o.hidden[1].units == 65536 &&
          o.dropout == 0.0f);
    CHECK(o.hidden[0].kind == TDM_LAYER_DENSE && o.hidden[1].kind == TDM_LAYER_DENSE);
    CHECK(o.label_column && !strcmp(o.label_column, "2147483646"));
    o = ACCEPTED("--devices opencl:0,vulkan:0 --strategy one-device --no-progress --header "
                 "--label-column class --epochs 2 --epochs 3");
    CHECK(o.devices.count == 2 && !strcmp(o.devices.item[1], "vulkan:0"));
    CHECK(o.strategy == TDM_STRATEGY_ONE_DEVICE && o.progress == 0 && o.epochs == 3);
    o = ACCEPTED("--balance");
    CHECK(o.balance == 1 && !o.mixed_precision && !o.f16_all_reduce && o.loss_scale == 0.0f);
    CHECK(!strcmp(o.lr_decay, "none"));
    o = ACCEPTED("--lr-decay cosine --strategy parameter-server");
    CHECK(!strcmp(o.lr_decay, "cosine"));
    o = ACCEPTED("--mixed-precision"); /* f16 gradients need a loss scale */
    CHECK(o.mixed_precision == 1 && o.loss_scale == 32768.0f);
    CHECK(o.mixed_products == TDM_MIXED_MEASURED);
    o = ACCEPTED("--mixed-precision --mixed-products f32");
    CHECK(o.mixed_precision == 1 && o.mixed_products == TDM_MIXED_F32);
    o = ACCEPTED("--loss-scale 1024 --mixed-precision");
    CHECK(o.mixed_precision == 1 && o.loss_scale == 1024.0f);
    CHECK(ACCEPTED("").conv == TDM_CONV_AUTO);
    o = ACCEPTED("--conv measured --mixed-precision");
    CHECK(o.conv == TDM_CONV_MEASURED && o.mixed_precision);
    o = ACCEPTED("--f16-all-reduce"); /* f16 sums need a loss scale too */
    CHECK(o.f16_all_reduce == 1 && !o.mixed_precision && o.loss_scale == 32768.0f);
    CHECK(!o.f16_activations);
    o = ACCEPTED("--f16-activations"); /* stored halves are the products' operands */
    CHECK(o.f16_activations && o.mixed_precision && o.loss_scale == 32768.0f);
    o = ACCEPTED("--skip-rows 1 --test-data t.csv --save m.safetensors");
    CHECK(o.skip_rows == 1 && !strcmp(o.test_data, "t.csv") && !strcmp(o.save, "m.safetensors"));
    o = ACCEPTED("--checkpoint-dir d --resume --optimizer SGD --activation tanh");
    CHECK(o.resume && !strcmp(o.checkpoint_dir, "d") && !strcmp(o.optimizer, "SGD"));
    CHECK(o.allow_config_change == 0);
    o = ACCEPTED("--checkpoint-dir d --resume --allow-config-change lr,batch");
    train_options all = ACCEPTED("--checkpoint-dir d --resume --allow-config-change all");
    CHECK(o.allow_config_change &&
          (o.allow_config_change & all.allow_config_change) == o.allow_config_change);
    CHECK(o.allow_config_change != all.allow_config_change);
    train_options h;
    char err[64];
    CHECK(read_line("--epochs 3 --help", &h, err, sizeof err) == CLI_HELP);
}

/* Every name the library lists is accepted, and an unknown one's message lists them
 * all: the CLI keeps no list of its own to fall behind. */
static void test_library_names(void)
{
    static const struct {
        const char *option;
        const char *const *(*names)(void);
    } lists[] = {{"--activation", tdm_activation_names},
                 {"--optimizer", tdm_optimizer_kind_names},
                 {"--conv", tdm_conv_algorithm_names}};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        const char *const *names = lists[l].names();
        char line[128], err[512];
        train_options o;
        for (size_t i = 0; names[i]; i++) {
            snprintf(line, sizeof line, "%s %s", lists[l].option, names[i]);
            ACCEPTED(line);
        }
        snprintf(line, sizeof line, "%s bogus", lists[l].option);
        CHECK(read_line(line, &o, err, sizeof err) == CLI_ERROR);
        CHECK(strstr(err, lists[l].option) == err && strstr(err, "'bogus'"));
        for (size_t i = 0; names[i]; i++)
            if (!strstr(err, names[i])) {
                test_failures++;
                fprintf(stderr, "'%s': '%s' does not list %s\n", line, err, names[i]);
            }
    }
}

/* Every layer kind the library lists has a --layers form whose example reads back as
 * that kind, and the help names the kind. */
static void test_layer_kinds(const char *help)
{
    const char *const *kinds = tdm_layer_kind_names();
    for (size_t k = 0; kinds[k]; k++) {
        const char *example = tdm_layer_example((tdm_layer_kind)k);
        tdm_layer layers[2];
        size_t count = 0;
        char line[64];
        snprintf(line, sizeof line, "  %s: ", kinds[k]); /* a line of its own */
        if (!example || tdm_layers_parse(example, layers, 2, &count) != TDM_OK ||
            count != 1 || layers[0].kind != (tdm_layer_kind)k || !strstr(help, line)) {
            test_failures++;
            fprintf(stderr,
                    "layer kind %s: no --layers form that reads back, or not in the "
                    "help\n",
                    kinds[k]);
        }
    }
}

/* tandem train --help: generated from the table, so every option is there, each with
 * its help, and the names each library list holds under its option. */
static void test_help(void)
{
    FILE *out = scratch_text_open();
    CHECK(out != NULL);
    if (!out)
        return;
    train_options_usage(out);
    char *help = scratch_text_take(out);
    CHECK(help != NULL);
    if (!help)
        return;
    static const char start[] = "usage: tandem train [OPTIONS]\n\nTrains ";
    CHECK(strncmp(help, start, strlen(start)) == 0);
    static const char *const options[] = {"--data FILE ", "--layers LIST ", "--activation NAME ",
                                          "--allow-config-change ITEMS ", "--no-progress "};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        CHECK(strstr(help, options[i]) != NULL);
    static const struct {
        const char *line;
        const char *const *(*names)(void);
    } lists[] = {{"NAME: linear", tdm_activation_names},
                 {"NAME: sgd", tdm_optimizer_kind_names},
                 {"HOW: auto", tdm_conv_algorithm_names}};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        const char *at = strstr(help, lists[l].line);
        const char *const *names = lists[l].names();
        for (size_t i = 0; names[i]; i++)
            if (!at || !strstr(at, names[i])) {
                test_failures++;
                fprintf(stderr, "--help does not list %s after '%s'\n", names[i], lists[l].line);
            }
    }
    int wide = 0;
    for (const char *p = help; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
        wide += strcspn(p, "\n") > 80;
    CHECK(wide == 0);
    /* each option once: a table entry written twice would print twice */
    for (const char *p = strstr(help, "\n  -"); p; p = strstr(p + 1, "\n  -")) {
        const char *name = strstr(p, "--");
        size_t len = strcspn(name, " \n");
        char line[64];
        snprintf(line, sizeof line, "\n  %.*s ", (int)len, name);
        const char *first = strstr(help, line), *again = first ? strstr(first + 1, line) : NULL;
        if (name[0] == '-' && name - p < 8 && again) {
            test_failures++;
            fprintf(stderr, "--help lists %.*s twice\n", (int)len, name);
        }
    }
    test_layer_kinds(help);
    free(help);
}

static void test_nearest(void)
{
    static const char *const names[] = {"--epochs", "--checkpoint-dir", "--lr", "--labels"};
    CHECK(cli_nearest("--epoch", names, 4) == names[0]);
    CHECK(cli_nearest("--epohcs", names, 4) == names[0]);
    CHECK(cli_nearest("--check", names, 4) == names[1]);
    CHECK(cli_nearest("--lt", names, 4) == names[2]);
    CHECK(cli_nearest("--label", names, 4) == names[3]);
    CHECK(cli_nearest("--bogus", names, 4) == NULL);
    CHECK(cli_nearest("-", names, 4) == NULL);
    CHECK(cli_nearest("--", names, 4) == NULL);
}

/* What the other commands' tables use: short names, sizes with units, lists that
 * repeat, and choices among names. */
static void test_table_kinds(void)
{
    size_t bytes = 0;
    unsigned count = 0;
    int choice = -1;
    cli_list list = {.what = "device id", .max = 3};
    const cli_option table[] = {
        {CLI_ENTRY("--maxbytes", "-e", CLI_BYTES, &bytes), .min = 4, .max = (uint64_t)1 << 40},
        {CLI_ENTRY("--iters", "-n", CLI_UNSIGNED, &count), .min = 1, .max = 9},
        {CLI_ENTRY("--devices", "-d", CLI_CUSTOM, &list), .parse = cli_parse_list},
    };
    char err[256], *ok[] = {"x", "-e", "256M", "-n", "3", "-d", "a,b", "--devices", "c"};
    CHECK(cli_parse(table, 3, 9, ok, err, sizeof err) == CLI_OK);
    CHECK(bytes == (size_t)256 << 20 && count == 3 && list.count == 3);
    CHECK(!strcmp(list.item[0], "a") && !strcmp(list.item[2], "c"));
    char *too_many[] = {"x", "-d", "d"};
    CHECK(cli_parse(table, 3, 3, too_many, err, sizeof err) == CLI_ERROR);
    CHECK(strstr(err, "--devices: more than 3 device ids") != NULL);
    char *help[] = {"x", "-h"};
    CHECK(cli_parse(table, 3, 2, help, err, sizeof err) == CLI_HELP);
    static const struct {
        const char *value, *needle;
    } bad_sizes[] = {{"3", "out of range"},
                     {"1T", "not a size"},
                     {"2G5", "not a size"},
                     {"-1K", "not a size"},
                     {"17179869184G", "out of range"}};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        char *argv[] = {"x", "-e", (char *)bad_sizes[i].value};
        CHECK(cli_parse(table, 3, 3, argv, err, sizeof err) == CLI_ERROR);
        CHECK(strstr(err, "--maxbytes: ") == err && strstr(err, bad_sizes[i].needle) != NULL);
    }
    char *small_k[] = {"x", "--maxbytes=8k"};
    CHECK(cli_parse(table, 3, 2, small_k, err, sizeof err) == CLI_OK && bytes == 8192);
    char *unknown_short[] = {"x", "-q", "1"};
    CHECK(cli_parse(table, 3, 3, unknown_short, err, sizeof err) == CLI_ERROR);
    CHECK(strstr(err, "unknown option -q") != NULL);

    static const char *const models[] = {"digits", "wide", NULL};
    choice = cli_parse_choice("wide", "model", models, err, sizeof err);
    CHECK(choice == 1);
    choice = cli_parse_choice("digit", "model", models, err, sizeof err);
    CHECK(choice == -1 && !strcmp(err, "no model 'digit'; did you mean digits? (digits, wide)"));
}

void test_case_cli_options(const test_run *run)
{
    (void)run;
    test_refusals();
    test_acceptance();
    test_layer_spec();
    test_library_names();
    test_help();
    test_nearest();
    test_table_kinds();
}
