/* Internal to the Vulkan backend: its state and the helpers its files share. */
#ifndef TDM_VULKAN_INTERNAL_H
#define TDM_VULKAN_INTERNAL_H

#include <stdint.h>

#include "vulkan_api.h"
#include "vulkan_coopmat_khr.h"

#include "device/backend_api.h"

/* The physical devices of one VkInstance. */
struct tdm_backend {
    tdm_context *ctx;
    const char *loader_note; /* where libvulkan.so.1 was loaded from */
    VkInstance instance;
    uint32_t api_version; /* the version the instance was created with */
    VkDebugUtilsMessengerEXT messenger;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
    size_t count;
    VkPhysicalDevice *physical; /* those with a compute queue and Vulkan >= 1.1 */
};

/* A command buffer and what must live until its submission completes. */
typedef struct tdm_vk_slot {
    VkCommandBuffer cmd;
    VkFence fence;                /* only without timeline semaphores */
    VkDescriptorPool descriptors; /* created when the slot first records a batch */
    uint64_t value;               /* submission number it signals; 0: idle or recording */
} tdm_vk_slot;

/* The product kernels (grid TDM_GRID_TILES: gemm.glsl's), counted from the table. */
enum {
    TDM_VK_TILED_KERNELS = 0
#define TDM_KERNEL(name, grid, ...) +((grid) == TDM_GRID_TILES)
#include "kernel/kernels.def"
#undef TDM_KERNEL
};

/* Pipelines: kernel k of the table at index k, then the fill shader, then the product
 * kernels again, in the table's order, for each of the device's product shapes
 * (gemm.glsl; the table's have none; vulkan_gemm_tiles.c): two tiles of C, then k
 * split over a group. */
#define TDM_VK_GEMM_TILES 3
#define TDM_VK_GEMM_SPLIT 2
#define TDM_VK_PIPELINE_FILL_WORDS ((size_t)TDM_KERNEL_COUNT)
#define TDM_VK_PIPELINE_TILED_GEMM(tile)                                                           \
    (TDM_VK_PIPELINE_FILL_WORDS + 1 + TDM_VK_TILED_KERNELS * (size_t)(tile))
/* Then gemm_f16's matrix-engine module (vulkan_coopmat.c), the last. */
#define TDM_VK_PIPELINE_COOPMAT TDM_VK_PIPELINE_TILED_GEMM(TDM_VK_GEMM_TILES)
#define TDM_VK_PIPELINE_COUNT (TDM_VK_PIPELINE_COOPMAT + 1)

/* A product pipeline's shape (gemm.glsl's constants 1 to 6): a tiled one's, in fours,
 * an invocation's block, the group's tile, its staging buffers, and the fewest tiles
 * a product holds to take it; split_main's, its group size in split_sums. Both
 * tile_rows4 and split_sums 0: the device has no such pipeline. */
typedef struct tdm_vk_gemm_tile {
    uint32_t rows4, cols4, tile_rows4, tile_cols4, buffers;
    uint32_t min_tiles;
    uint32_t split_sums;
} tdm_vk_gemm_tile;

/* gemm_f16_coopmat.comp's tile of C, one group's (its TILE). */
#define TDM_VK_COOPMAT_TILE 128u

/* gemm_f16 on a matrix engine (vulkan_coopmat.c): the fragment shape chosen from the
 * device's VK_KHR_cooperative_matrix properties and the subgroup size its pipeline
 * runs with; where it stands, and what `tandem devices` says of it. */
typedef struct tdm_vk_coopmat_shape {
    uint32_t m, n, k; /* 0 x 0 x 0: none */
} tdm_vk_coopmat_shape;

typedef enum tdm_vk_coopmat_state {
    TDM_VK_COOPMAT_NONE,      /* no shape, or the device was created without it */
    TDM_VK_COOPMAT_UNCHECKED, /* enabled; checked at the first gemm_f16 */
    TDM_VK_COOPMAT_USED,
    TDM_VK_COOPMAT_REFUSED /* the check failed: the plain path */
} tdm_vk_coopmat_state;

