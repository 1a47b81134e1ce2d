/* TensorBoard's event records: Event messages in TFRecord framing. */
#include "summary/event_record.h"

/* Event's and Summary's field numbers (event.proto, summary.proto). */
enum { EVENT_WALL_TIME = 1, EVENT_STEP = 2, EVENT_FILE_VERSION = 3, EVENT_SUMMARY = 5 };
enum { SUMMARY_VALUE = 1, VALUE_TAG = 1, VALUE_SIMPLE_VALUE = 2 };

uint32_t tdm_event_masked_crc(const void *data, size_t size)
{
    uint32_t crc = tdm_crc32c(0, data, size);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static void put_le(uint8_t *out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; i++)
        out[i] = (uint8_t)(value >> (8 * i));
}

/* Appends event (a whole message) to out as one TFRecord. */
static void frame(tdm_pb *out, const tdm_pb *event)
{
    uint8_t head[12], tail[4];
    put_le(head, event->size, 8);
    put_le(head + 8, tdm_event_masked_crc(head, 8), 4);
    put_le(tail, tdm_event_masked_crc(event->data, event->size), 4);
    tdm_pb_raw(out, head, sizeof head);
    tdm_pb_raw(out, event->data, event->size);
    tdm_pb_raw(out, tail, sizeof tail);
}

/* A failed allocation inside event is carried into out, which tdm_pb_finish reports. */
static void frame_and_free(tdm_pb *out, tdm_pb *event)
{
    if (event->out_of_memory)
        out->out_of_memory = 1;
    else
        frame(out, event);
    tdm_pb_free(event);
}

void tdm_event_version_record(tdm_pb *out, double wall_time)
{
    tdm_pb event;
    tdm_pb_init(&event);
    tdm_pb_double(&event, EVENT_WALL_TIME, wall_time);
    tdm_pb_string(&event, EVENT_FILE_VERSION, "brain.Event:2");
    frame_and_free(out, &event);
}

void tdm_event_scalar_record(tdm_pb *out, double wall_time, int64_t step, const char *tag,
                             float value)
{
    tdm_pb event;
    tdm_pb_init(&event);
    tdm_pb_double(&event, EVENT_WALL_TIME, wall_time);
    /* An int64 as a varint: its two's complement, so a negative step takes 10 bytes. */
    tdm_pb_varint(&event, EVENT_STEP, (uint64_t)step);
    size_t summary = tdm_pb_begin(&event, EVENT_SUMMARY);
    size_t item = tdm_pb_begin(&event, SUMMARY_VALUE);
    tdm_pb_string(&event, VALUE_TAG, tag);
    tdm_pb_float(&event, VALUE_SIMPLE_VALUE, value);
    tdm_pb_end(&event, item);
    tdm_pb_end(&event, summary);
    frame_and_free(out, &event);
}
