/* The reporting pieces of `tandem train`: the metrics file (CSV and JSON), the PNG
 * plot (parsed back: chunks, CRCs, scanlines, pixels) and the progress display. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "harness.h"
#include "platform/tdm_host.h"
#include "scratch.h"
#include "metrics_file.h"
#include "plot_png.h"
#include "progress.h"

static const char *tmp_dir; /* the scratch root */

static void check_file_is(const char *path, const char *expected)
{
    char *text = (char *)scratch_read(path, NULL);
    CHECK(text && strcmp(text, expected) == 0);
    if (text && strcmp(text, expected) != 0)
        fprintf(stderr, "%s holds:\n%s\nexpected:\n%s\n", path, text, expected);
    free(text);
}

/* How many entries the scratch directory holds: no temporary file may be left. */
static size_t scratch_entries(void)
{
    return scratch_count(tmp_dir, "");
}

static const train_epoch two_epochs[2] = {
    {1, 0.5, 0.25, 0.9375, 1.5, 1000, 0.25, 0, 0, 0, 0, 0},
    {2, 0.1234567891, NAN, 0.96875, 1.25, 1200.5, 0.125, 0, 0, 0, 0, 0},
};

static const char *const run_devices[] = {"opencl:0 (pthread \"x\")", "vulkan:0 (llvmpipe)"};
static const char *const run_names[] = {"epochs", "layers"};
static const char *const run_values[] = {"2", "128,128"};
static const train_run the_run = {"0.1.0", run_devices, 2, run_names, run_values, 2};

static void test_metrics(void)
{
    char csv[SCRATCH_PATH], json[SCRATCH_PATH], err[256] = "";
    scratch_path(csv, "metrics.csv", 0);
    scratch_path(json, "metrics.json", 0);
    CHECK(metrics_write(csv, &the_run, two_epochs, 2, err, sizeof err) == 0);
    check_file_is(
        csv, "# tandem 0.1.0\n"
             "# devices: opencl:0 (pthread \"x\"); vulkan:0 (llvmpipe)\n"
             "# options: epochs=2 layers=128,128\n"
             "epoch,train_loss,test_loss,test_accuracy,seconds,examples_per_second,eval_seconds\n"
             "1,0.5,0.25,0.9375,1.5,1000,0.25\n"
             "2,0.123456789,,0.96875,1.25,1200.5,0.125\n");
    CHECK(metrics_write(json, &the_run, two_epochs, 2, err, sizeof err) == 0);
    check_file_is(json, "{\n"
                        "  \"run\": {\n"
                        "    \"tandem\": \"0.1.0\",\n"
                        "    \"devices\": [\n"
                        "      \"opencl:0 (pthread \\\"x\\\")\",\n"
                        "      \"vulkan:0 (llvmpipe)\"\n"
                        "    ],\n"
                        "    \"options\": {\n"
                        "      \"epochs\": \"2\",\n"
                        "      \"layers\": \"128,128\"\n"
                        "    }\n"
                        "  },\n"
                        "  \"epochs\": [\n"
                        "    {\n"
                        "      \"epoch\": 1,\n"
                        "      \"train_loss\": 0.5,\n"
                        "      \"test_loss\": 0.25,\n"
                        "      \"test_accuracy\": 0.9375,\n"
                        "      \"seconds\": 1.5,\n"
                        "      \"examples_per_second\": 1000,\n"
                        "      \"eval_seconds\": 0.25\n"
                        "    },\n"
                        "    {\n"
                        "      \"epoch\": 2,\n"
                        "      \"train_loss\": 0.123456789,\n"
                        "      \"test_loss\": null,\n"
                        "      \"test_accuracy\": 0.96875,\n"
                        "      \"seconds\": 1.25,\n"
                        "      \"examples_per_second\": 1200.5,\n"
                        "      \"eval_seconds\": 0.125\n"
                        "    }\n"
                        "  ]\n"
                        "}\n");
    /* Rewriting replaces the file whole; an empty record is the run and a header. */
    CHECK(metrics_write(csv, &the_run, two_epochs, 0, err, sizeof err) == 0);
    check_file_is(
        csv, "# tandem 0.1.0\n"
             "# devices: opencl:0 (pthread \"x\"); vulkan:0 (llvmpipe)\n"
             "# options: epochs=2 layers=128,128\n"
             "epoch,train_loss,test_loss,test_accuracy,seconds,examples_per_second,eval_seconds\n");
    CHECK(metrics_write(json, &the_run, two_epochs, 0, err, sizeof err) == 0);
    char *text = (char *)scratch_read(json, NULL);
    CHECK(text && strstr(text, "\n  \"epochs\": []\n}\n"));
    free(text);
    CHECK(scratch_entries() == 2);

    char missing[SCRATCH_PATH];
    scratch_path(missing, "no-such-dir/metrics.csv", 0);
    CHECK(metrics_write(missing, &the_run, two_epochs, 2, err, sizeof err) == -1);
    CHECK(strncmp(err, "cannot write ", 13) == 0 && strstr(err, missing));
    CHECK(strstr(err, "No such file or directory"));
    unlink(csv);
    unlink(json);
}

