#include <stdlib.h>
#include <string.h>

#include "font5x7.h"
#include "plot_canvas.h"

int canvas_init(canvas *c, int width, int height, canvas_color background)
{
    c->width = width;
    c->height = height;
    c->rgb = malloc((size_t)width * (size_t)height * 3);
    if (!c->rgb)
        return -1;
    canvas_fill(c, 0, 0, width - 1, height - 1, background);
    return 0;
}

void canvas_free(canvas *c)
{
    free(c->rgb);
    c->rgb = NULL;
}

void canvas_pixel(canvas *c, int x, int y, canvas_color color)
{
    if (x < 0 || y < 0 || x >= c->width || y >= c->height)
        return;
    unsigned char *p = c->rgb + ((size_t)y * (size_t)c->width + (size_t)x) * 3;
    p[0] = (unsigned char)(color >> 16);
    p[1] = (unsigned char)(color >> 8);
    p[2] = (unsigned char)color;
}

void canvas_fill(canvas *c, int x0, int y0, int x1, int y1, canvas_color color)
{
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 >= c->width ? c->width - 1 : x1;
    y1 = y1 >= c->height ? c->height - 1 : y1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            canvas_pixel(c, x, y, color);
}

/* Bresenham, every octant. */
void canvas_line(canvas *c, int x0, int y0, int x1, int y1, canvas_color color)
{
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int error = dx + dy;
    for (;;) {
        canvas_pixel(c, x0, y0, color);
        if (x0 == x1 && y0 == y1)
            return;
        int e2 = 2 * error;
        if (e2 >= dy) {
            error += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            error += dx;
            y0 += sy;
        }
    }
}

static void draw_glyph(canvas *c, int x, int y, const unsigned char *rows, canvas_color color,
                       int scale)
{
    for (int row = 0; row < FONT5X7_HEIGHT; row++)
        for (int col = 0; col < FONT5X7_WIDTH; col++)
            if (rows[row] & (0x10 >> col))
                canvas_fill(c, x + col * scale, y + row * scale, x + (col + 1) * scale - 1,
                            y + (row + 1) * scale - 1, color);
}

void canvas_text(canvas *c, int x, int y, const char *s, canvas_color color, int scale)
{
    for (; *s; s++, x += FONT5X7_ADVANCE * scale) {
        const unsigned char *rows = font5x7_glyph(*s);
        if (rows)
            draw_glyph(c, x, y, rows, color, scale);
    }
}

int canvas_text_width(const char *s, int scale)
{
    size_t n = strlen(s);
    return n ? (int)(n * FONT5X7_ADVANCE - (FONT5X7_ADVANCE - FONT5X7_WIDTH)) * scale : 0;
}

int canvas_text_height(int scale)
{
    return FONT5X7_HEIGHT * scale;
}
