#include <math.h>
#include <stdio.h>

#include "plot_axis.h"
#include "plot_canvas.h"
#include "plot_png.h"
#include "png_write.h"

#define TICK_LENGTH 4
#define TITLE_SCALE 2

typedef double (*series_value)(const train_epoch *e);

static double train_loss(const train_epoch *e)
{
    return e->train_loss;
}

static double test_loss(const train_epoch *e)
{
    return e->test_loss;
}

static double accuracy_percent(const train_epoch *e)
{
    return e->test_accuracy * 100.0;
}

static double r2(const train_epoch *e)
{
    return e->test_r2;
}

/* One panel: its plot area in image pixels and its axes. */
typedef struct panel {
    canvas *c;
    int left, right, top, bottom;
    plot_axis x, y;
} panel;

static void panel_place(panel *p, canvas *c, int index)
{
    int origin = index * (PLOT_WIDTH / 2);
    p->c = c;
    p->left = origin + PLOT_AREA_LEFT;
    p->right = origin + PLOT_AREA_RIGHT;
    p->top = PLOT_AREA_TOP;
    p->bottom = PLOT_AREA_BOTTOM;
}

/* Where v falls between a's ends, 0..1, clamped. */
static double fraction(const plot_axis *a, double v)
{
    double f = (v - a->lo) / (a->hi - a->lo);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

static int panel_x(const panel *p, double v)
{
    return p->left + (int)lround(fraction(&p->x, v) * (p->right - p->left));
}

static int panel_y(const panel *p, double v)
{
    return p->bottom - (int)lround(fraction(&p->y, v) * (p->bottom - p->top));
}

/* Widens [*min, *max] by the series' finite values. */
static void series_range(const train_epoch *e, size_t n, series_value value, double *min,
                         double *max)
{
    for (size_t i = 0; i < n; i++) {
        double v = value(&e[i]);
        if (isfinite(v)) {
            *min = v < *min ? v : *min;
            *max = v > *max ? v : *max;
        }
    }
}

static plot_axis epoch_axis(const train_epoch *e, size_t n)
{
    double min = INFINITY, max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        min = e[i].epoch < min ? e[i].epoch : min;
        max = e[i].epoch > max ? e[i].epoch : max;
    }
    return plot_axis_fit(min, max, 1);
}

/* Grid lines, tick marks and labels along the y axis. */
static void draw_y_ticks(panel *p, const char *suffix)
{
    for (int i = 0; i < plot_axis_tick_count(&p->y); i++) {
        double v = plot_axis_tick(&p->y, i);
        int y = panel_y(p, v);
        char label[32];
        plot_axis_label(&p->y, v, suffix, label, sizeof label);
        canvas_line(p->c, p->left + 1, y, p->right - 1, y, PLOT_GRID);
        canvas_line(p->c, p->left - TICK_LENGTH, y, p->left, y, PLOT_AXIS);
        canvas_text(p->c, p->left - TICK_LENGTH - 3 - canvas_text_width(label, 1),
                    y - canvas_text_height(1) / 2, label, PLOT_TEXT, 1);
    }
}

/* Grid lines, tick marks and labels along the x axis, and its name. */
static void draw_x_ticks(panel *p)
{
    for (int i = 0; i < plot_axis_tick_count(&p->x); i++) {
        double v = plot_axis_tick(&p->x, i);
        int x = panel_x(p, v);
        char label[32];
        plot_axis_label(&p->x, v, "", label, sizeof label);
        canvas_line(p->c, x, p->top + 1, x, p->bottom - 1, PLOT_GRID);
        canvas_line(p->c, x, p->bottom, x, p->bottom + TICK_LENGTH, PLOT_AXIS);
        canvas_text(p->c, x - canvas_text_width(label, 1) / 2, p->bottom + TICK_LENGTH + 4, label,
                    PLOT_TEXT, 1);
    }
    const char *name = "epoch";
    canvas_text(p->c, (p->left + p->right - canvas_text_width(name, 1)) / 2,
                p->bottom + TICK_LENGTH + 20, name, PLOT_TEXT, 1);
}

static void draw_frame(panel *p, const char *title, const char *y_suffix)
{
    draw_y_ticks(p, y_suffix);
    draw_x_ticks(p);
    canvas_line(p->c, p->left, p->top, p->right, p->top, PLOT_AXIS);
    canvas_line(p->c, p->left, p->bottom, p->right, p->bottom, PLOT_AXIS);
    canvas_line(p->c, p->left, p->top, p->left, p->bottom, PLOT_AXIS);
    canvas_line(p->c, p->right, p->top, p->right, p->bottom, PLOT_AXIS);
    int height = canvas_text_height(TITLE_SCALE);
    canvas_text(p->c, (p->left + p->right - canvas_text_width(title, TITLE_SCALE)) / 2,
                p->top - height - 10, title, PLOT_TEXT, TITLE_SCALE);
}

