/* An RGB bitmap to draw the training plot on: pixels, filled rectangles, lines and
 * text in the 5x7 font. Drawing outside the bitmap is clipped. */
#ifndef TANDEM_CLI_PLOT_CANVAS_H
#define TANDEM_CLI_PLOT_CANVAS_H

#include <stdint.h>

typedef struct canvas {
    unsigned char *rgb; /* width * height pixels, rows top first, R G B */
    int width, height;
} canvas;

/* A colour as 0xRRGGBB. */
typedef uint32_t canvas_color;

/* Allocates the bitmap filled with background: 0, or -1 when out of memory. */
int canvas_init(canvas *c, int width, int height, canvas_color background);
void canvas_free(canvas *c);

void canvas_pixel(canvas *c, int x, int y, canvas_color color);
/* The rectangle from (x0, y0) to (x1, y1), both corners included. */
void canvas_fill(canvas *c, int x0, int y0, int x1, int y1, canvas_color color);
/* A one-pixel line from (x0, y0) to (x1, y1), both ends included. */
void canvas_line(canvas *c, int x0, int y0, int x1, int y1, canvas_color color);

/* Text with its top-left corner at (x, y), each font pixel scale x scale; characters
 * the font lacks are left blank. */
void canvas_text(canvas *c, int x, int y, const char *s, canvas_color color, int scale);
int canvas_text_width(const char *s, int scale);
int canvas_text_height(int scale);

#endif
