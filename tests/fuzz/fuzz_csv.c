/* Fuzzes the CSV reader (and zlib's path, for inputs that start like gzip). The
 * first byte picks the options; the rest is the file. */
#include "fuzz_input.h"
#include "tandem/tandem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.header = data[0] & 1;
    o.delimiter = data[0] & 2 ? ';' : ',';
    o.label_column = data[0] & 4 ? 0 : -1;
    o.class_count = data[0] & 8 ? 10 : 0;
    o.label_name = o.header && data[0] & 16 ? "label" : NULL;
    tdm_dataset *ds = NULL;
    if (tdm_dataset_from_csv(fuzz_file(0, data + 1, size - 1), &o, &ds) == TDM_OK &&
        tdm_dataset_batch(ds, 7, 0) == TDM_OK) {
        tdm_dataset_iterator *it = NULL;
        const tdm_batch *b = NULL;
        if (tdm_dataset_iterator_create(ds, &it) == TDM_OK)
            while (tdm_dataset_iterator_next(it, &b) == TDM_OK && b->count)
                ;
        tdm_dataset_iterator_destroy(it);
    }
    tdm_dataset_destroy(ds);
    return 0;
}
