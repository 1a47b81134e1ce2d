/* Internal: the interface every backend implements (reference, OpenCL, Vulkan).
 *
 * A backend fills one tdm_backend_ops with designated initialisers. The core owns
 * the tdm_device / tdm_buffer / tdm_event structs (device_impl.h, which no backend
 * sees), checks every argument before calling a backend, and keeps the state a
 * backend gives for a device or buffer. Every entry point receives the handle (for
 * the door's accessors and messages) and beside it that state, so a backend reaches
 * its own structs without asking the core. Backends set the last error (tdm_fail)
 * on every failure. */
#ifndef TDM_CORE_BACKEND_H
#define TDM_CORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "tandem/buffer.h"

/* A backend instance for one context; each backend defines the struct. */
typedef struct tdm_backend tdm_backend;

/* What open_device reports of a device besides its state, for the core's launches
 * and its description; zero (no limit, no run, no row) unless the backend sets a
 * field. */
typedef struct tdm_backend_traits {
    /* the most bytes of one buffer a kernel can reach in one launch */
    uint64_t max_binding_bytes;
    /* where the driver ends long shader loops early (lavapipe): the most loop
     * iterations one invocation may run */
    uint32_t max_loop_iterations;
    /* the image kernels give a work-item a run of elements (TDM_CPU,
     * kernels/pool_window.clh): their launches are sized by runs, not elements */
    int image_runs;
    /* the element kernels give a work-item four elements or more (OpenCL's sources):
     * their launches are sized by what an item takes (units_per_item, kernel_run.c) */
    int quad_items;
    /* the row of the GEMM tuning table the device took (a name that lives as long as
     * the library), which its description then gives; NULL: none */
    const char *gemm_tuning;
} tdm_backend_traits;