typedef struct tdm_vk_coopmat {
    tdm_vk_coopmat_shape shape;
    uint32_t subgroup_size;
    int require_subgroup_size; /* through VK_EXT_subgroup_size_control */
    int subgroup_control_extension;
    int faked;          /* TDM_VK_FAKE_COOPMAT: claimed, the extension never enabled */
    int emulated;       /* TDM_VK_FAKE_COOPMAT=emulated: the emulated module's */
    const char *module; /* the module the path runs */
    _Atomic int state;  /* tdm_vk_coopmat_state */
} tdm_vk_coopmat;

/* Commands one batch records; each takes at most one descriptor set from its slot's
 * pool, which has this many. vulkan_batch.c says why this bound. */
#define TDM_VK_BATCH_COMMANDS 64

/* A region [begin, end) of the staging ring that a copy uses until submission
 * `value` completes. */
typedef struct tdm_vk_staging_region {
    size_t begin, end;
    uint64_t value;
} tdm_vk_staging_region;

/* Regions the staging ring tracks at once: more copies in flight than a step makes. */
#define TDM_VK_STAGING_REGIONS 64

/* Bytes [begin, end) of a buffer that a command reads, or writes (and maybe reads). */
typedef struct tdm_vk_access {
    VkBuffer buffer;
    VkDeviceSize begin, end;
    int write;
} tdm_vk_access;

typedef struct tdm_vk_range {
    VkBuffer buffer;
    VkDeviceSize begin, end;
} tdm_vk_range;

/* Ranges a batch tracks per list; past that, ranges widen, then stand for all. */
#define TDM_VK_TRACKED_RANGES 16

typedef struct tdm_vk_ranges {
    tdm_vk_range range[TDM_VK_TRACKED_RANGES];
    size_t count;
    int overflow; /* stands for every range of every buffer */
} tdm_vk_ranges;

/* What the commands of the open batch left that a later command may have to wait for. */
typedef struct tdm_vk_hazards {
    tdm_vk_ranges written; /* since the last memory barrier */
    tdm_vk_ranges read;    /* since the last barrier of either kind */
} tdm_vk_hazards;

typedef enum tdm_vk_barrier {
    TDM_VK_BARRIER_NONE,
    TDM_VK_BARRIER_EXECUTION, /* write after read */
    TDM_VK_BARRIER_MEMORY     /* read or write after write */
} tdm_vk_barrier;

