/* Datasets on the host: CSV, IDX and array sources, every bad-input case, the
 * transformations, iteration and checkpoint positions. argv[1]: data/digits.csv.gz. */
#include "dataset_fixture.h"

/* ---- CSV ------------------------------------------------------------------------ */

static tdm_dataset *load_csv(const char *path, const tdm_csv_options *opts)
{
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_csv(path, opts, &ds));
    return ds;
}

/* The dataset's examples in order, one epoch, unbatched: features and labels. */
size_t ds_read_all(const tdm_dataset *ds, float *features, int32_t *labels, size_t max)
{
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    size_t n = 0;
    const tdm_batch *b;
    while (it && tdm_dataset_iterator_next(it, &b) == TDM_OK && b->count && n < max) {
        memcpy(features + n * b->feature_count, b->features,
               b->count * b->feature_count * sizeof(float));
        memcpy(labels + n, b->labels, b->count * sizeof(int32_t));
        n += b->count;
    }
    tdm_dataset_iterator_destroy(it);
    return n;
}

static void check_csv_plain(void)
{
    tdm_dataset *ds = load_csv(ds_write_text("plain.csv", "1,2,0\n3.5, -4e1 ,1\n\n5,6,1"), NULL);
    float f[6];
    int32_t l[3];
    CHECK(tdm_dataset_feature_count(ds) == 2 && tdm_dataset_class_count(ds) == 2);
    CHECK(ds_read_all(ds, f, l, 3) == 3);
    CHECK(f[0] == 1 && f[1] == 2 && f[2] == 3.5f && f[3] == -40 && f[5] == 6);
    CHECK(l[0] == 0 && l[1] == 1 && l[2] == 1);
    tdm_dataset_destroy(ds);
}

static void check_csv_header_middle_label(void)
{
    const char *path = ds_write_text("header.csv", " \"a\" ,label, b\r\n1,2,3\r\n4,0,6\r\n");
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.header = 1;
    o.label_name = "label";
    o.class_count = 5;
    tdm_dataset *by_name = load_csv(path, &o);
    o.label_name = NULL;
    o.label_column = 1;
    tdm_dataset *by_index = load_csv(path, &o);
    float f[4];
    int32_t l[2];
    CHECK(ds_read_all(by_name, f, l, 2) == 2);
    CHECK(f[0] == 1 && f[1] == 3 && f[2] == 4 && f[3] == 6 && l[0] == 2 && l[1] == 0);
    CHECK(tdm_dataset_class_count(by_name) == 5);
    CHECK(ds_read_all(by_index, f, l, 2) == 2 && f[1] == 3 && l[0] == 2);
    tdm_dataset_destroy(by_name);
    tdm_dataset_destroy(by_index);
}

static void check_csv_gzip_and_delimiter(void)
{
    const char *text = "0.5;1;2\n1.5;2;0\n";
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.delimiter = ';';
    /* gzip is recognised by its magic bytes, not by the file's name */
    tdm_dataset *ds = load_csv(ds_write_gzip("semi.csv", text, strlen(text)), &o);
    float f[4];
    int32_t l[2];
    CHECK(ds_read_all(ds, f, l, 2) == 2);
    CHECK(f[0] == 0.5f && f[3] == 2 && l[0] == 2 && l[1] == 0);
    CHECK(tdm_dataset_class_count(ds) == 3);
    tdm_dataset_destroy(ds);
}

/* A CSV file that must fail with `status` and a message containing `needle`, leaving
 * the output NULL. */
static void csv_fails(const char *name, const char *text, const tdm_csv_options *o,
                      tdm_status status, const char *needle)
{
    tdm_dataset *ds = (tdm_dataset *)&ds;
    CHECK_FAILS(tdm_dataset_from_csv(ds_write_text(name, text), o, &ds), status, needle);
    CHECK(ds == NULL);
}

/* scikit-learn's exports start with a line of counts (here with class names), which
 * skip_rows passes over; the layout tells where the examples were. */
