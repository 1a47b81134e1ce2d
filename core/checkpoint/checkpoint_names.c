/* A small hash table of record names (FNV-1a, linear probing, kept at most half full). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_names.h"

static size_t hash(const char *name, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
    return (size_t)(h ^ h >> 32);
}

size_t tdm_ckpt_names_find(const tdm_ckpt_names *t, const char *name, size_t len)
{
    if (!t->slot_count)
        return (size_t)-1;
    size_t mask = t->slot_count - 1;
    for (size_t s = hash(name, len) & mask;; s = (s + 1) & mask) {
        size_t v = t->slots[s];
        if (!v)
            return (size_t)-1;
        const char *n = t->names[v - 1];
        if (strncmp(n, name, len) == 0 && n[len] == '\0')
            return v - 1;
    }
}

static void place(size_t *slots, size_t slot_count, const char *name, size_t index)
{
    size_t mask = slot_count - 1;
    size_t s = hash(name, strlen(name)) & mask;
    while (slots[s])
        s = (s + 1) & mask;
    slots[s] = index + 1;
}

static int grow_slots(tdm_ckpt_names *t)
{
    size_t count = t->slot_count ? t->slot_count * 2 : 16;
    size_t *slots = calloc(count, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->count; i++)
        place(slots, count, t->names[i], i);
    free(t->slots);
    t->slots = slots;
    t->slot_count = count;
    return 0;
}

int tdm_ckpt_names_add(tdm_ckpt_names *t, const char *name, size_t len)
{
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? t->capacity * 2 : 16;
        char **names = realloc(t->names, capacity * sizeof *names);
        if (!names)
            return -1;
        t->names = names;
        t->capacity = capacity;
    }
    if ((t->count + 1) * 2 > t->slot_count && grow_slots(t) != 0)
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, name, len);
    copy[len] = '\0';
    t->names[t->count] = copy;
    place(t->slots, t->slot_count, copy, t->count);
    t->count++;
    return 0;
}

void tdm_ckpt_names_free(tdm_ckpt_names *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->names[i]);
    free(t->names);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