typedef struct tdm_vk_device {
    tdm_device *dev; /* for messages */
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkPhysicalDeviceMemoryProperties memory;

    /* Limits that shape buffers and dispatches. */
    VkDeviceSize max_storage_range;
    VkDeviceSize storage_alignment;
    VkDeviceSize atom_size;
    uint32_t max_groups;
    uint32_t max_group_size; /* a power of two within the device's work-group limits */
    uint32_t max_push_constants;
    uint32_t max_shared_bytes;
    /* The shaders' specialization constants (vulkan_pipeline.c), in constant_id
     * order: 0 the local_size_x of every shader that declares local_size_x_id = 0,
     * 1 and 2 the rows and columns, in fours, of the block of C a gemm or gemm_f16
     * invocation computes, 3 to 5 the tile of C a group stages through shared memory
     * and its buffers (0 x 0 here, none; a TILED pipeline gets its gemm_tiles'), 6
     * the group size of a product split over k (0 here; the split pipeline's), 7 to
     * 10 gemm_f16_coopmat's fragment shape and subgroup size (its pipeline's). */
    struct tdm_vk_specialization {
        uint32_t group_size; /* 0: each kernel's from the table */
        uint32_t gemm_rows4, gemm_cols4;
        uint32_t gemm_tile_rows4, gemm_tile_cols4, gemm_tile_buffers;
        uint32_t gemm_split_sums;
        uint32_t coopmat_m, coopmat_n, coopmat_k, coopmat_subgroup;
    } specialization;
    tdm_vk_gemm_tile gemm_tiles[TDM_VK_GEMM_TILES]; /* from the smallest */
    const struct tdm_gemm_tuning *gemm_tuning;      /* the row its shapes came from */

    int unified_memory; /* integrated GPU or CPU: mapping device memory costs nothing */
    int force_staging;  /* TDM_VK_FORCE_STAGING: never map device buffers */

    /* storageBuffer16BitAccess, enabled: the float16 twins' shaders store each half
     * as its own 16-bit element, as a word of two would race its neighbour's store. */
    int storage16;

    /* The shaders' float requests the device keeps (TDM_VK_KEEP_*; the others are
     * taken out of the modules), and whether through VK_KHR_shader_float_controls. */
    unsigned float_controls;
    int float_controls_extension;

    tdm_vk_coopmat coopmat;
    tdm_mutex coopmat_lock; /* one start-up check at a time */

    /* Guards the queue, the command pool, the slots, the open batch and the pipelines. */
    tdm_mutex lock;
    VkCommandPool pool;
    tdm_vk_slot *slots;
    size_t slot_count;
    uint64_t submitted;   /* number of the last submission */
    VkSemaphore timeline; /* VK_NULL_HANDLE: a fence per slot instead */
    PFN_vkWaitSemaphores wait_semaphores;
    PFN_vkGetSemaphoreCounterValue get_counter;

    /* The open batch: commands recorded, not yet submitted; it will be submission
     * submitted + 1. NULL: none. */
    tdm_vk_slot *batch;
    uint32_t batch_commands;
    uint64_t batch_opened_ns; /* tdm_host_now_ns */
    tdm_vk_hazards hazards;
    /* Set when a batch could not be submitted: its work is lost, so every later call
     * on the device fails with the call and result that lost it. */
    const char *lost_call;
    VkResult lost_result;

    /* The thread that submits a batch left open too long (vulkan_flusher.c). */
    tdm_thread flusher;
    tdm_cond flusher_wake; /* signalled with vd->lock held by a batch that opens on
                              an idle flusher, and by stop */
    int flusher_ready, flusher_running, flusher_idle, flusher_stop;

    /* Compute pipelines, created on first use: one per kernel of the table, then
     * fill_words. All share one layout: TDM_KERNEL_MAX_BUFFERS storage buffers at
     * set 0 and the 128 bytes of tdm_vk_kernel_args. */
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    VkPipeline pipelines[TDM_VK_PIPELINE_COUNT];
    /* The pipeline cache and its file (vulkan_pipeline_cache.c): opened at the first
     * pipeline; written back at close when pipelines were compiled into it and its
     * data changed from what was loaded (size and hash; 0 when nothing was). */
    int pipeline_cache_opened;
    VkPipelineCache pipeline_cache; /* VK_NULL_HANDLE: none could be made */
    char *pipeline_cache_key;
    size_t pipeline_cache_loaded_size;
    uint64_t pipeline_cache_loaded_hash;
    unsigned pipelines_compiled;

    /* Host-visible bounce buffer for memory the host cannot map, used as a ring
     * (vulkan_staging.c): the regions its copies still use, oldest first. */
    tdm_mutex staging_lock;
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    unsigned char *staging_map;
    tdm_vk_staging_region staging_regions[TDM_VK_STAGING_REGIONS];
    size_t staging_first, staging_count; /* the oldest region's index; how many */
    size_t staging_head;                 /* where the next region starts, or 0 */

    /* Buffers freed while the device may still use them, oldest first
     * (vulkan_buffer_release.c); taken before vd->lock, never under it. */
    tdm_mutex retire_lock;
    struct tdm_vk_buffer *retired, *retired_last;

    /* Host memory import (VK_EXT_external_memory_host): 0 when off. */
    VkDeviceSize import_alignment; /* minImportedHostPointerAlignment */
    PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_properties;
    atomic_ullong imported_bytes, staged_bytes; /* host transfers by path, logged */

    /* Timestamps (vulkan_timestamp.c): VK_NULL_HANDLE where the queue keeps none. */
    VkQueryPool timestamps;
    uint32_t timestamp_bits; /* the queue family's timestampValidBits */
    float timestamp_period;  /* nanoseconds per tick */
} tdm_vk_device;