static void check_csv_skip_rows_and_layout(void)
{
    const char *path = ds_write_text("sklearn.csv", "3,2,setosa,versicolor\nsepal,petal,target\n"
                                                    "5.1,1.4,0\n\n4.9,1.3,1\n6.3,6.0,1\n");
    tdm_csv_layout layout;
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.skip_rows = 1;
    o.header = 1;
    o.layout = &layout;
    tdm_dataset *ds = load_csv(path, &o);
    float f[6];
    int32_t l[3];
    CHECK(ds_read_all(ds, f, l, 3) == 3 && f[0] == 5.1f && f[5] == 6.0f && l[1] == 1);
    CHECK(layout.columns == 3 && layout.label_column == 2 && layout.header_line == 2);
    CHECK(layout.first_line == 3 && layout.last_line == 6 && layout.blank_lines == 1);
    tdm_dataset_destroy(ds);
    o.header = 0; /* or skip the header line too */
    o.skip_rows = 2;
    ds = load_csv(path, &o);
    CHECK(ds_read_all(ds, f, l, 3) == 3 && f[0] == 5.1f && l[2] == 1);
    CHECK(layout.header_line == 0 && layout.first_line == 3 && layout.last_line == 6);
    tdm_dataset_destroy(ds);
    o.skip_rows = 0;
    o.layout = NULL;
    csv_fails("sklearn.csv", "3,2,setosa,versicolor\n5.1,1.4,0\n", &o, TDM_ERR_CORRUPT_DATA,
              "sklearn.csv:1:3: field 'setosa' is not a number");
    CHECK(strstr(tdm_last_error(), "skip it with skip_rows = 1 (--skip-rows 1)") != NULL);
    /* A count line of numbers alone is read as data: the next line hints. */
    csv_fails("counts.csv", "2,1\n5.1,1.4,0\n4.9,1.3,1\n", &o, TDM_ERR_CORRUPT_DATA,
              "counts.csv:2:3: 3 fields, expected 2");
    CHECK(strstr(tdm_last_error(), "--skip-rows 1") != NULL);
    /* A header with a bare number is data or a count line, never taken as names. */
    o.header = 1;
    csv_fails("sklearn.csv", "3,2,setosa,versicolor\n5.1,1.4,0\n", &o, TDM_ERR_CORRUPT_DATA,
              "sklearn.csv:1:1: the header's field '3' is a number");
    CHECK(strstr(tdm_last_error(), "--skip-rows 1") != NULL);
    csv_fails("data_header.csv", "a,2.5,label\n5.1,1.4,0\n", &o, TDM_ERR_CORRUPT_DATA,
              "data_header.csv:1:2: the header's field '2.5' is a number");
    ds = load_csv(ds_write_text("quoted.csv", "\"0\",\"1\",label\n5.1,1.4,0\n"), &o);
    tdm_dataset_destroy(ds);
    o.header = 0;
    o.skip_rows = 9;
    csv_fails("short_skip.csv", "1,2\n3,4\n", &o, TDM_ERR_CORRUPT_DATA,
              "skip_rows is 9, the file has 2 lines");
}

/* A stray label past max_class_count is refused, naming its line and value, where it
 * would have made a model of that many classes; below the limit the count is the
 * largest label + 1, and class_count, where set, is the bound instead. */
static void check_csv_class_limit(void)
{
    const char *text = "1,0\n2,1\n3,1000000\n4,1\n";
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.max_class_count = 65536;
    csv_fails("stray.csv", text, &o, TDM_ERR_CORRUPT_DATA,
              "stray.csv:3:2: label 1000000 would make 1000001 classes, more than the limit of "
              "65536");
    tdm_dataset *ds = load_csv(ds_write_text("fine.csv", "1,0\n2,65535\n"), &o);
    CHECK(tdm_dataset_class_count(ds) == 65536);
    tdm_dataset_destroy(ds);
    o.class_count = 2;
    csv_fails("stray.csv", text, &o, TDM_ERR_CORRUPT_DATA,
              "stray.csv:3:2: label 1e+06 is out of range [0, 2)");
}

