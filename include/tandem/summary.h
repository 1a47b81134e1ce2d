/* tandem: TensorBoard event files. A summary writer appends scalars (a tag, a step and
 * a value) to a new event file in a folder, which TensorBoard reads as one run: point
 * `tensorboard --logdir` at the folder, or at its parent to compare several runs.
 *
 * The file is TensorFlow's: a record per Event (event.proto), each framed as a TFRecord
 * (its length, the masked CRC-32C of the length, the data, the masked CRC-32C of the
 * data); the first holds file_version "brain.Event:2", each later one a Summary of one
 * simple_value, stamped with the wall clock. Its name, in dir:
 *   events.out.tfevents.<seconds since 1970, 10 digits>.<host>.<process id>.<n>
 * (n counts files this process made in the same second; a host name that is no plain
 * file name is left out), so runs that write into one folder never share a file.
 *
 * Errors of the file system return TDM_ERR_NOT_FOUND (a path that is missing, not
 * allowed or read-only, a failing device) or TDM_ERR_OUT_OF_MEMORY (no memory, a full
 * disk or quota), with the path and the system's reason in tdm_last_error(). */
#ifndef TANDEM_SUMMARY_H
#define TANDEM_SUMMARY_H

#include <stdint.h>

#include "tandem/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_summary_writer tdm_summary_writer;

/* Creates dir (and the folders above it) where missing and a new event file in it,
 * with its first record written. The file's name sorts after the event files already
 * in dir, as TensorBoard reads a folder's files in the order of their names. */
TDM_API tdm_status tdm_summary_open(const char *dir, tdm_summary_writer **out);

/* Appends one scalar: tag (1 to 4096 bytes, e.g. "epoch_loss"), step (the x axis),
 * value as TensorBoard keeps it, a float32 (NaN and the infinities too). Buffered until
 * tdm_summary_flush or tdm_summary_close. After a failed write every later call fails
 * with TDM_ERR_INVALID_STATE: the file ends where its records are whole. */
TDM_API tdm_status tdm_summary_scalar(tdm_summary_writer *w, const char *tag, int64_t step,
                                      double value);

/* Hands what was appended to the system, so that TensorBoard reads it now. */
TDM_API tdm_status tdm_summary_flush(tdm_summary_writer *w);

/* The event file's path (valid until tdm_summary_close). */
TDM_API const char *tdm_summary_path(const tdm_summary_writer *w);

/* Flushes and closes the file and frees the writer, whatever the result; NULL-safe. An
 * earlier write's failure, reported then, is not reported again. */
TDM_API tdm_status tdm_summary_close(tdm_summary_writer *w);

#ifdef __cplusplus
}
#endif

#endif
