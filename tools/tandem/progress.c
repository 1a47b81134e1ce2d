#include <string.h>

#include "progress.h"

#define BAR_CELLS 20
#define MAX_COLUMNS 100    /* a bar line is cut to fit */
#define REDRAW_SECONDS 0.1 /* at most 10 redraws a second */

void progress_begin(progress *p, FILE *out, int tty, unsigned epochs, size_t steps_per_epoch)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->tty = tty;
    p->epochs = epochs;
    p->steps_per_epoch = steps_per_epoch;
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

/* "epoch  3/30": the epoch right-aligned to the width of the total. */
static int put_epoch(char *buf, size_t size, const progress *p, unsigned epoch)
{
    return snprintf(buf, size, "epoch %*u/%u", digits(p->epochs), epoch, p->epochs);
}

/* " [#####.....] 12/23": the bar, or " step 12" when the epoch's length is unknown. */
static int put_bar(char *buf, size_t size, const progress *p, size_t step)
{
    size_t total = p->steps_per_epoch;
    if (!total)
        return snprintf(buf, size, " step %zu", step);
    size_t filled = (step < total ? step : total) * BAR_CELLS / total;
    char cells[BAR_CELLS + 1];
    memset(cells, '#', filled);
    memset(cells + filled, '.', BAR_CELLS - filled);
    cells[BAR_CELLS] = '\0';
    return snprintf(buf, size, " [%s] %*zu/%zu", cells, digits(total), step, total);
}

/* Writes line over what is on the terminal's line, blanking leftover columns. */
static void draw(progress *p, const char *line, const char *end)
{
    int width = (int)strlen(line);
    int pad = p->bar_width > width ? p->bar_width - width : 0;
    fprintf(p->out, "\r%s%*s%s", line, pad, "", end);
    fflush(p->out);
    p->bar_width = width;
}

void progress_step(progress *p, unsigned epoch, size_t step, double running_loss, size_t examples,
                   double seconds)
{
    if (!p->tty)
        return;
    if (p->bar_epoch == epoch && seconds - p->bar_seconds < REDRAW_SECONDS)
        return;
    char line[256];
    int len = put_epoch(line, sizeof line, p, epoch);
    len += put_bar(line + len, sizeof line - len, p, step);
    snprintf(line + len, sizeof line - len, "  %.1f steps/s  %.0f ex/s  loss %.4f",
             rate((double)step, seconds), rate((double)examples, seconds), running_loss);
    line[MAX_COLUMNS - 1] = '\0';
    draw(p, line, "");
    p->bar_epoch = epoch;
    p->bar_seconds = seconds;
}

void progress_epoch(progress *p, const train_epoch *e, size_t steps)
{
    char line[384];
    int len = put_epoch(line, sizeof line, p, e->epoch);
    snprintf(line + len, sizeof line - len,
             "  %zu steps  %.2f s  %.1f steps/s  %.0f ex/s  loss %.4f  test loss %.4f"
             "  test acc %.2f%%",
             steps, e->seconds, rate((double)steps, e->seconds), e->examples_per_second,
             e->train_loss, e->test_loss, e->test_accuracy * 100.0);
    if (p->tty && p->bar_epoch) {
        draw(p, line, "\n");
    } else {
        fprintf(p->out, "%s\n", line);
        fflush(p->out);
    }
    p->bar_epoch = 0;
    p->bar_width = 0;
}