/* A file of features only: every column a feature, every label 0. */
static void check_csv_no_label(void)
{
    tdm_csv_layout layout;
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.label_column = TDM_CSV_NO_LABEL;
    o.layout = &layout;
    tdm_dataset *ds = load_csv(ds_write_text("features.csv", "1,2,3\n4,5,6\n"), &o);
    float f[6];
    int32_t l[2] = {7, 7};
    CHECK(tdm_dataset_feature_count(ds) == 3 && ds_read_all(ds, f, l, 2) == 2);
    CHECK(f[2] == 3 && f[5] == 6 && l[0] == 0 && l[1] == 0);
    CHECK(layout.label_column == TDM_CSV_NO_LABEL && layout.columns == 3);
    tdm_dataset_destroy(ds);
    ds = load_csv(ds_write_text("one.csv", "1\n2\n"), &o);
    CHECK(tdm_dataset_feature_count(ds) == 1 && tdm_dataset_example_count(ds) == 2);
    tdm_dataset_destroy(ds);
    o.label_column = -3;
    csv_fails("one.csv", "1\n", &o, TDM_ERR_INVALID_ARGUMENT, "label_column is -3");
}

/* Several label columns, by index or by name, in the list's order; float targets
 * read as they are; class labels of several columns. */
static void check_csv_label_columns(void)
{
    const char *path = ds_write_text("targets.csv", "x,price,y,rooms\n1,2.5,3,-1\n4,0.25,6,7e-1\n");
    tdm_csv_layout layout;
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.header = 1;
    o.float_labels = 1;
    o.label_columns = "rooms, price";
    o.layout = &layout;
    tdm_dataset *ds = load_csv(path, &o);
    CHECK(tdm_dataset_label_dtype(ds) == TDM_F32 && tdm_dataset_label_width(ds) == 2 &&
          tdm_dataset_feature_count(ds) == 2 && tdm_dataset_class_count(ds) == 0);
    CHECK(layout.label_count == 2 && layout.label_column == 3);
    tdm_dataset_iterator *it = NULL;
    const tdm_batch *b = NULL;
    CHECK_OK(tdm_dataset_batch(ds, 2, 0));
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK(b && b->count == 2 && !b->labels && b->targets && b->label_width == 2);
    if (b && b->targets)
        CHECK(b->targets[0] == -1.0f && b->targets[1] == 2.5f && b->targets[2] == 0.7f &&
              b->targets[3] == 0.25f && b->features[0] == 1 && b->features[1] == 3 &&
              b->features[3] == 6);
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(ds);

    o = (tdm_csv_options)TDM_CSV_OPTIONS_INIT;
    o.label_columns = "2,0";
    ds = load_csv(ds_write_text("two_classes.csv", "1,5,0\n2,6,3\n"), &o);
    CHECK(tdm_dataset_label_dtype(ds) == TDM_I32 && tdm_dataset_label_width(ds) == 2 &&
          tdm_dataset_class_count(ds) == 4);
    tdm_dataset_destroy(ds);

    o.label_columns = "0,3";
    csv_fails("range.csv", "1,2,3\n", &o, TDM_ERR_INVALID_ARGUMENT,
              "label column 3 is out of range: lines have 3 columns (0 to 2)");
    o.label_columns = "0,1,2";
    csv_fails("all.csv", "1,2,3\n", &o, TDM_ERR_INVALID_ARGUMENT, "no features left");
    o.label_columns = "1,1";
    csv_fails("twice.csv", "1,2,3\n", &o, TDM_ERR_INVALID_ARGUMENT, "listed twice");
    o.label_columns = "price";
    csv_fails("names.csv", "1,2,3\n", &o, TDM_ERR_NOT_FOUND, "names need header = 1");
    o.header = 1;
    csv_fails("unknown.csv", "a,b,c\n1,2,3\n", &o, TDM_ERR_NOT_FOUND,
              "label column 'price': no column of that name");
    o = (tdm_csv_options)TDM_CSV_OPTIONS_INIT;
    o.float_labels = 1;
    csv_fails("nan.csv", "1,2\n3,nan\n", &o, TDM_ERR_CORRUPT_DATA,
              ":2:2: label 'nan' is not a finite float32");
}

