/* The class names a CSV file names on its first line, as scikit-learn's exports do:
 * "150,4,setosa,versicolor,virginica" (examples, features, then the classes). */
#ifndef TANDEM_CLI_CLASS_NAMES_H
#define TANDEM_CLI_CLASS_NAMES_H

#include <stddef.h>

#define CLASS_NAMES_LINE 4096

typedef struct class_names {
    char line[CLASS_NAMES_LINE]; /* the first line, cut into the names */
    const char *name[CLASS_NAMES_LINE / 2];
    size_t count; /* 0: the first line is no such count line */
} class_names;

/* Reads path's first line (plain or gzip-compressed) into *out; a file that cannot
 * be read, or whose first line does not start with two counts, gives no names. */
void class_names_read(const char *path, class_names *out);

#endif
