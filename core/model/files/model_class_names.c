/* The names of a model's classes: set by the caller, kept in its file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/model_impl.h"

/* A name a file's comma-separated list can hold and a terminal can print. */
static const char *name_fault(const char *name)
{
    if (!name || !*name)
        return "is empty";
    if (strlen(name) >= TDM_CLASS_NAME_MAX)
        return "is too long";
    for (const char *c = name; *c; c++)
        if (*c == ',' || (unsigned char)*c < 0x20 || *c == 0x7f)
            return "holds a comma or a control character";
    return NULL;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; names && i < count; i++)
        free(names[i]);
    free(names);
}

tdm_status tdm_model_set_class_names(tdm_model *m, const char *const *names, size_t count)
{
    static const char func[] = "tdm_model_set_class_names";
    TDM_CHECK_ARG(m, func);
    size_t outputs = tdm_model_output_count(m);
    if (!names != !count || (count && count != outputs))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %zu name(s) for a model of %zu outputs: name each, or none", func,
                        count, outputs);
    for (size_t i = 0; i < count; i++)
        if (name_fault(names[i]))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: class %zu's name %s", func, i,
                            name_fault(names[i]));
    char **copies = count ? calloc(count, sizeof *copies) : NULL;
    for (size_t i = 0; copies && i < count; i++)
        if (!(copies[i] = strdup(names[i]))) {
            free_names(copies, count);
            copies = NULL;
        }
    if (count && !copies)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    free_names(m->class_names, outputs);
    m->class_names = copies;
    return TDM_OK;
}

const char *tdm_model_class_name(const tdm_model *m, size_t i)
{
    return m && m->class_names && i < tdm_model_output_count(m) ? m->class_names[i] : NULL;
}

char *tdm_model_class_names_joined(const tdm_model *m)
{
    size_t outputs = tdm_model_output_count(m), size = 1;
    for (size_t i = 0; m->class_names && i < outputs; i++)
        size += strlen(m->class_names[i]) + 1;
    char *joined = m->class_names ? malloc(size) : NULL;
    for (size_t i = 0, at = 0; joined && i < outputs; i++)
        at += (size_t)sprintf(joined + at, "%s%s", i ? "," : "", m->class_names[i]);
    return joined;
}

tdm_status tdm_model_set_class_names_joined(tdm_model *m, const char *joined)
{
    size_t count = 1;
    for (const char *c = joined; *c; c++)
        count += *c == ',';
    char *copy = strdup(joined);
    const char **names = calloc(count, sizeof *names);
    tdm_status s = copy && names ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    char *next = copy;
    for (size_t i = 0; s == TDM_OK && i < count; i++) {
        names[i] = next;
        next = strchr(next, ',');
        if (next)
            *next++ = '\0';
    }
    if (s == TDM_OK)
        s = tdm_model_set_class_names(m, names, count);
    free(names);
    free(copy);
    return s;
}

void tdm_model_class_names_free(tdm_model *m)
{
    if (!m->class_names) /* a model that failed to build may have no plans to count */
        return;
    free_names(m->class_names, tdm_model_output_count(m));
    m->class_names = NULL;
}