static void check_csv_bad_rows(void)
{
    tdm_status bad = TDM_ERR_CORRUPT_DATA;
    csv_fails("short.csv", "1,2,0\n3,4\n", NULL, bad, "short.csv:2:3: 2 fields, expected 3");
    csv_fails("long.csv", "1,2,0\n\n3,4,5,6\n", NULL, bad, "long.csv:3:4: 4 fields");
    csv_fails("word.csv", "1,2,0\n3,x,1\n", NULL, bad, "word.csv:2:2: field 'x' is not a number");
    csv_fails("blank_field.csv", "1, ,0\n", NULL, bad, "blank_field.csv:1:2: field ' '");
    csv_fails("trailing.csv", "1,2x,0\n", NULL, bad, "trailing.csv:1:2");
    csv_fails("nan.csv", "1,nan,0\n", NULL, bad, "nan.csv:1:2: field 'nan' is not a finite");
    csv_fails("huge.csv", "1,1e39,0\n", NULL, bad, "huge.csv:1:2");
    csv_fails("fraction.csv", "1,2,1.5\n", NULL, bad, "fraction.csv:1:3: label 1.5 is not a class");
    csv_fails("negative.csv", "1,2,0\n1,2,-1\n", NULL, bad, "negative.csv:2:3: label -1");
    csv_fails("label_word.csv", "1,2,cat\n", NULL, bad, "label_word.csv:1:3: label 'cat'");
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.class_count = 10;
    csv_fails("range.csv", "1,2,9\n1,2,10\n", &o, bad,
              "range.csv:2:3: label 10 is out of range [0, 10)");
}

static void check_csv_bad_files(void)
{
    tdm_status bad = TDM_ERR_CORRUPT_DATA;
    csv_fails("empty.csv", "", NULL, bad, "empty.csv:1: the file is empty");
    csv_fails("blank.csv", "\n  \n\n", NULL, bad, "blank.csv:3: no data rows");
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.header = 1;
    csv_fails("header_only.csv", "a,b,label\n\n", &o, bad, "header_only.csv:2: no data rows");
    csv_fails("one_column.csv", "1\n2\n", NULL, bad, "one_column.csv:1: one column");
    o.label_name = "y";
    csv_fails("no_name.csv", "a,b\n1,2\n", &o, TDM_ERR_NOT_FOUND, "no column named 'y'");
    o = (tdm_csv_options)TDM_CSV_OPTIONS_INIT;
    o.label_column = 3;
    csv_fails("column.csv", "1,2,3\n", &o, bad, "column.csv:1: label_column is 3");
    tdm_dataset *ds = (tdm_dataset *)&ds;
    CHECK_FAILS(
        tdm_dataset_from_csv(ds_write_bytes("nul-byte.csv", "1,2,0\n1,\0,0\n", 12), NULL, &ds), bad,
        "nul-byte.csv:2: a NUL byte at byte 8");
    CHECK_FAILS(tdm_dataset_from_csv(ds_tmp_path("missing.csv"), NULL, &ds), TDM_ERR_NOT_FOUND,
                "missing.csv: No such file");
    CHECK(ds == NULL);
    CHECK_FAILS(tdm_dataset_from_csv(ds_tmp_dir, NULL, &ds), TDM_ERR_NOT_FOUND,
                "is a directory, not a regular file");
    CHECK(ds == NULL);
}

