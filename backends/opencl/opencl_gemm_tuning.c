/* CLBlast's parameters for the CPU drivers. CLBlast's database holds tuned values
 * for many GPUs but falls back to generic defaults on PoCL, where its GEMM then
 * reaches about a quarter of what the device can do. These come from CLBlast's own
 * tuner (Debian's clblast-utils), run on PoCL's pthread device of an AVX-512 CPU:
 *
 *   clblast_tuner_xgemm -precision 32 -m 512 -n 512 -k 512 -fraction 0.008
 *
 * docs/PERFORMANCE.md records what they give; docs/KERNELS.md says how to tune for
 * another device. */
#include <string.h>

#include "opencl_gemm_tuning.h"

/* Xgemm, the indirect GEMM kernel that large products use: 64 x 64 tiles of C per
 * work-group of 8 x 8, vectors of 4 along both, no local memory (a CPU's caches
 * serve better than PoCL's emulated local memory). */
static const tdm_clblast_parameters pocl_cpu[] = {
    {"Xgemm",
     16,
     {"GEMMK", "KREG", "KWG", "KWI", "MDIMA", "MDIMC", "MWG", "NDIMB", "NDIMC", "NWG", "SA", "SB",
      "STRM", "STRN", "VWM", "VWN"},
     {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 0, 0, 0, 0, 4, 4}},
    /* The copies, pads and transposes around it (clblast_tuner_copy_fast, _copy_pad,
     * _transpose_fast and _transpose_pad at 1024 x 1024): 2.3 to 2.9 times their
     * default speed. */
    {"Copy", 4, {"COPY_DIMX", "COPY_DIMY", "COPY_VW", "COPY_WPT"}, {8, 16, 4, 1}},
    {"Pad", 4, {"PAD_DIMX", "PAD_DIMY", "PAD_WPTX", "PAD_WPTY"}, {32, 8, 2, 1}},
    {"Transpose", 4, {"TRA_DIM", "TRA_PAD", "TRA_SHUFFLE", "TRA_WPT"}, {16, 1, 0, 8}},
    {"Padtranspose", 3, {"PADTRA_PAD", "PADTRA_TILE", "PADTRA_WPT"}, {1, 64, 1}},
    {NULL, 0, {NULL}, {0}},
};

const tdm_clblast_parameters *tdm_opencl_gemm_tuning(const char *platform_name,
                                                     tdm_device_type type)
{
    if (type == TDM_DEVICE_CPU && strstr(platform_name, "Portable Computing Language"))
        return pocl_cpu;
    return NULL;
}
