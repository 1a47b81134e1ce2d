/* tandem: checkpoint files. A checkpoint holds named tensors (float32 or int32) and
 * named unsigned 64-bit values (global step, RNG seed, input position) for one
 * training step. It is written to a temporary file and renamed into place only when
 * complete and on disk, so a crash leaves either the old set of checkpoints or the
 * new one, never a half-written file under a final name; every record carries a
 * CRC-32 and the file ends in a footer, so damage and truncation are detected when
 * it is read. docs/CHECKPOINTS.md describes the byte layout and the guarantees.
 *
 * Files in a checkpoint directory:
 *   dir/ckpt-<step, 20 digits>.tdm             complete checkpoints
 *   dir/.ckpt-<step, 20 digits>.tdm.tmp-<...>  being written (or left by a crash)
 *
 * Errors of the file system return TDM_ERR_NOT_FOUND (a path that is missing, not
 * allowed, read-only, or a failing device) or TDM_ERR_OUT_OF_MEMORY (no memory, a
 * full disk or quota), with the path and the system's reason in tdm_last_error(). */
#ifndef TANDEM_CHECKPOINT_H
#define TANDEM_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/tensor.h"
#include "tandem/variable.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_checkpoint_writer tdm_checkpoint_writer;
typedef struct tdm_checkpoint tdm_checkpoint;

/* ---- writing ------------------------------------------------------------------- */

/* Starts checkpoint `step` in dir (created if missing, one level): writes go to a
 * temporary file in dir. A checkpoint of the same step already in dir is replaced,
 * atomically, when this one commits. */
TDM_API tdm_status tdm_checkpoint_writer_create(const char *dir, uint64_t step,
                                                tdm_checkpoint_writer **out);

/* Adds a named tensor (name unique within the checkpoint, 1 to 255 bytes; data: the
 * shape's count of elements of dtype TDM_F32, TDM_I32 (4 bytes) or TDM_I64 (8), NULL allowed when
 * the count is 0). A rejected argument (TDM_ERR_INVALID_ARGUMENT: a repeated name, a
 * bad dtype or shape) writes nothing and leaves the writer usable; a failed write
 * (disk full, I/O error) leaves it failed: further adds and the commit fail with
 * TDM_ERR_INVALID_STATE, and the commit removes the temporary file. */
TDM_API tdm_status tdm_checkpoint_add(tdm_checkpoint_writer *w, const char *name,
                                      tdm_dtype dtype, const tdm_shape *shape,
                                      const void *data);

/* Adds a named unsigned 64-bit integer (global step, RNG seed, input position). The
 * name shares the namespace of the tensors. */
TDM_API tdm_status tdm_checkpoint_add_u64(tdm_checkpoint_writer *w, const char *name,
                                          uint64_t value);

/* Finishes: footer, fflush + fsync, rename to its final name
 * (dir/ckpt-<step, 20 digits>.tdm), fsync of the directory; then releases w (also on
 * failure: the temporary file is removed). Should only the directory's fsync fail,
 * the checkpoint is complete under its final name but might not survive a crash of
 * the machine; the error says so. */
TDM_API tdm_status tdm_checkpoint_commit(tdm_checkpoint_writer *w);

/* Abandons it: removes the temporary file, releases w. NULL-safe. */
TDM_API void tdm_checkpoint_writer_abort(tdm_checkpoint_writer *w);

/* ---- the directory ------------------------------------------------------------- */

/* The newest complete checkpoint in dir (a final name with a valid header and
 * footer, the header's step equal to the name's; temporary and truncated files are
 * skipped): its path (capacity path_size, with its NUL) and step. NOT_FOUND when
 * none (a missing dir is NOT_FOUND too); INVALID_ARGUMENT when path_size is too
 * small. A checkpoint of a newer format version than this build reads counts as
 * complete, so that opening it reports the version instead of an older checkpoint
 * being resumed silently. */
TDM_API tdm_status tdm_checkpoint_latest(const char *dir, char *path, size_t path_size,
                                         uint64_t *step);

/* Deletes all but the newest `keep` (>= 1) complete checkpoints in dir, and stale
 * temporary files: those no live writer holds (a writer keeps a lock on its file).
 * Damaged files under final names are left alone. */
TDM_API tdm_status tdm_checkpoint_prune(const char *dir, size_t keep);

/* ---- reading ------------------------------------------------------------------- */

/* Reads and verifies a whole checkpoint: magic (a foreign file: CORRUPT_DATA "not a
 * tandem checkpoint"), version (newer than this build: CORRUPT_DATA naming both
 * versions), every tensor's CRC-32 (CORRUPT_DATA naming the tensor), truncation
 * (CORRUPT_DATA naming the tensor being read). NOT_FOUND for a missing file. The
 * checkpoint is held in host memory until closed. */
TDM_API tdm_status tdm_checkpoint_open(const char *path, tdm_checkpoint **out);

/* Releases it. NULL-safe. */
TDM_API void tdm_checkpoint_close(tdm_checkpoint *c);

/* The step in its header. */
TDM_API uint64_t tdm_checkpoint_step(const tdm_checkpoint *c);

/* Records (tensors and u64 values) in it. */
TDM_API size_t tdm_checkpoint_count(const tdm_checkpoint *c);

/* The name of record i, in the order they were added; NULL when i is out of range.
 * Valid until the checkpoint is closed. */
TDM_API const char *tdm_checkpoint_name(const tdm_checkpoint *c, size_t i);

/* Copies tensor `name` out after checking dtype and shape: NOT_FOUND naming the
 * tensor and the file; CORRUPT_DATA naming the tensor and both shapes/dtypes when
 * they differ (a u64 value read as a tensor too). size: the shape's count times the
 * dtype's size (INVALID_ARGUMENT otherwise). */
TDM_API tdm_status tdm_checkpoint_read(const tdm_checkpoint *c, const char *name,
                                       tdm_dtype dtype, const tdm_shape *shape, void *dst,
                                       size_t size);

/* The dtype and shape of tensor `name`, to size a read of a tensor whose shape the
 * caller does not know: NOT_FOUND naming it and the file; CORRUPT_DATA for a u64
 * value. */
TDM_API tdm_status tdm_checkpoint_tensor_shape(const tdm_checkpoint *c, const char *name,
                                               tdm_dtype *dtype, tdm_shape *shape);

/* Reads the u64 value `name`: NOT_FOUND naming it and the file; CORRUPT_DATA when it
 * is a tensor. */
TDM_API tdm_status tdm_checkpoint_read_u64(const tdm_checkpoint *c, const char *name,
                                           uint64_t *value);

/* ---- variables ----------------------------------------------------------------- */

/* Variables (cross-replica or default mode): saves the value a cross-replica read
 * gives (tdm_variable_read: sync-on-read SUM/MEAN aggregated) under the variable's
 * name, as an f32 tensor of its shape; restore reads it back with
 * tdm_variable_assign_host(TDM_ASSIGN), so a SUM sync-on-read variable gets x / N
 * per copy ("Restoring a checkpoint divides a SUM variable by N likewise"). Shape
 * mismatch: CORRUPT_DATA naming the variable; a missing tensor: NOT_FOUND naming the
 * variable and the file. In a replica or update function: INVALID_STATE. */
TDM_API tdm_status tdm_checkpoint_add_variable(tdm_checkpoint_writer *w,
                                               const tdm_variable *var);
TDM_API tdm_status tdm_checkpoint_restore_variable(const tdm_checkpoint *c, tdm_variable *var);

#ifdef __cplusplus
}
#endif
#endif