static void check_csv_truncated_gzip(void)
{
    char text[4096];
    size_t len = 0;
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d,%d,%d\n", i, i * 7, i % 3);
    const char *path = ds_write_gzip("cut.csv.gz", text, len);
    FILE *f = fopen(path, "rb");
    unsigned char gz[4096];
    size_t gz_size = f ? fread(gz, 1, sizeof gz, f) : 0;
    if (f)
        fclose(f);
    CHECK(gz_size > 40);
    tdm_dataset *ds = (tdm_dataset *)&ds;
    CHECK_FAILS(tdm_dataset_from_csv(ds_write_bytes("cut2.csv.gz", gz, gz_size / 2), NULL, &ds),
                TDM_ERR_CORRUPT_DATA, "corrupt gzip data");
    CHECK(ds == NULL);
    gz[gz_size / 2] ^= 0xFF; /* damage the deflate stream in the middle */
    CHECK_FAILS(tdm_dataset_from_csv(ds_write_bytes("flip.csv.gz", gz, gz_size), NULL, &ds),
                TDM_ERR_CORRUPT_DATA, "flip.csv.gz");
    CHECK(ds == NULL);
}

static void check_csv_options(void)
{
    tdm_dataset *ds = (tdm_dataset *)&ds;
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.size = 0;
    const char *path = ds_write_text("ok.csv", "1,0\n");
    CHECK_FAILS(tdm_dataset_from_csv(path, &o, &ds), TDM_ERR_INVALID_ARGUMENT, "_INIT");
    o = (tdm_csv_options)TDM_CSV_OPTIONS_INIT;
    o.label_name = "y";
    CHECK_FAILS(tdm_dataset_from_csv(path, &o, &ds), TDM_ERR_INVALID_ARGUMENT, "header = 1");
    o = (tdm_csv_options)TDM_CSV_OPTIONS_INIT;
    o.delimiter = '\n';
    CHECK_FAILS(tdm_dataset_from_csv(path, &o, &ds), TDM_ERR_INVALID_ARGUMENT, "delimiter");
    CHECK(ds == NULL);
    CHECK_FAILS(tdm_dataset_from_csv(NULL, NULL, &ds), TDM_ERR_INVALID_ARGUMENT, "'path'");
    CHECK_FAILS(tdm_dataset_from_csv(path, NULL, NULL), TDM_ERR_INVALID_ARGUMENT, "'out'");
}

/* ---- IDX ------------------------------------------------------------------------ */

/* An IDX file: header for `dims`, then the elements' bytes already big-endian. */
static size_t idx_bytes(unsigned char *out, unsigned type, const uint32_t *dims, unsigned ndims,
                        const void *data, size_t data_size)
{
    unsigned char header[4] = {0, 0, (unsigned char)type, (unsigned char)ndims};
    memcpy(out, header, 4);
    for (unsigned i = 0; i < ndims; i++) {
        unsigned char d[4] = {(unsigned char)(dims[i] >> 24), (unsigned char)(dims[i] >> 16),
                              (unsigned char)(dims[i] >> 8), (unsigned char)dims[i]};
        memcpy(out + 4 + 4 * i, d, 4);
    }
    memcpy(out + 4 + 4 * ndims, data, data_size);
    return 4 + 4 * ndims + data_size;
}

static const char *write_idx(const char *name, unsigned type, const uint32_t *dims, unsigned ndims,
                             const void *data, size_t data_size)
{
    unsigned char buf[512];
    return ds_write_bytes(name, buf, idx_bytes(buf, type, dims, ndims, data, data_size));
}

/* 3 images of 2x2 u8 pixels and their labels. */
static const unsigned char pixels[12] = {0, 1, 2, 255, 10, 11, 12, 13, 20, 21, 22, 23};
static const unsigned char label_bytes[3] = {2, 0, 1};
static const uint32_t image_dims[3] = {3, 2, 2};
static const uint32_t label_dims[1] = {3};

static void check_idx_u8(void)
{
    const char *images = write_idx("img.idx", 0x08, image_dims, 3, pixels, sizeof pixels);
    const char *labels = write_idx("lab.idx", 0x08, label_dims, 1, label_bytes, 3);
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_idx(images, labels, NULL, &ds));
    float f[12];
    int32_t l[3];
    CHECK(tdm_dataset_feature_count(ds) == 4 && tdm_dataset_class_count(ds) == 3);
    CHECK(ds_read_all(ds, f, l, 3) == 3);
    CHECK(f[3] == 255 && f[4] == 10 && f[11] == 23 && l[0] == 2 && l[2] == 1);
    tdm_dataset_destroy(ds);
}