/* The caller's host memory wrapped in a transfer buffer. */
typedef struct tdm_vk_imported {
    VkBuffer buffer;
    VkDeviceMemory memory;
} tdm_vk_imported;

/* The state of a buffer, which its entry points receive. */
typedef struct tdm_vk_buffer {
    tdm_vk_device *owner; /* the device it was allocated for */
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize memory_size;
    unsigned char *mapped; /* NULL: transfers go through the staging buffer */
    int coherent;
    /* Once freed (vulkan_buffer_release.c): the submission to complete first, and the
     * next buffer retired. */
    uint64_t retire_after;
    struct tdm_vk_buffer *retired_next;
} tdm_vk_buffer;

/* The push constants of every kernel (shaders/kernel_args.glsl, 128 bytes). */
typedef struct tdm_vk_kernel_args {
    uint32_t off[TDM_KERNEL_MAX_BUFFERS]; /* view offset within the bound window */
    uint32_t u[TDM_KERNEL_MAX_UINTS];
    float f[TDM_KERNEL_MAX_FLOATS];
} tdm_vk_kernel_args;

/* The push constants of shaders/fill_words.comp (std430: 76 bytes). */
typedef struct tdm_vk_fill_constants {
    uint32_t first_word;
    uint32_t word_count;
    uint32_t pattern_words;
    uint32_t pattern[16];
} tdm_vk_fill_constants;

/* vulkan_result.c */
const char *tdm_vk_result_name(VkResult result);
tdm_status tdm_vk_status(VkResult result);
tdm_status tdm_vk_fail(const tdm_vk_device *vd, const char *call, VkResult result);

/* vulkan_properties.c */
/* Test switches: any value but "0" turns them on. */
int tdm_vk_env_flag(const char *name);
/* The device's type; a discrete GPU for every device under TDM_VK_AS_GPU=1, so that
 * lavapipe takes the GPU configuration (group sizes, gemm blocks, staged memory). */
VkPhysicalDeviceType tdm_vk_device_type(VkPhysicalDevice physical);
uint32_t tdm_vk_device_api(const tdm_backend *be, VkPhysicalDevice physical);
int tdm_vk_has_extension(VkPhysicalDevice physical, const char *name);
/* vkGetPhysicalDeviceProperties2 and vkGetPhysicalDeviceFeatures2 filling `chain`, an
 * extension structure (or a pNext chain of them) whose sType the caller set. */
void tdm_vk_query_properties(VkPhysicalDevice physical, void *chain);
void tdm_vk_query_features(VkPhysicalDevice physical, void *chain);
/* Whether storage buffers may hold 16-bit elements (storageBuffer16BitAccess of
 * VkPhysicalDevice16BitStorageFeatures), which the float16 twins' shaders use. */
int tdm_vk_has_storage16(VkPhysicalDevice physical);
/* The first queue family with compute queues; 0 if there is none. */
int tdm_vk_compute_family(VkPhysicalDevice physical, uint32_t *family);
/* The local_size_x a kernel's pipeline gets on the opened device: its specialisation's,
 * else the table's within the device's limit. */
uint32_t tdm_vk_group_size(const tdm_vk_device *vd, uint32_t table_group_size);

/* vulkan_float_controls.c */
/* The shaders' requests on 32-bit floats: SignedZeroInfNanPreserve, DenormPreserve. */
#define TDM_VK_KEEP_SPECIALS 1u
#define TDM_VK_KEEP_DENORMALS 2u
#define TDM_VK_KEEP_ALL (TDM_VK_KEEP_SPECIALS | TDM_VK_KEEP_DENORMALS)
/* The requests the device can keep, and in *extension whether it needs
 * VK_KHR_shader_float_controls for them; TDM_VK_NO_FLOAT_CONTROLS=1: none. */
unsigned tdm_vk_float_controls(const tdm_backend *be, VkPhysicalDevice physical, int *extension);
/* Copies the module of `words` words to out (as large) with only the `kept`
 * requests; returns the words written, 0 if the module is malformed. */
