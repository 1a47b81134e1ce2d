/* Loading a data file and saying which of its lines and columns were used. */
#include <stdio.h>
#include <stdlib.h>

#include "data_source.h"

/* "column 1" or "columns 1-64". */
static void column_range(size_t first, size_t last, char *out, size_t size)
{
    if (first == last)
        snprintf(out, size, "column %zu", first);
    else
        snprintf(out, size, "columns %zu-%zu", first, last);
}

/* The feature columns, counted from 1: every column but the label's. */
static void feature_columns(const tdm_csv_layout *l, char *out, size_t size)
{
    size_t n = l->columns, label = (size_t)l->label_column + 1;
    if (l->label_column == TDM_CSV_NO_LABEL)
        column_range(1, n, out, size);
    else if (label == n || label == 1)
        column_range(label == 1 ? 2 : 1, label == 1 ? n : n - 1, out, size);
    else
        snprintf(out, size, "columns 1-%zu but %zu", n, label);
}

static void describe_csv(const data_source *src, const tdm_csv_options *csv, const tdm_dataset *ds,
                         char *used_text, size_t size)
{
    const tdm_csv_layout *l = csv->layout;
    char columns[64], notes[96] = "", label[128] = "";
    feature_columns(l, columns, sizeof columns);
    int used = 0;
    if (src->skip_rows == 1)
        used = snprintf(notes, sizeof notes, " (line 1 skipped");
    else if (src->skip_rows > 1)
        used = snprintf(notes, sizeof notes, " (lines 1-%zu skipped", src->skip_rows);
    if (l->header_line)
        used += snprintf(notes + used, sizeof notes - (size_t)used, "%sheader on line %zu",
                         used ? ", " : " (", l->header_line);
    if (used)
        snprintf(notes + used, sizeof notes - (size_t)used, ")");
    const char *name = csv->label_name;
    if (l->label_count > 1) {
        columns[0] = '\0';
        snprintf(label, sizeof label, ", %zu labels in columns %.48s (from 0)", l->label_count,
                 csv->label_columns);
    } else if (l->label_column != TDM_CSV_NO_LABEL)
        snprintf(label, sizeof label, ", label in column %d%s%s%s", l->label_column + 1,
                 name ? " ('" : "", name ? name : "", name ? "')" : "");
    snprintf(used_text, size, "%zu examples from lines %zu-%zu%s, %zu features%s%s%s",
             tdm_dataset_example_count(ds), l->first_line, l->last_line, notes,
             tdm_dataset_feature_count(ds), columns[0] ? " in " : "", columns, label);
}

static tdm_status load_csv(const data_source *src, tdm_dataset **out, char *used, size_t size)
{
    tdm_csv_layout layout;
    tdm_csv_options csv = TDM_CSV_OPTIONS_INIT;
    csv.header = src->header;
    csv.skip_rows = src->skip_rows;
    csv.layout = &layout;
    csv.max_class_count = src->max_classes;
    csv.float_labels = src->float_labels;
    csv.label_columns = src->label_columns;
    if (src->no_label) {
        csv.label_column = TDM_CSV_NO_LABEL;
    } else if (src->label_column) {
        char *end;
        long column = strtol(src->label_column, &end, 10);
        if (*end || end == src->label_column)
            csv.label_name = src->label_column;
        else
            csv.label_column = (int)column;
    }
    tdm_status s = tdm_dataset_from_csv(src->path, &csv, out);
    if (s == TDM_OK)
        describe_csv(src, &csv, *out, used, size);
    return s;
}

tdm_status data_source_load(const data_source *src, tdm_dataset **out, char *used, size_t used_size)
{
    if (!src->labels)
        return load_csv(src, out, used, used_size);
    tdm_idx_options idx = TDM_IDX_OPTIONS_INIT;
    idx.max_class_count = src->max_classes;
    tdm_status s = tdm_dataset_from_idx(src->path, src->labels, &idx, out);
    if (s == TDM_OK)
        snprintf(used, used_size, "%zu examples of %zu features (IDX), labels from %s",
                 tdm_dataset_example_count(*out), tdm_dataset_feature_count(*out), src->labels);
    return s;
}