static void check_idx_types_and_gzip(void)
{
    /* i16 images (-2, 300), f64 images (0.25, -1e10), i32 and f32 labels, gzipped */
    const unsigned char i16[4] = {0xFF, 0xFE, 0x01, 0x2C};
    const unsigned char f64[16] = {0x3F, 0xD0, 0,    0,    0,    0, 0, 0,
                                   0xC2, 0x02, 0xA0, 0x5F, 0x20, 0, 0, 0};
    const unsigned char i32[8] = {0, 0, 0, 1, 0, 0, 0, 4};
    const unsigned char f32[8] = {0x40, 0x40, 0, 0, 0, 0, 0, 0}; /* 3.0f, 0.0f */
    const uint32_t two[2] = {2, 1};
    unsigned char buf[64];
    const char *img16 = ds_write_gzip("i16.idx.gz", buf, idx_bytes(buf, 0x0B, two, 2, i16, 4));
    const char *img64 = write_idx("f64.idx", 0x0E, two, 1, f64, 16);
    const char *lab32 = ds_write_gzip("i32.idx.gz", buf, idx_bytes(buf, 0x0C, two, 1, i32, 8));
    const char *labf = write_idx("f32.idx", 0x0D, two, 1, f32, 8);
    tdm_dataset *a = NULL, *b = NULL;
    CHECK_OK(tdm_dataset_from_idx(img16, lab32, NULL, &a));
    CHECK_OK(tdm_dataset_from_idx(img64, labf, NULL, &b));
    float f[2];
    int32_t l[2];
    CHECK(ds_read_all(a, f, l, 2) == 2 && f[0] == -2 && f[1] == 300 && l[0] == 1 && l[1] == 4);
    CHECK(tdm_dataset_feature_count(a) == 1 && tdm_dataset_class_count(a) == 5);
    CHECK(ds_read_all(b, f, l, 2) == 2 && f[0] == 0.25f && f[1] == -1e10f && l[0] == 3 &&
          l[1] == 0);
    tdm_dataset_destroy(a);
    tdm_dataset_destroy(b);
}

static void idx_fails(const char *images, const char *labels, const tdm_idx_options *o,
                      tdm_status status, const char *needle)
{
    tdm_dataset *ds = (tdm_dataset *)&ds;
    CHECK_FAILS(tdm_dataset_from_idx(images, labels, o, &ds), status, needle);
    CHECK(ds == NULL);
}