size_t tdm_vk_spirv_keeping(const uint32_t *code, size_t words, unsigned kept, uint32_t *out);

/* vulkan_gemm_tiles.c */
/* The device's row of the GEMM tuning table (backends/tuning), and on a GPU its
 * product shapes from it, tiled and split (after its limits and group size are
 * known). */
void tdm_vk_gemm_tiles_choose(const tdm_backend *be, tdm_vk_device *vd, int gpu,
                              tdm_backend_traits *traits);
/* The pipeline index of a kernel's launch: a product kernel's split one where its
 * few tiles sum a long k, else gemm_f16's matrix-engine one on a device whose check
 * passed, else its tiled one where its m x n product holds enough of a tile's, else
 * the table's. */
size_t tdm_vk_gemm_pipeline(const tdm_vk_device *vd, tdm_kernel kernel, const uint32_t *u);
/* The groups a product kernel's launch dispatches on pipeline index: the core's
 * (one per 16 x 16 tile) but for the split pipeline's, one per 4 x 4 block, and the
 * matrix-engine one's, one per 64 x 64 tile. */
uint32_t tdm_vk_product_groups(const tdm_vk_device *vd, size_t index, const tdm_launch *l);
/* The tile of a TILED pipeline index, NULL for any other index. */
const tdm_vk_gemm_tile *tdm_vk_gemm_tile_of(const tdm_vk_device *vd, size_t index);
/* The kernel of a TILED pipeline index. */
tdm_kernel tdm_vk_tiled_kernel(size_t index);
/* The device's product shapes in words for its start-up note, each clause after a
 * comma; "" for none. */
void tdm_vk_gemm_tiles_describe(const tdm_vk_device *vd, char *text, size_t size);

/* vulkan_coopmat.c */
/* The fragment shape gemm_f16_coopmat.comp takes from a device's properties: one of
 * subgroup scope with A and B float16, C and the result float32, not saturating,
 * M and N dividing 32 and K dividing 32 (the shader's tile); 16 x 16 x 16 where
 * offered, else the least M * N * K. The index of the entry, -1 for none. */
int tdm_vk_coopmat_choose(const VkCooperativeMatrixPropertiesKHR *props, size_t count,
                          tdm_vk_coopmat_shape *out);
/* Whether the device can take the path: *out filled and the shape chosen; else
 * `why` says what it lacks ("none: ..."). Tests on devices without the extension:
 * TDM_VK_FAKE_COOPMAT=1 claims a 16 x 16 x 16 shape, which the check then refuses;
 * TDM_VK_FAKE_COOPMAT=emulated claims it for gemm_f16_coopmat_emulated (the same
 * shader, its fragments emulated), which the check runs and compares. */
int tdm_vk_coopmat_probe(const tdm_backend *be, VkPhysicalDevice physical, tdm_vk_coopmat *out,
                         char *why, size_t size);
/* The shape in words: "f16xf16+f32 16x16x16 (subgroup 32)". */
void tdm_vk_coopmat_describe(const tdm_vk_coopmat *cm, char *text, size_t size);
/* The extension and features vkCreateDevice enables for the path, chained onto
 * *chain from the caller's storage; the extension names appended to names. */
typedef struct tdm_vk_coopmat_features {
    VkPhysicalDeviceShaderFloat16Int8Features float16;
    VkPhysicalDeviceVulkanMemoryModelFeatures memory_model;
    VkPhysicalDeviceSubgroupSizeControlFeatures subgroup_control;
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR cooperative;
} tdm_vk_coopmat_features;
void tdm_vk_coopmat_enable(const tdm_vk_coopmat *cm, tdm_vk_coopmat_features *f, void **chain,
                           const char **names, uint32_t *count);
/* The start-up check at a device's first gemm_f16 (vulkan_coopmat_check.c): the path
 * is used from then on where its results match and it is faster than the plain
 * pipelines, else never; either way logged and in the device's matrix_engine. */
void tdm_vk_coopmat_check(tdm_vk_device *vd);