/* A text's run: its held-out tenth is the validation split, the loss per byte also in
 * bits per byte (loss / ln 2). */
static void test_text_metrics(void)
{
    const train_epoch e = {.epoch = 1, .train_loss = 3.0, .test_loss = 3.0 * TRAIN_LN2,
                           .test_accuracy = 0.5, .seconds = 2, .examples_per_second = 10,
                           .eval_seconds = 0.5, .text = 1};
    char csv[SCRATCH_PATH], json[SCRATCH_PATH], err[256] = "";
    scratch_path(csv, "text.csv", 0);
    scratch_path(json, "text.json", 0);
    CHECK(metrics_write(csv, &the_run, &e, 1, err, sizeof err) == 0);
    char *text = (char *)scratch_read(csv, NULL);
    CHECK(text && strstr(text, "\nepoch,train_loss,val_loss,val_bpb,val_accuracy,seconds,"
                               "examples_per_second,eval_seconds\n1,3,2.07944154,3,0.5,2,10,0.5\n"));
    free(text);
    CHECK(metrics_write(json, &the_run, &e, 1, err, sizeof err) == 0);
    text = (char *)scratch_read(json, NULL);
    CHECK(text && strstr(text, "\"val_loss\": 2.07944154,\n      \"val_bpb\": 3,\n") &&
          !strstr(text, "test_loss"));
    free(text);
    unlink(csv);
    unlink(json);
}

/* ---- PNG parsing ------------------------------------------------------------------ */

typedef struct png_image {
    uint32_t width, height;
    unsigned char *raw; /* the inflated scanlines: a filter byte, then 3 * width bytes */
} png_image;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Walks the chunks after the signature, checking each CRC; gathers IHDR and IDAT.
 * Returns 1 if the stream is well formed and ends with IEND. */
static int parse_chunks(const unsigned char *d, size_t size, unsigned char ihdr[13],
                        unsigned char **idat, size_t *idat_size)
{
    size_t at = 8;
    int chunks = 0;
    while (at + 12 <= size) {
        uint32_t len = be32(d + at);
        if (len > size - at - 12)
            return 0;
        const unsigned char *type = d + at + 4;
        uint32_t crc = (uint32_t)crc32(0L, type, 4 + len);
        CHECK(crc == be32(d + at + 8 + len));
        if (chunks++ == 0 && (memcmp(type, "IHDR", 4) != 0 || len != 13))
            return 0;
        if (memcmp(type, "IHDR", 4) == 0)
            memcpy(ihdr, type + 4, 13);
        if (memcmp(type, "IDAT", 4) == 0) {
            unsigned char *grown = realloc(*idat, *idat_size + len + 1);
            if (!grown)
                return 0;
            *idat = grown;
            memcpy(*idat + *idat_size, type + 4, len);
            *idat_size += len;
        }
        at += 12 + len;
        if (memcmp(type, "IEND", 4) == 0)
            return len == 0 && at == size;
    }
    return 0;
}

/* Reads and checks a PNG: signature, chunk CRCs, 8-bit RGB, zlib data of exactly
 * height scanlines. 1 on success with the image in out. */
static int png_load(const char *path, png_image *out)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t size;
    unsigned char *file = scratch_read(path, &size);
    unsigned char ihdr[13] = {0}, *idat = NULL;
    size_t idat_size = 0;
    int ok = file && size > 8 && memcmp(file, signature, 8) == 0 &&
             parse_chunks(file, size, ihdr, &idat, &idat_size);
    free(file);
    out->width = be32(ihdr);
    out->height = be32(ihdr + 4);
    ok = ok && ihdr[8] == 8 && ihdr[9] == 2 && ihdr[10] == 0 && ihdr[11] == 0 && ihdr[12] == 0;
    uLongf raw_size = (uLongf)(out->width * 3 + 1) * out->height;
    out->raw = ok ? malloc(raw_size) : NULL;
    ok = out->raw && uncompress(out->raw, &raw_size, idat, idat_size) == Z_OK &&
         raw_size == (uLongf)(out->width * 3 + 1) * out->height;
    free(idat);
    return ok;
}