static void check_idx_bad(void)
{
    tdm_status bad = TDM_ERR_CORRUPT_DATA;
    const char *images = write_idx("good_img.idx", 0x08, image_dims, 3, pixels, sizeof pixels);
    const char *labels = write_idx("good_lab.idx", 0x08, label_dims, 1, label_bytes, 3);
    const uint32_t two[1] = {2};
    idx_fails(images, write_idx("two.idx", 0x08, two, 1, label_bytes, 2), NULL, bad,
              "two.idx: byte 4: 2 labels, but");
    idx_fails(ds_write_bytes("magic.idx", "\x01\x02\x08\x01\x00", 5), labels, NULL, bad,
              "magic.idx: byte 0: magic 01 02 08 01");
    idx_fails(images, write_idx("type.idx", 0x07, label_dims, 1, label_bytes, 3), NULL, bad,
              "type.idx: byte 2: unknown element type 0x07");
    idx_fails(write_idx("cut.idx", 0x08, image_dims, 3, pixels, 7), labels, NULL, bad,
              "cut.idx: byte 23: truncated data: the dimensions need 12 bytes");
    idx_fails(write_idx("extra.idx", 0x08, image_dims, 2, pixels, 12), labels, NULL, bad,
              "extra.idx: byte 18: 6 bytes past the end");
    idx_fails(ds_write_bytes("tiny.idx", "\0\0", 2), labels, NULL, bad,
              "tiny.idx: byte 2: truncated");
    idx_fails(ds_write_bytes("dims.idx", "\0\0\x08\x03\0\0\0\x03", 8), labels, NULL, bad,
              "dims.idx: byte 8: truncated header: 3 dimensions need 16 bytes");
    idx_fails(images, images, NULL, bad, "good_img.idx: byte 3: 3 dimensions; a labels file");
    const uint32_t zero[3] = {3, 0, 2};
    idx_fails(write_idx("zero.idx", 0x08, zero, 3, pixels, 0), labels, NULL, bad,
              "zero.idx: byte 8: a dimension is 0");
    const uint32_t one[1] = {1};
    const unsigned char nan32[4] = {0x7F, 0xC0, 0, 0};
    idx_fails(write_idx("nan.idx", 0x0D, one, 1, nan32, 4),
              write_idx("one.idx", 0x08, one, 1, label_bytes, 1), NULL, bad,
              "nan.idx: byte 8: the value is not a finite");
    tdm_idx_options o = TDM_IDX_OPTIONS_INIT;
    o.class_count = 2;
    idx_fails(images, labels, &o, bad, "good_lab.idx: byte 8: label 2 is out of range [0, 2)");
    o.class_count = 0;
    o.max_class_count = 2;
    idx_fails(images, labels, &o, bad,
              "good_lab.idx: byte 8: label 2 would make 3 classes, more than the limit of 2");
    o.max_class_count = 0;
    idx_fails(images, ds_tmp_path("absent.idx"), NULL, TDM_ERR_NOT_FOUND, "absent.idx");
    o.size = 1;
    idx_fails(images, labels, &o, TDM_ERR_INVALID_ARGUMENT, "size field");
}

/* ---- special files and the input limit ---------------------------------------- */

/* A FIFO with no writer once blocked the open forever, and /dev/zero was read until
 * memory ran out: only regular files are read, and never opened in a way that waits. */
static void check_special_files(void)
{
#ifdef _WIN32
    printf("dataset: no FIFO or /dev/zero on Windows: special files not checked\n");
#else
    alarm(60); /* a hang fails here rather than at ctest's timeout */
    const char *fifo = ds_tmp_path("fifo.csv");
    CHECK(mkfifo(fifo, 0600) == 0);
    tdm_dataset *ds = NULL;
    CHECK_FAILS(tdm_dataset_from_csv(fifo, NULL, &ds), TDM_ERR_NOT_FOUND,
                "fifo.csv is a FIFO (named pipe), not a regular file");
    CHECK_FAILS(tdm_dataset_from_csv("/dev/zero", NULL, &ds), TDM_ERR_NOT_FOUND,
                "/dev/zero is a character device, not a regular file");
    const char *labels = write_idx("fifo-labels.idx", 0x08, label_dims, 1, label_bytes, 3);
    CHECK_FAILS(tdm_dataset_from_idx(fifo, labels, NULL, &ds), TDM_ERR_NOT_FOUND, "a FIFO");
    CHECK(ds == NULL);
    alarm(0);
#endif
}

/* A small gzip file that expands past the input limit is refused as soon as the limit
 * is passed, as is a plain file over it (by its size, before it is read). */