/* vulkan_instance.c */
tdm_status tdm_vk_create(tdm_context *ctx, tdm_backend **out);
void tdm_vk_destroy(tdm_backend *be);
size_t tdm_vk_device_count(const tdm_backend *be);
void tdm_vk_summary(const tdm_backend *be, char *out, size_t size);

/* vulkan_describe.c */
void tdm_vk_describe(const tdm_backend *be, size_t index, tdm_device_desc *desc);

/* vulkan_device.c */
tdm_status tdm_vk_open_device(tdm_backend *be, size_t index, tdm_device *dev, void **state,
                              tdm_backend_traits *traits);
void tdm_vk_close_device(tdm_device *dev, void *state);

/* vulkan_submit.c: command buffer slots, queue submissions and waiting for them;
 * under vd->lock unless said otherwise. */
/* An idle slot, a new one, or (all TDM_VK_MAX_SLOTS in flight) the oldest once done. */
tdm_status tdm_vk_acquire_slot(tdm_vk_device *vd, tdm_vk_slot **out);
/* Submits the slot's ended command buffer as submission vd->submitted + 1. */
VkResult tdm_vk_queue_submit(tdm_vk_device *vd, tdm_vk_slot *slot);
/* Waits until submission `value` (at most vd->submitted) has completed; not under
 * vd->lock with a timeline semaphore, under it with fences. */
tdm_status tdm_vk_wait_submitted(tdm_vk_device *vd, uint64_t value);
tdm_status tdm_vk_submitted_done(tdm_vk_device *vd, uint64_t value, int *done);
void tdm_vk_release_slots(tdm_vk_device *vd);

/* vulkan_hazards.c: the barrier a command with these accesses needs after the
 * commands of the open batch; then clear what the barrier covers and add its own. */
tdm_vk_barrier tdm_vk_hazard_barrier(const tdm_vk_hazards *h, const tdm_vk_access *access,
                                     size_t count);
void tdm_vk_hazard_clear(tdm_vk_hazards *h, tdm_vk_barrier barrier);
void tdm_vk_hazard_add(tdm_vk_hazards *h, const tdm_vk_access *access, size_t count);

/* vulkan_batch.c: commands are recorded into the device's open batch, after the
 * barriers their accesses need, and submitted together. A command's record
 * callback runs under vd->lock and allocates at most one descriptor set. */
typedef tdm_status (*tdm_vk_record_fn)(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg);
typedef struct tdm_vk_command {
    tdm_vk_record_fn record;
    void *arg;
    size_t access_count;
    tdm_vk_access access[TDM_KERNEL_MAX_BUFFERS];
} tdm_vk_command;
/* Records the command; *value (may be NULL) is the submission that completes it. */
tdm_status tdm_vk_record(tdm_vk_device *vd, const tdm_vk_command *cmd, uint64_t *value);
/* Records the command and submits the batch now: for host transfers, whose host side
 * waits for the copy. */
tdm_status tdm_vk_submit(tdm_vk_device *vd, const tdm_vk_command *cmd, uint64_t *value);
/* The submission that completes every command recorded so far. */
uint64_t tdm_vk_last_recorded(tdm_vk_device *vd);
/* Waits for, or asks about, submission `value`, first submitting the open batch if
 * the value is its own; from any thread. */
tdm_status tdm_vk_wait(tdm_vk_device *vd, uint64_t value);
tdm_status tdm_vk_is_done(tdm_vk_device *vd, uint64_t value, int *done);
/* As is_done, but submits nothing: work still in the open batch is not done. */
tdm_status tdm_vk_completed(tdm_vk_device *vd, uint64_t value, int *done);
/* Under vd->lock: submits the open batch, if any. */
tdm_status tdm_vk_submit_batch(tdm_vk_device *vd);
/* How long a batch may stay open: vulkan_batch.c says why. */
#define TDM_VK_BATCH_NS ((uint64_t)1000000)

/* vulkan_flusher.c: the thread that submits a batch open for TDM_VK_BATCH_NS. Start
 * fails only when the thread cannot be created; stop joins it (not under vd->lock). */