static uint32_t pixel(const png_image *img, uint32_t x, uint32_t y)
{
    const unsigned char *p = img->raw + (size_t)y * (img->width * 3 + 1) + 1 + x * 3;
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* Pixels of the colour in columns [x0, x1), rows [y0, y1). */
static size_t count_color(const png_image *img, uint32_t color, uint32_t x0, uint32_t x1,
                          uint32_t y0, uint32_t y1)
{
    size_t count = 0;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = x0; x < x1; x++)
            count += pixel(img, x, y) == color;
    return count;
}

static void check_plot(const char *path)
{
    png_image img = {0};
    CHECK(png_load(path, &img));
    if (!img.raw)
        return;
    CHECK(img.width == 800 && img.height == 400);
    int filters_zero = 1;
    for (uint32_t y = 0; y < img.height; y++)
        filters_zero &= img.raw[(size_t)y * (img.width * 3 + 1)] == 0;
    CHECK(filters_zero);
    uint32_t half = img.width / 2;
    CHECK(count_color(&img, PLOT_TRAIN_LOSS, 0, half, 0, img.height) > 0);
    CHECK(count_color(&img, PLOT_TEST_LOSS, 0, half, 0, img.height) > 0);
    CHECK(count_color(&img, PLOT_ACCURACY, half, img.width, 0, img.height) > 0);
    CHECK(count_color(&img, PLOT_ACCURACY, 0, half, 0, img.height) == 0);
    CHECK(count_color(&img, PLOT_TRAIN_LOSS, half, img.width, 0, img.height) == 0);
    size_t background = count_color(&img, PLOT_BACKGROUND, 0, img.width, 0, img.height);
    CHECK(background > (size_t)img.width * img.height * 3 / 4);
    /* The y tick labels, left of each plot area. */
    for (uint32_t panel = 0; panel < 2; panel++)
        CHECK(count_color(&img, PLOT_TEXT, panel * half, panel * half + PLOT_AREA_LEFT - 4,
                          PLOT_AREA_TOP - 4, PLOT_AREA_BOTTOM + 4) > 20);
    free(img.raw);
}

static void test_plot(void)
{
    train_epoch e[12];
    for (unsigned i = 0; i < 12; i++) {
        double t = i / 11.0;
        e[i] = (train_epoch){i + 1,
                             2.3 * exp(-3 * t),
                             2.4 * exp(-2.5 * t) + 0.05,
                             0.1 + 0.85 * (1 - exp(-4 * t)),
                             0.4,
                             3500,
                             0.1,
                             0,
                             0,
                             0,
                             0,
                             0};
    }
    e[5].test_loss = NAN; /* left out: the test curve breaks there */
    e[7].test_accuracy = INFINITY;
    char path[SCRATCH_PATH], err[256] = "";
    scratch_path(path, "plot.png", 0);
    CHECK(plot_write_png(path, e, 12, err, sizeof err) == 0);
    check_plot(path);

    /* One epoch, constant values: the ranges still have a width, the points show. */
    train_epoch one = {1, 0.5, 0.5, 1.0, 0.1, 100, 0.01, 0, 0, 0, 0, 0};
    CHECK(plot_write_png(path, &one, 1, err, sizeof err) == 0);
    check_plot(path);
    CHECK(plot_write_png(path, e, 0, err, sizeof err) == 0);
    CHECK(scratch_entries() == 1);
    remove(path);

    scratch_path(path, "no-such-dir/plot.png", 0);
    CHECK(plot_write_png(path, e, 12, err, sizeof err) == -1);
    CHECK(strncmp(err, "cannot write ", 13) == 0 && strstr(err, path));
}

/* ---- progress --------------------------------------------------------------------- */

static const train_epoch epoch3 = {3, 0.1234, 0.1502, 0.9639, 0.41, 3508, 0.05, 0, 0, 0, 0, 0};
static const char epoch3_line[] = "epoch  3/30  23 steps  0.41 s  56.1 steps/s  3508 ex/s  "
                                  "loss 0.1234  eval 0.05 s  test loss 0.1502  test acc 96.39%\n";

/* Epoch 3 of 30: 23 steps of 64 examples, 10 ms each, fitted to `columns`. */
static char *run_epoch(int tty, int columns)
{
    FILE *f = scratch_text_open();
    if (!f)
        return NULL;
    progress p;
    progress_begin(&p, f, tty, 30, 23);
    p.columns = columns;
    for (size_t step = 1; step <= 23; step++)
        progress_step(&p, 3, step, step == 1 ? 0.5 : 0.1234, step * 64, step * 0.01);
    progress_epoch(&p, &epoch3, 23);
    return scratch_text_take(f);
}

