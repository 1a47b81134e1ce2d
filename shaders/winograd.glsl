// Winograd's transformed buffers (kernels.def): planes start stride elements apart,
// 64 bytes past a multiple of 4096, so that no two share a cache set (the core's
// tdm_winograd_stride).
uint tdm_winograd_stride(uint plane)
{
    return (plane + 1023) / 1024 * 1024 + 16;
}
