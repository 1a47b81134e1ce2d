#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "platform/tdm_host.h"

#define BAR_CELLS 20       /* a bar's cells when there is room */
#define MIN_BAR_CELLS 10   /* fewer, and the bar is left out */
#define REDRAW_SECONDS 0.1 /* at most 10 redraws a second */
#define MAX_FIELDS 10
#define FIELD_SIZE 48

/* One piece of a line; priority 0 is always shown, then 1, 2, ... while they fit. */
typedef struct field {
    char text[FIELD_SIZE];
    int priority;
    int is_bar; /* its cells grow into the room left */
} field;

typedef struct line {
    field f[MAX_FIELDS];
    int n;
} line;

static void add(line *l, int priority, int is_bar, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(line *l, int priority, int is_bar, const char *fmt, ...)
{
    if (l->n == MAX_FIELDS) /* a line of more fields than this file makes */
        return;
    field *f = &l->f[l->n++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
    f->priority = priority;
    f->is_bar = is_bar;
}

void progress_begin(progress *p, FILE *out, int tty, unsigned epochs, size_t steps_per_epoch)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->tty = tty;
    p->epochs = epochs;
    p->steps_per_epoch = steps_per_epoch;
}

int progress_columns(const progress *p)
{
    if (p->columns > 0)
        return p->columns;
    int columns = tdm_host_terminal_columns(p->out);
    if (columns > 0)
        return columns;
    const char *env = getenv("COLUMNS");
    columns = env ? atoi(env) : 0;
    return columns > 0 ? columns : 80;
}

static int digits(unsigned long long v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

static double rate(double count, double seconds)
{
    return seconds > 0 ? count / seconds : 0;
}

/* The bar's cells: filled, then empty, in `cells` columns plus " []". */
static void put_bar(char *out, size_t size, size_t step, size_t total, int cells)
{
    size_t filled = (step < total ? step : total) * (size_t)cells / total;
    char text[BAR_CELLS + 1];
    memset(text, '#', filled);
    memset(text + filled, '.', (size_t)cells - filled);
    text[cells] = '\0';
    snprintf(out, size, " [%s]", text);
}

/* Writes the fields that fit in width - 1 columns, in order, into out; the bar gets
 * MIN_BAR_CELLS or more cells, or is left out. */
static void compose(line *l, int width, size_t step, size_t total, char *out, size_t size)
{
    int keep[MAX_FIELDS] = {0}, used = 0, room = width - 1, bar_cells = 0;
    for (int pri = 0; pri <= MAX_FIELDS; pri++)
        for (int i = 0; i < l->n; i++) {
            int w = l->f[i].is_bar ? MIN_BAR_CELLS + 3 : (int)strlen(l->f[i].text);
            if (l->f[i].priority == pri && (pri == 0 || used + w <= room)) {
                keep[i] = 1;
                used += w;
            }
        }
    for (int i = 0; i < l->n; i++)
        if (keep[i] && l->f[i].is_bar) {
            int extra = room - used;
            bar_cells =
                MIN_BAR_CELLS + (extra > BAR_CELLS - MIN_BAR_CELLS ? BAR_CELLS - MIN_BAR_CELLS
                                 : extra > 0                       ? extra
                                                                   : 0);
            put_bar(l->f[i].text, sizeof l->f[i].text, step, total, bar_cells);
        }
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < l->n; i++)
        if (keep[i] && len < size)
            len += (size_t)snprintf(out + len, size - len, "%s", l->f[i].text);
    if (room > 0 && strlen(out) > (size_t)room) /* narrower than the fields that must show */
        out[room] = '\0';
}

/* Writes text over what is on the terminal's line, blanking leftover columns. */
static void draw(progress *p, const char *text, const char *end)
{
    int width = (int)strlen(text);
    int pad = p->bar_width > width ? p->bar_width - width : 0;
    fprintf(p->out, "\r%s%*s%s", text, pad, "", end);
    fflush(p->out);
    p->bar_width = width;
}

/* "1:05", "12:34", "2:03:04". */
static void put_duration(char *out, size_t size, double seconds)
{
    unsigned long s = seconds > 0 && seconds < 1e9 ? (unsigned long)(seconds + 0.5) : 0;
    if (s >= 3600)
        snprintf(out, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(out, size, "%lu:%02lu", s / 60, s % 60);
}

void progress_step(progress *p, unsigned epoch, size_t step, double running_loss, size_t examples,
                   double seconds)
{
    if (!p->tty)
        return;
    if (p->bar_epoch == epoch && seconds - p->bar_seconds < REDRAW_SECONDS)
        return;
    size_t total = p->steps_per_epoch;
    line l = {.n = 0};
    add(&l, 0, 0, "epoch %*u/%u", digits(p->epochs), epoch, p->epochs);
    if (total) {
        add(&l, 2, 1, " [");
        add(&l, 0, 0, " %*zu/%zu", digits(total), step, total);
    } else {
        add(&l, 0, 0, " step %zu", step);
    }
    add(&l, 3, 0, "  %.1f steps/s", rate((double)step, seconds));
    add(&l, 4, 0, "  %.0f ex/s", rate((double)examples, seconds));
    add(&l, 0, 0, "  loss %.4f", running_loss);
    if (total && step && seconds > 0) {
        double left = (double)(p->epochs > epoch ? p->epochs - epoch : 0) * (double)total +
                      (double)(total > step ? total - step : 0);
        char eta[32];
        put_duration(eta, sizeof eta, left * seconds / (double)step);
        add(&l, 1, 0, "  eta %s", eta);
    }
    char text[MAX_FIELDS * FIELD_SIZE];
    compose(&l, progress_columns(p), step, total ? total : 1, text, sizeof text);
    draw(p, text, "");
    p->bar_epoch = epoch;
    p->bar_seconds = seconds;
}

void progress_epoch(progress *p, const train_epoch *e, size_t steps)
{
    line l = {.n = 0};
    add(&l, 0, 0, "epoch %*u/%u", digits(p->epochs), e->epoch, p->epochs);
    add(&l, 6, 0, "  %zu steps", steps);
    add(&l, 3, 0, "  %.2f s", e->seconds);
    add(&l, 5, 0, "  %.1f steps/s", rate((double)steps, e->seconds));
    add(&l, 4, 0, "  %.0f ex/s", e->examples_per_second);
    add(&l, 1, 0, "  loss %.4f", e->train_loss);
    add(&l, 6, 0, "  eval %.2f s", e->eval_seconds);
    if (e->text)
        add(&l, 2, 0, "  val loss %.4f  val bpb %.4f", e->test_loss, e->test_loss / TRAIN_LN2);
    else
        add(&l, 2, 0, "  test loss %.4f", e->test_loss);
    if (e->text)
        add(&l, 0, 0, "  val acc %.2f%%", e->test_accuracy * 100.0);
    else if (e->regression)
        add(&l, 0, 0, "  test rmse %.4g r2 %.4f", e->test_rmse, e->test_r2);
    else
        add(&l, 0, 0, "  test acc %.2f%%", e->test_accuracy * 100.0);
    char text[MAX_FIELDS * FIELD_SIZE];
    if (p->tty && p->bar_epoch) {
        compose(&l, progress_columns(p), 0, 1, text, sizeof text);
        draw(p, text, "\n");
    } else {
        compose(&l, (int)sizeof text, 0, 1, text, sizeof text);
        fprintf(p->out, "%s\n", text);
        fflush(p->out);
    }
    p->bar_epoch = 0;
    p->bar_width = 0;
}