tdm_status tdm_vk_flusher_start(tdm_vk_device *vd);
void tdm_vk_flusher_stop(tdm_vk_device *vd);

/* vulkan_events.c */
tdm_status tdm_vk_finish(tdm_device *dev, void *state);
tdm_status tdm_vk_event_record(tdm_device *dev, void *state, void **event);
tdm_status tdm_vk_event_wait(tdm_device *dev, void *state, void *event);
tdm_status tdm_vk_event_query(tdm_device *dev, void *state, void *event, int *done);
void tdm_vk_event_release(tdm_device *dev, void *state, void *event);
tdm_status tdm_vk_queue_wait(tdm_device *dev, void *state, tdm_device *src, void *src_state,
                             void *event);

/* vulkan_timestamp.c */
tdm_status tdm_vk_timestamps_open(tdm_vk_device *vd);
void tdm_vk_timestamps_release(tdm_vk_device *vd);
tdm_status tdm_vk_timestamp(tdm_device *dev, void *state, uint64_t *device_ns);

/* vulkan_memory.c */
/* The first type in `allowed` with the first of choices that any allowed type has. */
int tdm_vk_find_type(const tdm_vk_device *vd, uint32_t allowed,
                     const VkMemoryPropertyFlags *choices, size_t count, uint32_t *index);
/* Allocates and binds memory of the first type matching one of choices, in order. */
tdm_status tdm_vk_allocate(tdm_vk_device *vd, VkBuffer buffer, const VkMemoryPropertyFlags *choices,
                           size_t count, VkDeviceMemory *memory, VkMemoryPropertyFlags *got);
tdm_status tdm_vk_sync_mapped(tdm_vk_device *vd, const tdm_vk_buffer *vb, size_t offset,
                              size_t size, int to_device);

/* vulkan_buffer.c: a free hands the buffer to the retire list. */
tdm_status tdm_vk_buffer_alloc(tdm_buffer *buf, void *device_state, void **state);
void tdm_vk_buffer_free(tdm_buffer *buf, void *state);
void *tdm_vk_host_address(tdm_buffer *buf, void *state);

/* vulkan_buffer_release.c: destroy releases a buffer now; retire puts a freed buffer
 * on the list, to be destroyed once the work recorded before it has completed; sweep
 * destroys those whose work has; wait waits for the newest one's work and sweeps (0:
 * none to wait for, or a loss); release destroys them all, at close, once the device
 * is idle. */
void tdm_vk_buffer_destroy(tdm_vk_device *vd, tdm_vk_buffer *vb);
void tdm_vk_retire(tdm_vk_device *vd, tdm_vk_buffer *vb);
void tdm_vk_retire_sweep(tdm_vk_device *vd);
int tdm_vk_retire_wait(tdm_vk_device *vd);
void tdm_vk_retire_release(tdm_vk_device *vd);

/* vulkan_staging.c */
/* Writes are recorded into the open batch and never waited for; the host waits only
 * when the ring is full, for its oldest region's copy. */
tdm_status tdm_vk_staged_write(tdm_vk_device *vd, VkBuffer dst, size_t offset,
                               const unsigned char *src, size_t size);
tdm_status tdm_vk_staged_read(tdm_vk_device *vd, VkBuffer src, size_t offset, unsigned char *dst,
                              size_t size);
void tdm_vk_staging_release(tdm_vk_device *vd);

/* vulkan_host_import.c */
/* minImportedHostPointerAlignment where buffers can import host memory, else 0. */
VkDeviceSize tdm_vk_import_alignment(VkPhysicalDevice physical);
/* Loads the extension's function once the device exists; turns import off without it. */
void tdm_vk_import_load(tdm_vk_device *vd);
/* Imports [host, host + size) (both multiples of import_alignment); 0 when the driver
 * refuses, with nothing left to release. */
int tdm_vk_import(tdm_vk_device *vd, void *host, size_t size, tdm_vk_imported *out);
/* Only once the device no longer uses it. */
void tdm_vk_import_release(tdm_vk_device *vd, tdm_vk_imported *imported);