static void check_input_limit(void)
{
    static char text[64 << 10];
    for (size_t i = 0; i + 4 <= sizeof text; i += 4)
        memcpy(text + i, "1,2\n", 4);
    const char *bomb = ds_write_gzip("bomb.csv.gz", text, sizeof text);
    const char *plain = ds_write_bytes("plain.csv", text, sizeof text);
    tdm_dataset *ds = NULL;
    CHECK(tdm_host_setenv("TDM_MAX_INPUT_BYTES", "16K", 1) == 0);
    CHECK_FAILS(tdm_dataset_from_csv(bomb, NULL, &ds), TDM_ERR_OUT_OF_MEMORY,
                "bomb.csv.gz holds (or decompresses to) more than 16384 bytes, the input limit");
    CHECK_FAILS(tdm_dataset_from_csv(plain, NULL, &ds), TDM_ERR_OUT_OF_MEMORY,
                "TDM_MAX_INPUT_BYTES");
    CHECK(tdm_host_setenv("TDM_MAX_INPUT_BYTES", "64K", 1) == 0); /* exactly the text */
    CHECK_OK(tdm_dataset_from_csv(bomb, NULL, &ds));
    CHECK(tdm_dataset_example_count(ds) == sizeof text / 4);
    tdm_dataset_destroy(ds);
    ds = NULL;
    static const char *const bad[] = {
        "", "abc", "0", "12Q", "16KB", "99999999999999999999", "17179869184T"};
    for (size_t i = 1; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(tdm_host_setenv("TDM_MAX_INPUT_BYTES", bad[i], 1) == 0);
        CHECK_FAILS(tdm_dataset_from_csv(plain, NULL, &ds), TDM_ERR_INVALID_ARGUMENT,
                    "TDM_MAX_INPUT_BYTES is '");
    }
    CHECK(tdm_host_setenv("TDM_MAX_INPUT_BYTES", bad[0], 1) == 0); /* empty: the default */
    CHECK_OK(tdm_dataset_from_csv(plain, NULL, &ds));
    tdm_dataset_destroy(ds);
    CHECK(tdm_host_unsetenv("TDM_MAX_INPUT_BYTES") == 0);
}

/* ---- the bundled digits data ---------------------------------------------------- */

static void check_digits(const char *path)
{
    tdm_csv_options o = TDM_CSV_OPTIONS_INIT;
    o.class_count = 10;
    tdm_dataset *ds = load_csv(path, &o), *train = NULL, *test = NULL;
    CHECK(tdm_dataset_example_count(ds) == 1797 && tdm_dataset_feature_count(ds) == 64);
    CHECK(tdm_dataset_class_count(ds) == 10);
    CHECK_OK(tdm_dataset_split(ds, 0.8, &train, &test));
    CHECK(tdm_dataset_example_count(train) == 1437 && tdm_dataset_example_count(test) == 360);
    float mean[64], std[64];
    CHECK_OK(tdm_dataset_feature_stats(train, mean, std));
    CHECK(mean[0] == 0 && std[0] == 0 && mean[20] > 1 && mean[20] < 16); /* a border, a centre */
    CHECK_OK(tdm_dataset_standardize(train, mean, std));
    CHECK_OK(tdm_dataset_shuffle(train, 1));
    CHECK_OK(tdm_dataset_batch(train, 64, 0));
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(train, &it));
    size_t examples = 0, per_class[10] = {0};
    const tdm_batch *b;
    while (it && tdm_dataset_iterator_next(it, &b) == TDM_OK && b->count)
        for (size_t i = 0; i < b->count; i++, examples++)
            per_class[b->labels[i]]++;
    CHECK(examples == 1437);
    for (int c = 0; c < 10; c++)
        CHECK(per_class[c] > 100);
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(test);
    tdm_dataset_destroy(ds);
}

void test_case_dataset(const test_run *run)
{
    ds_tmp_dir = scratch_root("tdm_dataset");
    check_csv_plain();
    check_csv_header_middle_label();
    check_csv_gzip_and_delimiter();
    check_csv_skip_rows_and_layout();
    check_csv_no_label();
    check_csv_label_columns();
    check_csv_class_limit();
    check_csv_bad_rows();
    check_csv_bad_files();
    check_csv_truncated_gzip();
    check_csv_options();
    check_idx_u8();
    check_idx_types_and_gzip();
    check_idx_bad();
    check_special_files();
    check_input_limit();
    ds_check_arrays();
    ds_check_sequences();
    ds_check_batch();
    ds_check_end_and_batch_info();
    ds_check_repeat();
    ds_check_take_skip();
    ds_check_split();
    ds_check_shuffle();
    ds_check_shuffle_once_split();
    ds_check_shuffle_after_selection();
    ds_check_map();
    ds_check_standardize();
    ds_check_position_resume();
    ds_check_position_errors();
    ds_check_snapshot();
    check_digits(run->argv[0]);
}
