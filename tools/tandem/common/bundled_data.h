/* The data files that install with tandem, found from the running program's place. */
#ifndef TANDEM_CLI_BUNDLED_DATA_H
#define TANDEM_CLI_BUNDLED_DATA_H

/* The bundled digits (digits.csv.gz): beside the program in the install layout
 * (<prefix>/bin/tandem finds <prefix>/share/tandem, wherever the prefix was moved),
 * or in the build tree (build/tandem finds build/share/tandem, which the build
 * fills). When neither exists, the installed path, which then names what is
 * missing. */
const char *bundled_digits(void);

/* The bundled text (shakespeare.txt.gz), found in the same places. */
const char *bundled_text(void);

#endif