/* vulkan_host_transfer.c: host transfers of unmapped buffers, by import or staging. */
tdm_status tdm_vk_host_write(tdm_vk_device *vd, VkBuffer dst, size_t offset,
                             const unsigned char *src, size_t size);
tdm_status tdm_vk_host_read(tdm_vk_device *vd, VkBuffer src, size_t offset, unsigned char *dst,
                            size_t size);

/* vulkan_copy.c */
/* A copy between buffers of the device; submitted: at once, for a host side that
 * waits for it; else recorded into the open batch. *value (may be NULL): the
 * submission that completes it. */
tdm_status tdm_vk_copy_region(tdm_vk_device *vd, VkBuffer dst, size_t dst_offset, VkBuffer src,
                              size_t src_offset, size_t size, int submitted, uint64_t *value);

/* vulkan_transfer.c */
tdm_status tdm_vk_write(tdm_buffer *buf, void *state, size_t offset, const void *src, size_t size);
tdm_status tdm_vk_read(tdm_buffer *buf, void *state, size_t offset, void *dst, size_t size);
tdm_status tdm_vk_copy(tdm_buffer *dst, void *dst_state, size_t dst_offset, tdm_buffer *src,
                       void *src_state, size_t src_offset, size_t size);

/* vulkan_pipeline.c: under vd->lock (in a record callback). The pipeline at `index`
 * (TDM_VK_PIPELINE_*), compiled from the embedded module `name` on first use. */
tdm_status tdm_vk_pipeline(tdm_vk_device *vd, size_t index, const char *name, VkPipeline *out);
void tdm_vk_pipeline_release(tdm_vk_device *vd);

/* vulkan_pipeline_cache.c: the pipeline cache kept on disk (device/disk_cache.h).
 * Open: under vd->lock, before the first pipeline; close: at release, writing the
 * data back when it grew. Neither fails: a cache is only a speed-up. */
void tdm_vk_pipeline_cache_open(tdm_vk_device *vd);
void tdm_vk_pipeline_cache_close(tdm_vk_device *vd);

/* vulkan_dispatch.c: what fills and kernel launches share, under vd->lock. */
/* The window a storage binding of [offset, offset + size) of a buffer of buffer_size
 * bytes takes (offset < buffer_size): from offset rounded down to
 * minStorageBufferOffsetAlignment to the end rounded up to a word, at most
 * maxStorageBufferRange bytes. Sets window->offset and window->range. */
void tdm_vk_window(const tdm_vk_device *vd, VkDeviceSize buffer_size, VkDeviceSize offset,
                   VkDeviceSize size, VkDescriptorBufferInfo *window);
/* The window as an access: what the validation layer, too, counts as touched. */
tdm_vk_access tdm_vk_window_access(const VkDescriptorBufferInfo *window, int write);
/* Readies the slot's descriptor pool (its previous submission has completed). */
tdm_status tdm_vk_descriptors_reset(tdm_vk_device *vd, tdm_vk_slot *slot);
/* Binds pipeline `index` with a new set holding windows[0..count) at bindings
 * 0..count-1, and pushes `size` bytes of constants. */
tdm_status tdm_vk_bind(tdm_vk_device *vd, tdm_vk_slot *slot, size_t index, const char *name,
                       const VkDescriptorBufferInfo *windows, uint32_t count, const void *constants,
                       uint32_t size);

/* vulkan_fill.c */
tdm_status tdm_vk_fill(tdm_buffer *buf, void *state, size_t offset, const uint32_t *pattern,
                       size_t words, size_t size);

/* vulkan_launch.c */
tdm_status tdm_vk_launch(tdm_device *dev, void *state, const tdm_launch *launch);
/* A launch on pipeline `index` (TDM_VK_PIPELINE_*) whatever the product would take. */
tdm_status tdm_vk_launch_on(tdm_vk_device *vd, const tdm_launch *launch, size_t index);
int tdm_vk_supports(const tdm_device *dev, const void *state, tdm_kernel kernel);

#endif