typedef struct tdm_backend_ops {
    tdm_backend_kind kind;

    /* Loads the driver(s) for ctx. TDM_ERR_NOT_FOUND when none is installed (its
     * loader library missing included), which the core logs, records as the
     * backend's status and treats as "no devices". */
    tdm_status (*create)(tdm_context *ctx, tdm_backend **out);
    void (*destroy)(tdm_backend *be);
    /* Optional: what the instance loaded, for tdm_context_backend_status ("the
     * library's path, 2 platforms; gemm through ..."). NULL: "built in". */
    void (*summary)(const tdm_backend *be, char *out, size_t size);

    /* Physical devices, in a stable order. describe fills every field but size, id,
     * same_hardware_as, parent and logical_*, which the core owns. */
    size_t (*device_count)(const tdm_backend *be);
    void (*describe)(const tdm_backend *be, size_t index, tdm_device_desc *desc);

    /* Opens physical device `index` for dev: *state is the backend's state, which
     * dev's entry points receive from then on; *traits (zeroed) as they apply.
     * Called once per tdm_device: for a logical device too (its desc's
     * logical_count > 0), which must get a queue of its own. */
    tdm_status (*open_device)(tdm_backend *be, size_t index, tdm_device *dev, void **state,
                              tdm_backend_traits *traits);
    void (*close_device)(tdm_device *dev, void *state);

    /* The buffer's device (whose state is device_state) and size are set; *state is
     * the backend's state for the buffer, which its entry points receive from then
     * on. The core has checked the size against the device's limits. */
    tdm_status (*buffer_alloc)(tdm_buffer *buf, void *device_state, void **state);
    /* The core does not wait: work recorded on the device before the free, or in
     * flight after a loss the core saw, may still use the buffer. The backend
     * releases the memory once that work has completed (OpenCL's runtime does so
     * for a released cl_mem; Vulkan keeps a retire list), and never waits here. */
    void (*buffer_free)(tdm_buffer *buf, void *state);

    /* Host transfers, ordered after earlier operations on the device and before
     * later ones. A read returns with the bytes in dst; a write may return before
     * the device has them (queued from a copy), but src is the caller's again on
     * return either way. */
    tdm_status (*write)(tdm_buffer *buf, void *state, size_t offset, const void *src, size_t size);
    tdm_status (*read)(tdm_buffer *buf, void *state, size_t offset, void *dst, size_t size);

    /* Fills [offset, offset + size) with a pattern of `words` 32-bit words (1, 2, 4,
     * 8 or 16); offset and size are multiples of 4 * words. Asynchronous. */
    tdm_status (*fill)(tdm_buffer *buf, void *state, size_t offset, const uint32_t *pattern,
                       size_t words, size_t size);

    /* Optional: whether `copy` can move bytes between buffers of two different
     * devices of this backend directly, ordered by events (one OpenCL context,
     * shared host memory). NULL: only same-device copies are direct; the core stages
     * the rest. */
    int (*can_copy)(const tdm_device *dst, const void *dst_state, const tdm_device *src,
                    const void *src_state);

    /* Optional: whether kernels of either device may read and write the other's
     * buffers in place, between the events the core orders them by, while the
     * other's kernels run on other ranges: memory that both devices and the host see
     * coherently (host memory; logical devices of one device). Separate cards in
     * one context can copy but do not share: drivers migrate whole buffers between
     * them. Implies can_copy. NULL: a device shares only with itself. */
    int (*shares_memory)(const tdm_device *a, const void *a_state, const tdm_device *b,
                         const void *b_state);

    /* Copies between buffers of one device, or of two devices for which can_copy
     * said yes. Must be ordered after earlier work on both devices and before later
     * work on both (the core promises that to users). Ranges do not overlap. */
    tdm_status (*copy)(tdm_buffer *dst, void *dst_state, size_t dst_offset, tdm_buffer *src,
                       void *src_state, size_t src_offset, size_t size);

    /* Optional: runs one kernel of the table (kernel.h, kernels.def) asynchronously.
     * TDM_ERR_UNSUPPORTED for a kernel the backend lacks; NULL: none. The core has
     * checked the arguments, sized the grid and split the launch so that every
     * buffer range the kernel touches fits the device's max_binding_bytes. */
    tdm_status (*launch)(tdm_device *dev, void *state, const tdm_launch *launch);
    /* Optional with launch: whether the backend implements the kernel on dev.
     * NULL: every kernel of the table. */
    int (*supports)(const tdm_device *dev, const void *state, tdm_kernel kernel);

    tdm_status (*finish)(tdm_device *dev, void *state);

    /* Events: an opaque marker after all work submitted so far. event_wait blocks
     * the host; event_wait and event_query may be called from any thread and must
     * make sure the work before the event reaches the device (a backend that
     * batches submissions flushes them). */
    tdm_status (*event_record)(tdm_device *dev, void *state, void **event);
    tdm_status (*event_wait)(tdm_device *dev, void *state, void *event);
    tdm_status (*event_query)(tdm_device *dev, void *state, void *event, int *done);
    void (*event_release)(tdm_device *dev, void *state, void *event);

    /* Optional: makes dev's queue wait, without blocking the host, until `event`
     * (recorded on src, a device of this backend, possibly dev itself) has completed:
     * work submitted to dev afterwards runs after everything before the event.
     * TDM_ERR_UNSUPPORTED where the backend cannot for this pair of devices; NULL:
     * never. Either way the core then waits on the host instead. */
    tdm_status (*queue_wait)(tdm_device *dev, void *state, tdm_device *src, void *src_state,
                             void *event);

    /* Optional: the host address of the buffer's memory where the host may read and
     * write it in place (CPU drivers, integrated GPUs with coherent memory), valid for
     * the buffer's life; NULL where it may not (the core then stages through read and
     * write). The core reads there only after the events of the work that wrote the
     * range have completed, writes only where no submitted work still uses the range,
     * and expects work submitted to the device after a host write to see it.
     * "Submitted" means handed to the backend, which may still hold it unsent (a
     * batching backend): the core knows that earlier work no longer uses a range only
     * from an event recorded after that work having completed (event_wait returned,
     * event_query said done), never from having issued it long ago. */
    void *(*host_address)(tdm_buffer *buf, void *state);

    /* Optional: puts a timestamp into dev's queue after all work submitted so far,
     * waits for it and gives the time the device wrote it, in nanoseconds of the
     * device's own clock (docs/modules/device.md, "Device timestamps": the core maps
     * it onto the host's). Called by one thread at a time per device.
     * TDM_ERR_UNSUPPORTED where the device keeps no timestamps; NULL: none does. */
    tdm_status (*timestamp)(tdm_device *dev, void *state, uint64_t *device_ns);
} tdm_backend_ops;

extern const tdm_backend_ops tdm_reference_backend;
#ifdef TDM_HAVE_OPENCL
extern const tdm_backend_ops tdm_opencl_backend;
#endif
#ifdef TDM_HAVE_VULKAN
extern const tdm_backend_ops tdm_vulkan_backend;
#endif

#endif