static size_t count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

static void test_progress(void)
{
    char *plain = run_epoch(0, 40); /* plain lines are whole, whatever the width */
    CHECK(plain && strcmp(plain, epoch3_line) == 0);
    free(plain);

    char *bar = run_epoch(1, 120);
    CHECK(bar != NULL);
    if (!bar)
        return;
    /* Drawn at steps 1, 11 and 22 (at most 10 a second), then the epoch line. The ETA
     * is this epoch's pace over the run's 27 * 23 + 22 steps left after step 1. */
    CHECK(count_char(bar, '\r') == 4 && count_char(bar, '\n') == 1);
    static const char first[] = "\repoch  3/30 [....................]  1/23  100.0 steps/s  "
                                "6400 ex/s  loss 0.5000  eta 0:06\r";
    CHECK(strncmp(bar, first, sizeof first - 1) == 0);
    CHECK(strstr(bar, "\repoch  3/30 [#########...........] 11/23  100.0 steps/s  6400 ex/s"));
    const char *last = strrchr(bar, '\r');
    CHECK(strncmp(last + 1, epoch3_line, strlen(epoch3_line) - 1) == 0);
    CHECK(bar[strlen(bar) - 1] == '\n');
    free(bar);
}

/* The longest run of characters between line controls: what one draw shows. */
static size_t widest_draw(const char *s)
{
    size_t widest = 0, run = 0;
    for (; *s; s++) {
        run = *s == '\r' || *s == '\n' ? 0 : run + 1;
        widest = run > widest ? run : widest;
    }
    return widest;
}

/* At 60, 80 and 120 columns every draw stays off the last column (a line that wraps
 * leaves a copy of itself behind at each redraw), keeping the loss, the ETA and the
 * test accuracy; the bar gives way to the rates, then shrinks. */
static void test_progress_fits(void)
{
    static const struct {
        int columns;
        const char *has, *lacks;
    } cases[] = {{60, "eta 0:", "steps/s"},
                 {80, "ex/s  loss 0.1234  eta 0:0", "....................]"},
                 {120, "[###################.] 22/23", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = run_epoch(1, cases[i].columns);
        CHECK(text && widest_draw(text) <= (size_t)cases[i].columns - 1);
        CHECK(text && strstr(text, "] 11/23") && strstr(text, cases[i].has));
        CHECK(text && (!cases[i].lacks || !strstr(text, cases[i].lacks)));
        CHECK(text && strstr(text, "loss 0.1234  ") &&
              strstr(text, "test loss 0.1502  test acc 96.39%"));
        if (text && widest_draw(text) > (size_t)cases[i].columns - 1)
            fprintf(stderr, "%d columns:\n%s\n", cases[i].columns, text);
        free(text);
    }
    char *narrow = run_epoch(1, 20); /* narrower than what must show: cut */
    CHECK(narrow && widest_draw(narrow) == 19);
    free(narrow);
}

/* Extreme numbers stay within the width; the ETA counts hours. */
static void test_progress_extremes(void)
{
    FILE *f = scratch_text_open();
    CHECK(f != NULL);
    if (!f)
        return;
    progress p;
    progress_begin(&p, f, 1, 4000000000u, (size_t)1 << 40);
    p.columns = 100;
    progress_step(&p, 3999999999u, (size_t)1 << 39, -1e300, (size_t)1 << 50, 1e-9);
    progress_begin(&p, f, 1, 20, 100);
    p.columns = 100;
    progress_step(&p, 1, 10, 0.5, 640, 60.0); /* 6 s a step, 19 * 100 + 90 steps left */
    char *text = scratch_text_take(f);
    CHECK(text && text[0] == '\r' && widest_draw(text) <= 99);
    CHECK(text && strstr(text, "  eta 3:19:00"));
    free(text);
}

/* Off a terminal the width comes from $COLUMNS, else 80. */
static void test_progress_columns(void)
{
    progress p;
    progress_begin(&p, stderr, 1, 1, 1);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    p.out = f;
    tdm_host_setenv("COLUMNS", "72", 1);
    CHECK(progress_columns(&p) == 72);
    tdm_host_unsetenv("COLUMNS");
    CHECK(progress_columns(&p) == 80);
    p.columns = 33;
    CHECK(progress_columns(&p) == 33);
    fclose(f);
}

void test_case_report(const test_run *run)
{
    (void)run;
    tmp_dir = scratch_root("tdm_report");
    test_metrics();
    test_text_metrics();
    test_plot();
    test_progress();
    test_progress_fits();
    test_progress_extremes();
    test_progress_columns();
}