/* A 2-pixel-wide segment. */
static void thick_line(canvas *c, int x0, int y0, int x1, int y1, canvas_color color)
{
    canvas_line(c, x0, y0, x1, y1, color);
    canvas_line(c, x0 + 1, y0, x1 + 1, y1, color);
    canvas_line(c, x0, y0 + 1, x1, y1 + 1, color);
}

/* The series' finite points, each a dot, joined where neighbours are both finite. */
static void draw_series(panel *p, const train_epoch *e, size_t n, series_value value,
                        canvas_color color)
{
    int have_last = 0, last_x = 0, last_y = 0;
    for (size_t i = 0; i < n; i++) {
        double v = value(&e[i]);
        if (!isfinite(v)) {
            have_last = 0;
            continue;
        }
        int x = panel_x(p, e[i].epoch), y = panel_y(p, v);
        if (have_last)
            thick_line(p->c, last_x, last_y, x, y, color);
        canvas_fill(p->c, x - 1, y - 1, x + 1, y + 1, color);
        have_last = 1;
        last_x = x;
        last_y = y;
    }
}

static void draw_legend_entry(panel *p, int x, int y, const char *name, canvas_color color)
{
    thick_line(p->c, x, y + 3, x + 16, y + 3, color);
    canvas_text(p->c, x + 22, y, name, PLOT_TEXT, 1);
}

/* "train" and "test" in a framed box at the plot area's top right. */
static void draw_legend(panel *p)
{
    int x1 = p->right - 8, x0 = x1 - 62, y0 = p->top + 8, y1 = y0 + 30;
    canvas_fill(p->c, x0, y0, x1, y1, PLOT_BACKGROUND);
    canvas_line(p->c, x0, y0, x1, y0, PLOT_AXIS);
    canvas_line(p->c, x0, y1, x1, y1, PLOT_AXIS);
    canvas_line(p->c, x0, y0, x0, y1, PLOT_AXIS);
    canvas_line(p->c, x1, y0, x1, y1, PLOT_AXIS);
    draw_legend_entry(p, x0 + 6, y0 + 6, "train", PLOT_TRAIN_LOSS);
    draw_legend_entry(p, x0 + 6, y0 + 17, "test", PLOT_TEST_LOSS);
}

static void draw_loss(canvas *c, const train_epoch *e, size_t n)
{
    panel p;
    panel_place(&p, c, 0);
    double min = INFINITY, max = -INFINITY;
    series_range(e, n, train_loss, &min, &max);
    series_range(e, n, test_loss, &min, &max);
    p.x = epoch_axis(e, n);
    p.y = plot_axis_fit(min, max, 0);
    draw_frame(&p, "loss", "");
    draw_series(&p, e, n, train_loss, PLOT_TRAIN_LOSS);
    draw_series(&p, e, n, test_loss, PLOT_TEST_LOSS);
    draw_legend(&p);
}

static void draw_accuracy(canvas *c, const train_epoch *e, size_t n)
{
    panel p;
    panel_place(&p, c, 1);
    double min = INFINITY, max = -INFINITY, top = n && e[0].regression ? 1.0 : 100.0;
    double (*value)(const train_epoch *) = n && e[0].regression ? r2 : accuracy_percent;
    series_range(e, n, value, &min, &max);
    p.x = epoch_axis(e, n);
    p.y = plot_axis_fit(min, max, 0);
    if (max <= top && p.y.hi > top)
        p.y.hi = top; /* no "110%" above a perfect score */
    draw_frame(&p, top == 1.0 ? "test R^2" : "test accuracy", top == 1.0 ? "" : "%");
    draw_series(&p, e, n, value, PLOT_ACCURACY);
}

int plot_write_png(const char *path, const train_epoch *e, size_t n, char *err, size_t err_size)
{
    canvas c;
    if (canvas_init(&c, PLOT_WIDTH, PLOT_HEIGHT, PLOT_BACKGROUND) != 0) {
        snprintf(err, err_size, "cannot write %s: out of memory", path);
        return -1;
    }
    draw_loss(&c, e, n);
    draw_accuracy(&c, e, n);
    int rc = png_write_rgb(path, c.rgb, PLOT_WIDTH, PLOT_HEIGHT, err, err_size);
    canvas_free(&c);
    return rc;
}
