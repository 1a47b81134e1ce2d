/* A 5x7 bitmap font for the training plot: digits, letters (both cases) and
 * ' ', '.', '%', '-', '+', ':', '/', '(', ')'. */
#ifndef TANDEM_CLI_FONT5X7_H
#define TANDEM_CLI_FONT5X7_H

#define FONT5X7_WIDTH 5
#define FONT5X7_HEIGHT 7
#define FONT5X7_ADVANCE 6 /* columns from one character to the next */

/* The glyph's FONT5X7_HEIGHT rows, top first, bit 4 the leftmost column (bit 0 the
 * rightmost); NULL for a character the font lacks. */
const unsigned char *font5x7_glyph(char c);

#endif
