/* Internal: TensorBoard's event records as bytes. Each is an Event message
 * (tensorboard/compat/proto/event.proto) framed as a TFRecord:
 *   uint64 length, uint32 masked CRC-32C of those 8 bytes, the message, uint32 masked
 *   CRC-32C of the message; all little-endian,
 * where the mask is ((crc >> 15) | (crc << 17)) + 0xa282ead8. */
#ifndef TDM_SUMMARY_EVENT_RECORD_H
#define TDM_SUMMARY_EVENT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/protobuf_writer.h"

/* The file's first record: file_version "brain.Event:2" at wall_time (seconds since
 * 1970), appended to out. */
void tdm_event_version_record(tdm_pb *out, double wall_time);

/* A scalar's record: Summary.Value {tag, simple_value} at step, appended to out. */
void tdm_event_scalar_record(tdm_pb *out, double wall_time, int64_t step, const char *tag,
                             float value);

/* TFRecord's masked CRC-32C of data. */
uint32_t tdm_event_masked_crc(const void *data, size_t size);

#endif
