#include "bench_json.h"

int bench_write_rows(const char *path, bench_json_row row, const void *rows, size_t count)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    json_writer w = {.out = f};
    json_begin_object(&w, NULL);
    json_begin_array(&w, "rows");
    for (size_t i = 0; i < count; i++)
        row(&w, rows, i);
    json_end_array(&w);
    json_end_object(&w);
    fputc('\n', f);
    if (fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}
