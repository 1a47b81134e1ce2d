/* Fuzzes the IDX reader: the first two bytes say where the images file ends and the
 * labels file begins. */
#include "fuzz_input.h"
#include "tandem/tandem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t split = ((size_t)data[0] << 8 | data[1]) % (size - 1);
    const uint8_t *images = data + 2;
    size_t images_size = split, labels_size = size - 2 - split;
    const char *images_path = fuzz_file(0, images, images_size);
    const char *labels_path = fuzz_file(1, images + images_size, labels_size);
    tdm_dataset *ds = NULL;
    if (tdm_dataset_from_idx(images_path, labels_path, NULL, &ds) == TDM_OK) {
        float mean[64], std[64];
        if (tdm_dataset_feature_count(ds) <= 64)
            tdm_dataset_feature_stats(ds, mean, std);
    }
    tdm_dataset_destroy(ds);
    return 0;
}
